/**
 * A user's own golden set (issue 37), `rge questions import --format golden`: the fixture set in CSV
 * and in JSONL (fixtures/golden/) gives the same questions, which rge's validator accepts; every bad
 * input (test/questions/golden/) gives its message at file:line and field, all rows in one pass, and
 * nothing is written; gold quotes are found in a text document whatever their case and hyphenation,
 * and in the fixture world's PDFs on the pages the rows name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseGoldFigure } from '../../src/questions/golden-question.ts';
import { goldenField, headerKey } from '../../src/questions/golden-rows.ts';
import {
  type GoldenImport,
  importGolden,
  parseQuestionLines,
  Question,
  type QuestionInput,
  validateQuestions,
} from '../../src/questions/index.ts';
import { formatIssues } from '../../src/util/jsonl.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { rgeQuestions } from './cli-helpers.ts';

const BAD = fileURLToPath(new URL('./golden/', import.meta.url));
const DOCUMENTS = join(BAD, 'documents');
const FIXTURES = fileURLToPath(new URL('../../fixtures/golden/', import.meta.url));
const kindOf = (name: string) => (name.endsWith('.csv') ? 'csv' : 'jsonl');
const fileIn = (dir: string, name: string) => ({ text: readFileSync(join(dir, name), 'utf8'), name });

/** The questions of a good import (failing the test with the issues otherwise). */
function questionsOf(r: GoldenImport): Question[] {
  if (!r.ok) throw new Error(formatIssues('golden', r.issues));
  return r.questions;
}

/** The lines `rge questions import` prints for a bad golden file. */
async function problems(name: string, documents: string | null = DOCUMENTS): Promise<string[]> {
  const r = await importGolden(fileIn(BAD, name), kindOf(name), documents);
  if (r.ok) throw new Error(`${name} imported`);
  return formatIssues(name, r.issues).split('\n');
}

const scratch = scratchDirs('rge-golden-');

