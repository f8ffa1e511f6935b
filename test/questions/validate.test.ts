import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { chunkerId, EXTRACTOR_VERSION } from '../../src/corpus/version.ts';
import { Question, type QuestionInput } from '../../src/questions/schema.ts';
import { buildIndex } from '../../src/retrieval/index.ts';
import { chunk, rgeQuestions } from './cli-helpers.ts';

const hdfc24 = chunk(
  'hdfc-bank',
  'FY24',
  [12, 12],
  'Net profit for the year rose to ₹60,812 crore,\nup 37.9% from the previous year.',
);
const hdfc23 = chunk('hdfc-bank', 'FY23', [10, 11], 'Net profit for the year was ₹44,109 crore.');
const itc24 = chunk(
  'itc',
  'FY24',
  [40, 40],
  'Standalone revenue from operations: ₹70,919 crore. Consolidated revenue: ₹76,841 crore.',
);

function question(over: Partial<QuestionInput> & { id: string }): QuestionInput {
  return {
    version: 1,
    category: 'grounded-direct',
    text: 'What was HDFC Bank net profit in FY24?',
    gold_answer: '₹60,812 crore',
    gold_chunk_ids: [hdfc24.id],
    gold_quotes: ['rose to ₹60,812 crore, up 37.9%'],
    expected_behavior: 'answer',
    companies: ['hdfc-bank'],
    fiscal_years: ['FY24'],
    difficulty: 'easy',
    authoring_notes: 'test',
    must_include: ['60,812'],
    must_not_include: ['44,109'],
    numeric_gold: [{ label: 'net profit FY24', value: 60812, unit: 'INR crore' }],
    distractor: null,
    ...over,
  };
}

const GOOD: QuestionInput[] = [
  question({ id: 'gd-001' }),
  question({
    id: 'gm-001',
    category: 'grounded-multihop',
    text: 'By how much did HDFC Bank net profit grow from FY23 to FY24?',
    gold_answer: '₹16,703 crore',
    gold_chunk_ids: [hdfc24.id, hdfc23.id],
    // whitespace differs from the chunk text (a line break there): still found
    gold_quotes: ['₹60,812   crore, up 37.9%', 'Net profit for the year was ₹44,109 crore.'],
    fiscal_years: ['FY23', 'FY24'],
    difficulty: 'medium',
  }),
  question({
    id: 'adv-001',
    category: 'adversarial',
    text: 'What was ITC standalone revenue in FY24?',
    gold_answer: '₹70,919 crore',
    gold_chunk_ids: [itc24.id],
    gold_quotes: ['Standalone revenue from operations: ₹70,919 crore.'],
    expected_behavior: 'answer-with-caveat',
    companies: ['itc'],
    distractor: {
      kind: 'consolidated-vs-standalone',
      description: 'the consolidated figure sits beside it',
      value: 76841,
    },
  }),
  question({
    id: 'ood-001',
    category: 'out-of-domain',
    text: 'What was HDFC Bank net profit in FY19?',
    gold_answer: 'The corpus covers FY23 and FY24 only.',
    gold_chunk_ids: [],
    gold_quotes: [],
    expected_behavior: 'refuse',
    fiscal_years: ['FY19'],
    numeric_gold: [],
  }),
];

const line = (q: unknown) => JSON.stringify(q);

