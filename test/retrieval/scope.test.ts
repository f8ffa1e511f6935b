/**
 * The company and fiscal year a question names, read against an index's documents (scope.ts), and the
 * index ranking only their chunks (store.ts `scopeOf`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildIndex,
  documentNames,
  type Index,
  openIndex,
  questionFiscalYears,
  questionScope,
  type ScopeDocument,
} from '../../src/retrieval/index.ts';
import { makeChunk } from './chunks.ts';

const FIXTURE: ScopeDocument[] = [
  { company: 'hdfc-bank', fy: 'FY23' },
  { company: 'hdfc-bank', fy: 'FY24' },
  { company: 'adani-ports', fy: 'FY23' },
  { company: 'adani-ports', fy: 'FY24' },
  { company: 'nykaa', companyName: 'FSN E-Commerce Ventures Limited (Nykaa)', fy: 'FY24' },
];

// FinanceBench-style folders: one slug per filing, the company only in the file name
const FILINGS: ScopeDocument[] = [
  { company: '3m-2022-10k', fy: 'FY22' },
  { company: 'bestbuy-2023-10k', fy: 'FY23' },
  { company: 'pepsico-2021-10k', fy: 'FY21' },
  { company: 'pepsico-2022-10k', fy: 'FY22' },
  { company: 'pepsico-2023q1-earnings', fy: 'FY23' },
  { company: 'amcor-2022-8k-dated-2022-07-01', fy: 'FY22' },
  { company: 'johnson-johnson-2022-10k', fy: 'FY22' },
  { company: '85fb23ba2910de45e27f8f40170c0f3576043916', fy: null },
];

describe('documentNames', () => {
  it('drops legal forms and filing words, keeps a parenthetical name', () => {
    expect(documentNames(FIXTURE[4] as ScopeDocument)).toEqual([
      ['fsn', 'e', 'commerce', 'ventures'],
      ['nykaa'],
    ]);
    expect(documentNames({ company: 'amcor-2022-8k-dated-2022-07-01', fy: null })).toEqual([['amcor']]);
    expect(documentNames({ company: 'pepsico-2023q1-earnings', fy: null })).toEqual([['pepsico']]);
    expect(documentNames({ company: 'johnson-johnson-2022-10k', fy: null })).toEqual([
      ['johnson', 'johnson'],
    ]);
  });

  it('gives no name that is only a common word or a hash', () => {
    expect(documentNames({ company: 'bank-2023-annual-report', fy: null })).toEqual([]);
    expect(documentNames({ company: '2023-10k', fy: null })).toEqual([]);
  });
});

describe('questionFiscalYears', () => {
  it.each([
    ['What was the FY2022 capex?', ['FY22']],
    ['revenue in FY23 and FY 2024', ['FY23', 'FY24']],
    ["in fiscal 2021 and fiscal year 2020; FY'19", ['FY19', 'FY20', 'FY21']],
    ['As of FY2023Q1, and Q2 of FY2024', ['FY23', 'FY24']],
    ['for 2023-24 (the year ended 31 March 2024)', ['FY24']],
    ['in 2022, between 2019-2021', []],
  ])('%s', (question, fys) => {
    expect(questionFiscalYears(question)).toEqual(fys);
  });
});

describe('questionScope', () => {
  it('names the company and year of a fixture-style question', () => {
    expect(questionScope("Who were HDFC Bank Limited's statutory auditors for FY23?", FIXTURE)).toEqual({
      companies: ['hdfc-bank'],
      fys: ['FY23'],
    });
    expect(questionScope('What did FSN E-Commerce Ventures Limited (Nykaa) earn in FY24?', FIXTURE)).toEqual({
      companies: ['nykaa'],
      fys: ['FY24'],
    });
  });

  it('keeps every filing of a named company, and only the years they have', () => {
    expect(questionScope('What is the FY2021 capital expenditure for PepsiCo?', FILINGS)).toEqual({
      companies: ['pepsico-2021-10k', 'pepsico-2022-10k', 'pepsico-2023q1-earnings'],
      fys: ['FY21'],
    });
    // no 3M filing of FY2023: the year is dropped, not every chunk
    expect(questionScope("What production rate will 3M's plants reach in FY2023?", FILINGS)).toEqual({
      companies: ['3m-2022-10k'],
      fys: [],
    });
  });

  it('reads a name written as two words or as one', () => {
    expect(questionScope("Are Best Buy's gross margins consistent?", FILINGS).companies).toEqual([
      'bestbuy-2023-10k',
    ]);
    expect(questionScope('What did Johnson & Johnson report?', FILINGS).companies).toEqual([
      'johnson-johnson-2022-10k',
    ]);
  });

  it('restricts nothing when no indexed company is named', () => {
    expect(questionScope('What did JnJ report in FY2022?', FILINGS)).toEqual({
      companies: [],
      fys: ['FY22'],
    });
    expect(questionScope('What did Tata Fixture Passenger Mobility Limited report?', FIXTURE)).toEqual({
      companies: [],
      fys: [],
    });
  });
});

describe('an index ranks only the scope a question names', () => {
  let root: string;
  let index: Index;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'rge-scope-'));
    // three dividend notes; the other company's repeats the word, so it wins when nothing is scoped
    const notes: [string, string, string][] = [
      ['hdfc-bank', 'FY23', 'a dividend of 19 per share.'],
      ['hdfc-bank', 'FY24', 'a dividend of 19.50 per share.'],
      ['adani-ports', 'FY23', 'a dividend of 5 per share, dividend dividend dividend.'],
    ];
    const chunks = notes.map(([company, fy, text]) =>
      makeChunk(company, fy, 'Dividend', 10, `The Board recommended ${text}`),
    );
    await buildIndex(chunks, { dir: join(root, 'index'), embedder: 'bm25' });
    index = await openIndex(join(root, 'index'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("ranks the named company's chunks of the named year alone", async () => {
    const question = 'What dividend did the Board of HDFC Bank recommend for FY24?';
    const hits = await index.retrieve(question, { k: 3, questionScope: true });
    expect(hits.map((h) => [h.company, h.fy])).toEqual([['hdfc-bank', 'FY24']]);
    expect(index.scopeOf(question, { questionScope: true })).toEqual({
      companies: ['hdfc-bank'],
      fys: ['FY24'],
      named: { companies: ['hdfc-bank'], fys: ['FY24'] },
    });
  });

  it('ranks everything by default (the retriever an eval run holds fixed), and given filters win', async () => {
    const question = 'What dividend did the Board of HDFC Bank recommend for FY24?';
    const all = await index.retrieve(question, { k: 3 });
    expect(all).toHaveLength(3);
    expect(new Set(all.map((h) => h.company))).toEqual(new Set(['hdfc-bank', 'adani-ports']));
    expect(index.scopeOf(question)).toMatchObject({ companies: null, fys: null });
    const given = await index.retrieve(question, { k: 3, company: 'adani-ports', questionScope: true });
    expect(given.map((h) => h.company)).toEqual(['adani-ports']);
    expect(index.scopeOf(question, { company: 'adani-ports', questionScope: true }).fys).toBeNull(); // no FY24 there
  });
});