describe('reading a golden set', () => {
  it('reads column names loosely, and no name it does not know', () => {
    expect(headerKey('Expected behaviour')).toBe('expected_behavior');
    expect(goldenField(' Gold-Quotes ')).toBe('gold_quotes');
    expect(goldenField('Answer')).toBe('gold_answer');
    expect(goldenField('FY')).toBe('fiscal_years');
    expect(goldenField('colour')).toBeUndefined();
  });

  it('gives the same questions from the CSV and the JSONL of one set, refusals included', async () => {
    const csv = questionsOf(await importGolden(fileIn(FIXTURES, 'golden.csv'), 'csv', null));
    const jsonl = questionsOf(await importGolden(fileIn(FIXTURES, 'golden.jsonl'), 'jsonl', null));
    expect(jsonl).toEqual(csv);
    expect(csv).toHaveLength(12);
    expect(csv.map((q) => q.category)).toEqual([
      ...Array(6).fill('grounded-direct'),
      'grounded-multihop',
      'grounded-multihop',
      'adversarial',
      'adversarial',
      'out-of-domain',
      'out-of-domain',
    ]);
    expect(csv.filter((q) => q.expected_behavior === 'refuse').map((q) => q.id)).toEqual([
      expect.stringMatching(/^g-\d{8}$/),
      'q-12',
    ]);
  });

  it('writes questions that rge questions validate accepts, and nothing on error', async () => {
    const dir = scratch();
    await mkdir(dir, { recursive: true });
    const out = join(dir, 'golden.jsonl');
    const r = await rgeQuestions(
      dir,
      'questions',
      'import',
      '--file',
      join(FIXTURES, 'golden.csv'),
      '--format',
      'golden',
      '--out',
      out,
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('golden: 12 questions imported to golden.jsonl');
    expect(r.out).toContain(
      'gold quotes: 11 not checked (no --documents: give the folder of the documents the rows name to check them), 1 kept as given',
    );
    const report = validateQuestions(parseQuestionLines(await readFile(out, 'utf8')), { chunks: null });
    expect(report.issues).toEqual([]);
    expect(report.total).toBe(12);
    const validated = await rgeQuestions(dir, 'questions', 'validate', '--questions', out);
    expect(validated.out).toContain('ok: no errors');
    expect(validated.code).toBe(0);

    const bad = await rgeQuestions(
      dir,
      'questions',
      'import',
      join(BAD, 'several.jsonl'),
      '--format',
      'golden',
      '--out',
      join(dir, 'bad.jsonl'),
    );
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('11 error(s)');
    expect(bad.err.split('\n').filter((l) => l.startsWith('rge: '))).toHaveLength(1);
    expect(existsSync(join(dir, 'bad.jsonl'))).toBe(false);
  });

  it('with --documents says the quotes were found there, not "unresolved (no --documents)" (issue 53)', async () => {
    const dir = scratch();
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'found.csv'),
      'id,question,expected_behavior,gold_answer,gold_quotes,source\n' +
        'q-1,What was revenue in FY24?,answer,"Rs 4,512 crore","rose to Rs 4,512 crore in FY24",acme-annual-report.md\n' +
        'q-2,What dividend?,answer,Rs 3.50 per share,,\n',
    );
    const r = await rgeQuestions(
      dir,
      'questions',
      'import',
      'found.csv',
      '--format',
      'golden',
      '--documents',
      DOCUMENTS,
      '--out',
      'found.jsonl',
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `gold quotes: 1 found in their documents in ${DOCUMENTS}, 0 kept as given (the row names no document)`,
    );
    expect(r.out).not.toMatch(/no --documents/);
  });

  it('derives ids from the question text, stably, and reads given ids as rge ids', async () => {
    const csv = (rows: string) => ({ text: `id,question,expected_behavior\n${rows}`, name: 'ids.csv' });
    const a = questionsOf(await importGolden(csv(',How big?,refuse\n,How old?,refuse\n'), 'csv', null));
    const b = questionsOf(await importGolden(csv(',How   OLD?,refuse\nQ07,How big?,refuse\n'), 'csv', null));
    expect(b[0]?.id).toBe(a[1]?.id); // reordered, respaced, recased: the same id
    expect(b[1]).toMatchObject({ id: 'q-07', source: { dataset: 'golden', ref: 'Q07' } });
    const c = questionsOf(await importGolden(csv('faq_12,x?,refuse\nA-3,y?,refuse\n'), 'csv', null));
    expect(c.map((q) => q.id)).toEqual(['faq-12', 'a-3']);
    const bad = await importGolden(csv('faq#3,x?,refuse\nq-1,"y?",refuse,extra\n'), 'csv', null);
    expect(bad.ok ? [] : formatIssues('ids.csv', bad.issues).split('\n')).toEqual([
      'ids.csv:2: id: "faq#3" cannot be an rge id: letters, then a number (q-001; Q01 and q_1 are read as q-01 and q-1); leave it empty to have one derived',
      'ids.csv:3: 4 field(s), but the header names 3 column(s)',
    ]);
  });

  it('derives the category from the expected behaviour, and keeps a given one', async () => {
    const text =
      'question,behaviour,answer,category\na?,answer,x,\nb?,caveat,y,\nc?,decline,,\nd?,answer,z,Multi hop\n';
    const qs = questionsOf(await importGolden({ text, name: 'c.csv' }, 'csv', null));
    expect(qs.map((q) => [q.expected_behavior, q.category])).toEqual([
      ['answer', 'grounded-direct'],
      ['answer-with-caveat', 'grounded-direct'],
      ['refuse', 'out-of-domain'],
      ['answer', 'grounded-multihop'],
    ]);
    expect(qs[2]?.gold_answer).toBe('Not answerable from the documents: a good answer declines.');
  });

  it('reads numeric gold from a gold answer that is one figure with a unit, or takes the given one', async () => {
    expect(parseGoldFigure('Rs 7,959.98 crore')).toEqual({ value: 7959.98, unit: 'INR crore' });
    expect(parseGoldFigure('Rs 2.5 lakh crore')).toEqual({ value: 250000, unit: 'INR crore' });
    expect(parseGoldFigure('$1.2 billion')).toEqual({ value: 1200, unit: 'USD million' });
    expect(parseGoldFigure('12.5%')).toEqual({ value: 12.5, unit: '%' });
    expect(parseGoldFigure('Rs 3.50 per share')).toEqual({ value: 3.5, unit: 'INR per share' });
    expect(parseGoldFigure('5,87,11,930 tCO2e')).toEqual({ value: 58711930, unit: 'tCO2e' });
    for (const none of ['4,208', 'Rs 0.41', 'About Rs 10 crore', 'Rs 5 crore and Rs 6 crore'])
      expect(parseGoldFigure(none)).toBeNull();
    const qs = questionsOf(await importGolden(fileIn(FIXTURES, 'golden.csv'), 'csv', null));
    expect(qs.find((q) => q.id === 'q-04')?.numeric_gold).toEqual([
      { label: 'gold answer', value: 4208, unit: 'count', tolerance: 0.01 },
    ]);
    expect(qs.find((q) => q.id === 'q-06')?.numeric_gold).toEqual([
      { label: 'gold answer', value: 7959.98, unit: 'INR crore', tolerance: 0.01 },
    ]);
  });

  it('without documents keeps the quotes as given: unresolved, on the page the row names', async () => {
    const qs = questionsOf(await importGolden(fileIn(FIXTURES, 'golden.csv'), 'csv', null));
    expect(qs[0]?.gold_quote_locations).toEqual([
      { document: 'hdfc-bank-FY23-annual-report.pdf', page: 10, resolved: false },
    ]);
    expect(qs[1]?.gold_quote_locations).toEqual([
      { document: 'bharti-airtel-FY23-annual-report.pdf', page: null, resolved: false },
    ]);
    expect(qs.find((q) => q.id === 'q-04')?.gold_quote_locations).toBeUndefined(); // no document named
  });
});

