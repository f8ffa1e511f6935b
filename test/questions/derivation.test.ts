/**
 * A numeric gold records how it is computed (`derivation`, issue 51), and the question's validation
 * checks that the operands give the figure: a derivation that does not is an error naming the question.
 * The fixture generator records one for every multihop figure it computes.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { derive } from '../../src/analysis/derivation.ts';
import { parseQuestionLines } from '../../src/questions/load.ts';
import { Question, type QuestionInput } from '../../src/questions/schema.ts';

const GM: QuestionInput = {
  version: 1,
  id: 'gm-900',
  category: 'grounded-multihop',
  text: 'Which company had the higher consolidated revenue from operations in FY24, Reliance Industries Limited or Tata Motors Limited, and by how much?',
  gold_answer: 'Reliance Industries Limited, by Rs 4,76,544.23 crore.',
  gold_chunk_ids: ['reliance-FY24-4fc8a6ad', 'tata-motors-FY24-036d081e'],
  gold_quotes: ['Rs 9,14,472.00 crore', 'Rs 4,37,927.77 crore'],
  expected_behavior: 'answer',
  companies: ['reliance', 'tata-motors'],
  fiscal_years: ['FY24'],
  difficulty: 'hard',
  authoring_notes: 'test',
  must_include: [],
  must_not_include: [],
  numeric_gold: [
    {
      label: 'revenue difference',
      value: 476544.23,
      unit: 'INR crore',
      derivation: {
        op: 'difference',
        operands: [
          { label: 'revenue FY24, Reliance', value: 914472, unit: 'INR crore' },
          { label: 'revenue FY24, Tata Motors', value: 437927.77, unit: 'INR crore' },
        ],
      },
    },
  ],
  distractor: null,
};

type Gold = NonNullable<QuestionInput['numeric_gold']>[number];
const withGold = (over: Partial<Gold>): QuestionInput => ({
  ...GM,
  numeric_gold: [{ ...(GM.numeric_gold[0] as Gold), ...over }],
});
const issues = (q: QuestionInput) =>
  Question.safeParse(q).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe('numeric_gold.derivation', () => {
  it('is optional, and a derivation that gives its figure is accepted as written', () => {
    expect(issues(GM)).toEqual([]);
    expect(Question.parse(GM).numeric_gold[0]?.derivation?.op).toBe('difference');
    expect(issues(withGold({ derivation: undefined }))).toEqual([]);
  });

  it('operands that do not give the figure: an error naming the question, the figure and the arithmetic', () => {
    expect(issues(withGold({ value: 476000 }))).toEqual([]); // within the 1% tolerance
    expect(issues(withGold({ value: 500000 }))).toEqual([
      'numeric_gold.0.derivation: gm-900: numeric_gold "revenue difference": its derivation (difference of 914472, 437927.77) gives 476544.23, not 500000 (tolerance 0.01)',
    ]);
    expect(issues(withGold({ value: 476544.1, tolerance: 0 }))[0]).toMatch(
      /^numeric_gold\.0\.derivation: gm-900: /,
    );
  });

  it('a sum or difference in the figure unit; a ratio or growth of one unit; two operands but for a sum', () => {
    const operands = (GM.numeric_gold[0] as Gold).derivation?.operands ?? [];
    const [a, b] = operands as [Gold, Gold];
    expect(
      issues(withGold({ derivation: { op: 'difference', operands: [a, { ...b, unit: 'USD million' }] } })),
    ).toEqual([
      'numeric_gold.0.derivation: gm-900: numeric_gold "revenue difference": a difference of INR crore, USD million operands cannot give a figure in INR crore',
    ]);
    expect(issues(withGold({ derivation: { op: 'difference', operands: [a, b, b] } }))).toEqual([
      'numeric_gold.0.derivation.operands: a difference takes 2 operands, not 3',
    ]);
    expect(issues(withGold({ derivation: { op: 'sum', operands: [a] } }))[0]).toMatch(
      /^numeric_gold\.0\.derivation\.operands: /,
    );
    const margin = { value: derive('ratio', [a.value, b.value], '%'), unit: '%' as const };
    expect(issues(withGold({ ...margin, derivation: { op: 'ratio', operands: [a, b] } }))).toEqual([]);
    expect(
      issues(withGold({ ...margin, derivation: { op: 'ratio', operands: [a, { ...b, unit: 'count' }] } })),
    ).toEqual([
      'numeric_gold.0.derivation: gm-900: numeric_gold "revenue difference": a ratio needs two operands of one unit, not INR crore and count',
    ]);
    expect(
      issues(withGold({ ...margin, derivation: { op: 'growth', operands: [a, { ...b, value: 0 }] } }))[0],
    ).toBe('numeric_gold.0.derivation.operands.1.value: a growth divides by zero');
  });

  it('is reported by line with the question set, as any schema problem', () => {
    const lines = parseQuestionLines(`${JSON.stringify(GM)}\n${JSON.stringify(withGold({ value: 1 }))}\n`);
    expect(lines[0]?.issues).toEqual([]);
    expect(lines[1]?.issues).toHaveLength(1);
    expect(lines[1]?.issues[0]).toMatchObject({ line: 2, field: 'numeric_gold.0.derivation' });
    expect(lines[1]?.issues[0]?.message).toContain('gm-900');
  });
});

describe('the fixture question set records its arithmetic', () => {
  it('every multihop figure is computed by a recorded derivation that gives it, and nothing else has one', async () => {
    const text = await readFile(new URL('../../fixtures/questions.jsonl', import.meta.url), 'utf8');
    const lines = parseQuestionLines(text);
    expect(lines.flatMap((l) => l.issues)).toEqual([]);
    const questions = lines.map((l) => l.question as Question);
    const multihop = questions.filter((q) => q.category === 'grounded-multihop');
    expect(multihop).toHaveLength(45);
    for (const q of multihop) {
      expect(q.numeric_gold.length, q.id).toBeGreaterThan(0);
      for (const g of q.numeric_gold) {
        const d = g.derivation;
        expect(d, `${q.id} ${g.label}`).toBeDefined();
        if (!d) continue;
        // the operands are figures the gold quotes print, in the order the arithmetic takes them
        expect(
          Math.abs(
            derive(
              d.op,
              d.operands.map((o) => o.value),
              g.unit,
            ) - g.value,
          ),
        ).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(g.value)));
      }
    }
    const templates = new Set(multihop.map((q) => /template (\S+);/.exec(q.authoring_notes)?.[1]));
    expect([...templates].sort()).toEqual([
      'gm-compare-revenue',
      'gm-dividend-total',
      'gm-eps-change',
      'gm-margin',
      'gm-revenue-yoy',
      'gm-segment-sum',
    ]);
    const others = questions.filter((q) => q.category !== 'grounded-multihop');
    expect(others.flatMap((q) => q.numeric_gold.filter((g) => g.derivation !== undefined))).toEqual([]);
  });
});