/** One line per kind of error; the comments give the 1-based line. */
const BROKEN = [
  line(question({ id: 'gd-001' })), // 1: good
  '{"version": 1, "id": "gd-002",', // 2: invalid JSON
  line(question({ id: 'gd-003', category: 'grounded' as never })), // 3: unknown category
  line(question({ id: 'gd-001' })), // 4: duplicate id
  line(question({ id: 'gd-005', version: 2 as never })), // 5: version differs
  line(question({ id: 'gd-006', gold_chunk_ids: ['hdfc-bank-FY24-deadbeef'] })), // 6: unknown chunk
  line(question({ id: 'gd-007', gold_quotes: ['net profit for the year rose'] })), // 7: quote case differs
  line(question({ id: 'ood-008', category: 'out-of-domain', expected_behavior: 'refuse' })), // 8: ood with gold ids
  line(question({ id: 'adv-009', category: 'adversarial' })), // 9: adversarial without distractor
  line(question({ id: 'gd-010', gold_quotes: [] })), // 10: no gold quote
  '', // 11: blank, skipped
  line({ ...question({ id: 'gd-012' }), text: undefined }), // 12: missing text
  line(question({ id: 'gd-013', numeric_gold: [{ label: 'x', value: 1, unit: 'USD' as never }] })), // 13: bad unit
].join('\n');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rge-questions-'));
  // built as the config below asks (bm25, 800/100, auto tables), so the run config's index is used as is
  await buildIndex([hdfc24, hdfc23, itc24], {
    dir: join(dir, 'index'),
    embedder: 'bm25',
    provenance: {
      chunking: { chunkTokens: 800, overlapTokens: 100, chunker: chunkerId() },
      extraction: { extractor: `rge-extract@${EXTRACTOR_VERSION}`, tables: 'auto' },
      documents: [],
    },
  });
  await writeFile(join(dir, 'good.jsonl'), `${GOOD.map(line).join('\n')}\n`);
  await writeFile(join(dir, 'broken.jsonl'), `${BROKEN}\n`);
  // the repository's fixture config, pointed at this test's index and questions, expecting version 2
  const config = parseYaml(await readFile(new URL('../../configs/fixture.yaml', import.meta.url), 'utf8'));
  config.corpus.index = 'index';
  config.corpus.embedder = 'bm25';
  config.questions = { file: 'good.jsonl', version: 2 };
  await writeFile(join(dir, 'run.yaml'), stringifyYaml(config));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Question schema', () => {
  it('accepts each category and fills the default tolerance', () => {
    for (const q of GOOD) expect(Question.safeParse(q).success).toBe(true);
    expect(Question.parse(GOOD[0]).numeric_gold[0]?.tolerance).toBe(0.01);
  });

  it('rejects a distractor on a non-adversarial question and ood that does not refuse', () => {
    const r = Question.safeParse(
      question({
        id: 'gd-001',
        category: 'out-of-domain',
        gold_chunk_ids: [],
        distractor: { kind: 'other-fiscal-year', description: 'd' },
      }),
    );
    expect(r.success).toBe(false);
    const fields = r.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(fields).toEqual([
      "expected_behavior: out-of-domain questions must expect 'refuse'",
      'distractor: only adversarial questions have a distractor (use null)',
    ]);
  });
});

describe('Question schema: absent_facts', () => {
  it('lists the key facts an out-of-domain question asks about, and only there', () => {
    const ood = GOOD[3] as QuestionInput;
    expect(Question.safeParse({ ...ood, absent_facts: ['FY19 net profit'] }).success).toBe(true);
    const r = Question.safeParse({ ...GOOD[0], absent_facts: ['x'] });
    expect(r.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'absent_facts: only out-of-domain questions list absent facts',
    ]);
  });
});