describe('bad input: every bad row at file:line, with its field', () => {
  it.each([
    [
      'missing-header.csv',
      [
        'missing-header.csv:1: no header row: the first row must name the columns (question, expected_behavior, gold_answer, gold_quotes, ...), and it names neither question nor expected_behavior',
      ],
    ],
    [
      'unknown-header.csv',
      [
        'unknown-header.csv:1: colour: unknown column (rge reads: id, question, expected_behavior, gold_answer, gold_quotes, must_include, must_not_include, notes, category, source, page, companies, fiscal_years, difficulty, numeric_value, numeric_unit, numeric_label, tolerance, distractor, distractor_kind)',
      ],
    ],
    [
      'missing-field.csv',
      [
        'missing-field.csv:3: question: missing: every row asks a question',
        'missing-field.csv:4: gold_answer: missing: a question to answer needs its gold answer',
      ],
    ],
    [
      'bad-behaviour.csv',
      [
        'bad-behaviour.csv:2: expected_behavior: "maybe" is not an expected behaviour: answer, answer-with-caveat or refuse (also answerable, caveat, refusal, abstain, decline, unanswerable)',
      ],
    ],
    [
      'quote-not-in-document.csv',
      [
        'quote-not-in-document.csv:3: gold_quotes.0: quote "The Board has recommended a final dividend of Rs 5.75 per..." is not in acme-annual-report.md (overlap 0.63)',
      ],
    ],
    [
      'unterminated.csv',
      ['unterminated.csv:3: unterminated quoted field: the quote opened on this line is never closed'],
    ],
    [
      'duplicate-id.jsonl',
      [
        'duplicate-id.jsonl:2: id: duplicate id q-1 (first at line 1)',
        'duplicate-id.jsonl:4: id: duplicate id g-22304460 (first at line 3): derived from the same question text',
      ],
    ],
    [
      'several.jsonl',
      [
        'several.jsonl:1: category: "trivia" is not a category: grounded-direct, grounded-multihop, adversarial or out-of-domain (also direct, multihop, ood); leave it empty to derive it from the expected behaviour',
        `several.jsonl:2: invalid JSON (Unexpected token 'o', "not json" is not valid JSON)`,
        'several.jsonl:3: category: adversarial, but the question is expected to be refused: refusals are out-of-domain',
        'several.jsonl:3: gold_quotes: a question to refuse has no gold quotes: its answer is not in the documents',
        'several.jsonl:4: distractor_kind: "wrong-kind" is not a distractor kind: one of consolidated-vs-standalone, other-fiscal-year, quarter-vs-full-year, interim-vs-final-dividend, parent-vs-subsidiary, unit-or-period-near-duplicate, other-company-same-page',
        'several.jsonl:4: distractor: missing: an adversarial question says what its trap is and why a careless answer falls in',
        'several.jsonl:4: page: a page needs the source document it is a page of',
        'several.jsonl:5: colour: unknown field (rge reads: id, question, expected_behavior, gold_answer, gold_quotes, must_include, must_not_include, notes, category, source, page, companies, fiscal_years, difficulty, numeric_value, numeric_unit, numeric_label, tolerance, distractor, distractor_kind)',
        'several.jsonl:5: numeric_value: "lots" is not a number',
        'several.jsonl:5: numeric_unit: "parsecs" is not a unit rge compares: one of INR crore, INR per share, %, tCO2e, count, USD million, text',
        'several.jsonl:6: fiscal_years.0: fiscal year must look like FY24',
      ],
    ],
  ])('%s', async (name, expected) => {
    expect(await problems(name)).toEqual(expected);
  });

  it.each([
    ['empty.csv', 'empty.csv: no questions: the file is empty (or holds only blank lines)'],
    ['header-only.csv', 'header-only.csv: no questions: the file has its header row and no row under it'],
  ])('%s: no questions, said of the file', async (name, message) => {
    await expect(importGolden(fileIn(BAD, name), 'csv', null)).rejects.toThrow(message);
  });

  it('reads a text document case-, space- and hyphenation-blind (the first row of quote-not-in-document.csv)', async () => {
    const text = readFileSync(join(BAD, 'quote-not-in-document.csv'), 'utf8')
      .split('\n')
      .slice(0, 2)
      .join('\n');
    const [q] = questionsOf(await importGolden({ text, name: 'q.csv' }, 'csv', DOCUMENTS));
    expect(q?.gold_quote_locations).toEqual([
      { document: 'acme-annual-report.md', page: null, resolved: true },
    ]);
  });

  it('names a document that is not there, not readable or given a page it cannot have', async () => {
    const text =
      'question,expected_behavior,gold_answer,gold_quotes,source,page\n' +
      'a?,answer,x,some quote,nope.pdf,\nb?,answer,x,some quote,../golden.test.ts,\n' +
      'c?,answer,x,some quote,acme-annual-report.md,2\nd?,answer,x,some quote,notes.docx,\n';
    const r = await importGolden({ text, name: 'docs.csv' }, 'csv', DOCUMENTS);
    expect(r.ok ? [] : formatIssues('docs.csv', r.issues).split('\n')).toEqual([
      'docs.csv:2: source: no document nope.pdf in the documents folder',
      'docs.csv:3: source: ../golden.test.ts is not a file inside the documents folder',
      'docs.csv:4: page: acme-annual-report.md is a text file, which has no pages',
      'docs.csv:5: source: notes.docx is not a PDF or a text file (.pdf, .txt, .md, .markdown, .text)',
    ]);
  });

  it('usage: a file rge cannot tell CSV from JSONL, a missing file or folder, mixed flags (exit 2)', async () => {
    const dir = scratch();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'set.txt'), 'question,expected_behavior\na?,refuse\n');
    const run = (...args: string[]) => rgeQuestions(dir, 'questions', 'import', ...args);
    const cases: [string[], string][] = [
      [
        ['set.txt', '--format', 'golden'],
        'rge: set.txt: cannot tell CSV from JSONL by the name (.csv, .jsonl): pass --format golden-csv or golden-jsonl',
      ],
      [['nope.csv', '--format', 'golden'], 'rge: nope.csv: file not found'],
      [['set.txt', '--format', 'golden-csv', '--documents', 'nope'], 'rge: --documents nope: no such folder'],
      [
        ['set.txt', '--format', 'golden-csv', '--index', 'index'],
        'rge: --index is for financebench and erc; a golden set checks its gold quotes in --documents',
      ],
      [
        ['set.txt', '--file', 'other.csv', '--format', 'golden'],
        'rge: two files to import: set.txt and --file other.csv; give one',
      ],
      [['--format', 'golden'], 'rge: no file to import: give it as the argument or with --file FILE'],
      [
        ['set.txt', '--format', 'financebench'],
        'rge: --format financebench needs --index DIR, the built index holding its documents',
      ],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args);
      expect(r.err.trim(), args.join(' ')).toBe(message);
      expect(r.code).toBe(2);
    }
    const forced = await run('set.txt', '--format', 'golden-csv', '--out', 'out.jsonl');
    expect(forced.code).toBe(0);
  });
});

