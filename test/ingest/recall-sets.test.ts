/**
 * The real questions page recall is measured on, and their split: by filing, seeded, balanced, and the
 * same as the one recorded in data/recall-split.json before any retrieval change was written.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ercRecallSet,
  financeBenchRecallSet,
  pagesPrinting,
  RECALL_SPLIT_SEED,
  RecordedSplit,
  recordSplit,
  splitFilings,
} from '../../src/ingest/recall-sets.ts';
import { SHARED_ABSENT, sharedCorpus } from '../helpers/shared.ts';

const recorded = RecordedSplit.parse(
  JSON.parse(readFileSync(new URL('../../data/recall-split.json', import.meta.url), 'utf8')),
);

describe('splitFilings', () => {
  const counts = new Map([
    ['a.pdf', 7],
    ['b.pdf', 1],
    ['c.pdf', 3],
    ['d.pdf', 3],
    ['e.pdf', 2],
    ['f.pdf', 4],
  ]);

  it('gives every filing one split, the same for the same seed', () => {
    const one = splitFilings(counts, 's');
    expect([...one.keys()]).toEqual(['a.pdf', 'b.pdf', 'c.pdf', 'd.pdf', 'e.pdf', 'f.pdf']);
    expect(splitFilings(new Map([...counts].reverse()), 's')).toEqual(one);
  });

  it('balances the questions: the two splits differ by at most the largest filing', () => {
    for (const seed of ['s', 't', RECALL_SPLIT_SEED]) {
      const split = splitFilings(counts, seed);
      const held = { dev: 0, test: 0 };
      for (const [file, s] of split) held[s] += counts.get(file) as number;
      expect(held.dev + held.test).toBe(20);
      expect(Math.abs(held.dev - held.test)).toBeLessThanOrEqual(7);
      expect(held.dev).toBeGreaterThan(0);
      expect(held.test).toBeGreaterThan(0);
    }
  });

  it('another seed makes another split', () => {
    const seeds = ['s', 't', 'u', 'v', RECALL_SPLIT_SEED].map((s) =>
      JSON.stringify([...splitFilings(counts, s)]),
    );
    expect(new Set(seeds).size).toBeGreaterThan(1);
  });
});

describe('pagesPrinting', () => {
  const pages = [
    { page: 1, text: 'Revenue 23,410 19,186' },
    { page: 2, text: 'Revenue 123,410 and 23,410.5 and 23,4100' },
    { page: 3, text: 'Total (23,410)' },
  ];
  it('finds a figure printed as a whole number, not inside a longer one', () => {
    expect(pagesPrinting('23,410', pages)).toEqual([1, 3]);
    expect(pagesPrinting('19,186', pages)).toEqual([1]);
    expect(pagesPrinting('3,410', pages)).toEqual([]);
  });
});

describe('financeBenchRecallSet', () => {
  it('keeps the questions of staged filings, with 1-based pages of their own document', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-recall-'));
    const file = join(dir, 'fb.jsonl');
    const q = (id: string, doc: string, pages: number[]) =>
      JSON.stringify({
        financebench_id: id,
        company: 'X',
        doc_name: doc,
        question: `question ${id}?`,
        answer: '1',
        evidence: pages.map((p) => ({ evidence_text: 't', doc_name: doc, evidence_page_num: p })),
      });
    await writeFile(file, `${[q('1', 'ACME_2022_10K', [0, 4]), q('2', 'OTHER_2021_10K', [3])].join('\n')}\n`);
    const set = await financeBenchRecallSet(file, ['ACME_2022_10K.pdf']);
    expect(set).toEqual([
      {
        set: 'financebench',
        id: '1',
        question: 'question 1?',
        company: 'acme-2022-10k',
        source: 'ACME_2022_10K.pdf',
        goldPages: [1, 5],
        split: 'dev',
      },
    ]);
  });
});

describe.skipIf(!sharedCorpus)(`the recorded split (${SHARED_ABSENT} when absent)`, () => {
  it('is the one the seed gives for FinanceBench', async () => {
    const fb = join(sharedCorpus ?? '', 'financebench');
    const staged = readdirSync(join(fb, 'pdfs')).filter((f) => f.endsWith('.pdf'));
    const questions = await financeBenchRecallSet(join(fb, 'financebench_open_source.jsonl'), staged);
    expect(questions).toHaveLength(45);
    expect(recorded.seed).toBe(RECALL_SPLIT_SEED);
    expect(recordSplit(questions).sets.financebench).toEqual(recorded.sets.financebench);
    const dev = questions.filter((x) => x.split === 'dev').length;
    expect([dev, questions.length - dev]).toEqual([23, 22]);
  });

  it('is the one the seed gives for the ERC questions (gold pages located from the figures)', async () => {
    const erc = join(sharedCorpus ?? '', 'erc_round1');
    const pages = {
      '85fb23ba2910de45e27f8f40170c0f3576043916.pdf': [{ page: 100, text: 'Intangible assets 3,770.6' }],
      'ac9aa244462c80705c3ff046542c02c459989742.pdf': [
        { page: 40, text: 'Revenue 23,410 and operating profit 33,970 on 19,186' },
      ],
      '43437bccca01aeae222ec7cc706ba3eaf50be2d7.pdf': [{ page: 15, text: 'Total assets 5,118,490' }],
    } as Record<string, { page: number; text: string }[]>;
    const set = await ercRecallSet(erc, async (f) => pages[f] ?? [], Object.keys(pages));
    expect(set.unlocated).toEqual([]);
    expect(set.questions.map((q) => [q.id, q.goldPages])).toEqual([
      ['erc-026', [100]],
      ['erc-030', [40]],
      ['erc-033', [15]],
      ['erc-037', [40]],
    ]);
    expect(recordSplit(set.questions).sets.erc).toEqual(recorded.sets.erc);
  });
});