describe('rge questions validate', () => {
  it('passes a good file over the index and prints the counts per category', async () => {
    const r = await rgeQuestions(
      dir,
      'questions',
      'validate',
      '--questions',
      'good.jsonl',
      '--index',
      'index',
    );
    expect(r.err).toBe('');
    expect(r.out).toBe(
      'grounded-direct 1, grounded-multihop 1, adversarial 1, out-of-domain 1; valid 4, invalid 0, total 4\nok: no errors\n',
    );
    expect(r.code).toBe(0);
  });

  it('reports every error of a broken file in one pass, each with file:line and field', async () => {
    const r = await rgeQuestions(
      dir,
      'questions',
      'validate',
      '--questions',
      'broken.jsonl',
      '--index',
      'index',
    );
    expect(r.code).toBe(1);
    const lines = r.out.trimEnd().split('\n');
    // only line 1 is valid: the categories count the valid questions (issue 53: "total 12" read as 12 good)
    expect(lines[0]).toBe(
      'grounded-direct 1, grounded-multihop 0, adversarial 0, out-of-domain 0; valid 1, invalid 11, total 12',
    );
    const errors = lines.slice(1, -1);
    expect(errors).toEqual([
      expect.stringMatching(/^broken\.jsonl:2: invalid JSON \(.+\)$/),
      expect.stringMatching(/^broken\.jsonl:3: category: Invalid option: expected one of "grounded-direct"/),
      'broken.jsonl:4: id: duplicate id gd-001 (first at line 1)',
      'broken.jsonl:5: version: version 2 differs from version 1 of line 1',
      'broken.jsonl:6: gold_chunk_ids.0: chunk hdfc-bank-FY24-deadbeef is not in the index',
      'broken.jsonl:7: gold_quotes.0: quote "net profit for the year rose" is not in any of the question\'s gold chunks',
      'broken.jsonl:8: gold_chunk_ids: out-of-domain questions must have no gold chunk ids',
      'broken.jsonl:9: distractor: adversarial questions must name the distractor they plant',
      'broken.jsonl:10: gold_quotes: grounded-direct needs at least one gold quote',
      'broken.jsonl:12: text: Invalid input: expected string, received undefined',
      expect.stringMatching(
        /^broken\.jsonl:13: numeric_gold\.0\.unit: Invalid option: expected one of "INR crore"/,
      ),
    ]);
    expect(lines.at(-1)).toBe('11 error(s)');
  });

  it('says how many lines are valid and invalid: 3 of 6 invalid is not "total 6" (issue 53)', async () => {
    const half = [GOOD[0], GOOD[1], GOOD[3]].map(line);
    const bad = ['{"id": "gd-x",', line({ ...question({ id: 'gd-y' }), text: undefined }), line(GOOD[0])];
    await writeFile(join(dir, 'half.jsonl'), `${[...half, ...bad].join('\n')}\n`);
    const r = await rgeQuestions(
      dir,
      'questions',
      'validate',
      '--questions',
      'half.jsonl',
      '--index',
      'index',
    );
    expect(r.code).toBe(1);
    expect(r.out.split('\n')[0]).toBe(
      'grounded-direct 1, grounded-multihop 1, adversarial 0, out-of-domain 1; valid 3, invalid 3, total 6',
    );
    expect(r.out).toContain('4 error(s)'); // line 5 has two
  });

  it('names --questions and the path when the file is not there (exit 2)', async () => {
    const r = await rgeQuestions(
      dir,
      'questions',
      'validate',
      '--questions',
      'nope.jsonl',
      '--index',
      'index',
    );
    expect(r.code).toBe(2);
    expect(r.err).toBe('rge: --questions nope.jsonl: no such file\n');
  });

  it('takes the questions file, index and expected version from --config', async () => {
    const r = await rgeQuestions(dir, 'questions', 'validate', '--config', 'run.yaml');
    expect(r.code).toBe(1);
    const errors = r.out.trimEnd().split('\n').slice(1, -1);
    expect(errors).toHaveLength(4);
    for (const [i, e] of errors.entries())
      expect(e).toBe(`good.jsonl:${i + 1}: version: version 1 does not match the expected version 2`);
  });

  it('exits 2 on a usage error and 1 when the index is missing', async () => {
    expect((await rgeQuestions(dir, 'questions', 'validate', '--bogus')).code).toBe(2);
    const format = await rgeQuestions(
      dir,
      'questions',
      'import',
      'x.json',
      '--format',
      'squad',
      '--index',
      'index',
    );
    expect(format.code).toBe(2);
    expect(format.err).toMatch(/unknown --format "squad"/);
    const r = await rgeQuestions(
      dir,
      'questions',
      'validate',
      '--questions',
      'good.jsonl',
      '--index',
      'nope',
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is not a built index \(no manifest\.json\)/);
  });
});