describe('gold quotes in the fixture world PDFs', () => {
  let pdfs = '';
  beforeAll(async () => {
    await worldOverrides();
    pdfs = worldPaths().pdfs;
  });

  it('finds every quote on the page it is printed on, and on the page the row names', async () => {
    const qs = questionsOf(await importGolden(fileIn(FIXTURES, 'golden.csv'), 'csv', pdfs));
    const pages = Object.fromEntries(
      qs.map((q) => [q.id, q.gold_quote_locations?.map((l) => `${l.document}:${l.page}:${l.resolved}`)]),
    );
    expect(pages).toEqual({
      'q-01': ['hdfc-bank-FY23-annual-report.pdf:10:true'],
      [qs[1]?.id as string]: ['bharti-airtel-FY23-annual-report.pdf:10:true'], // no page given: found
      'q-03': ['reliance-FY23-annual-report.pdf:8:true'],
      'q-04': undefined,
      'q-05': ['zomato-FY24-annual-report.pdf:3:true'],
      'q-06': ['paytm-FY23-annual-report.pdf:3:true'], // over a line break of the PDF
      'q-07': ['reliance-FY23-annual-report.pdf:8:true', 'reliance-FY23-annual-report.pdf:8:true'],
      'q-08': ['bharti-airtel-FY24-annual-report.pdf:6:true', 'bharti-airtel-FY24-annual-report.pdf:6:true'],
      'q-09': ['adani-ports-FY24-annual-report.pdf:8:true'],
      'q-10': ['hdfc-bank-FY23-annual-report.pdf:3:true'],
      [qs[10]?.id as string]: undefined,
      'q-12': undefined,
    });
    const jsonl = questionsOf(await importGolden(fileIn(FIXTURES, 'golden.jsonl'), 'jsonl', pdfs));
    expect(jsonl).toEqual(qs);
  });

  it('names a quote on another page than the row says, and one the document does not print', async () => {
    const text = readFileSync(join(FIXTURES, 'golden.csv'), 'utf8')
      .replace(
        'reliance-FY23-annual-report.pdf,8,"5,87,11,930"',
        'reliance-FY23-annual-report.pdf,7,"5,87,11,930"',
      )
      .replace(
        '"Consolidated revenue from operations for FY23 was Rs 7,959.98 crore"',
        '"Consolidated revenue from operations for FY23 was Rs 7,959.89 crore"',
      );
    const r = await importGolden({ text, name: 'golden.csv' }, 'csv', pdfs);
    expect(r.ok ? [] : formatIssues('golden.csv', r.issues).split('\n')).toEqual([
      'golden.csv:4: gold_quotes.0: quote "Scope 1 and 2 greenhouse gas emissions in FY23 were 5,87,..." is not on page 7 of reliance-FY23-annual-report.pdf: it is on page 8 (pages count from 1, the PDF\'s first)',
      expect.stringMatching(
        /^golden\.csv:7: gold_quotes\.0: quote "Consolidated revenue from operations for FY23 was Rs 7,95\.\.\." is not in paytm-FY23-annual-report\.pdf \(closest: page 3, overlap 0\.\d\d\)$/,
      ),
    ]);
  });
});

describe('Question schema: a golden set', () => {
  const golden: QuestionInput = {
    version: 1,
    id: 'q-1',
    category: 'grounded-direct',
    text: 'What was Acme revenue in FY24?',
    gold_answer: 'Rs 4,512 crore',
    gold_chunk_ids: [],
    gold_quotes: ['Revenue rose to Rs 4,512 crore'],
    expected_behavior: 'answer',
    companies: [],
    fiscal_years: [],
    difficulty: 'medium',
    authoring_notes: '',
    must_include: [],
    must_not_include: [],
    numeric_gold: [],
    distractor: null,
    source: { dataset: 'golden', ref: 'Q1' },
    gold_quote_locations: [{ document: 'acme.pdf', page: 3, resolved: true }],
  };
  const problemsOf = (q: unknown) =>
    Question.safeParse(q).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

  it('needs no gold chunk, quote or company: the gold is in the user documents', () => {
    expect(problemsOf(golden)).toEqual([]);
    expect(problemsOf({ ...golden, gold_quotes: [], gold_quote_locations: undefined })).toEqual([]);
    expect(problemsOf({ ...golden, source: { dataset: 'erc', ref: '1' } })).toEqual([
      'gold_chunk_ids: grounded-direct needs at least one gold chunk id',
      'companies: grounded-direct needs at least one company',
    ]);
  });

  it('has one location per gold quote', () => {
    expect(problemsOf({ ...golden, gold_quotes: ['a', 'b'] })).toEqual([
      'gold_quote_locations: 1 location(s) for 2 gold quote(s): one per quote',
    ]);
  });
});
