/**
 * numbersTraced with the question's recorded arithmetic (issue 51): a figure the answer computes is
 * traced when it is the question's derivation over figures the retrieved chunks print, at the printed
 * precision, even when the answer does not restate the operands; wrong arithmetic or an operand no
 * chunk prints stays untraced. Claim faithfulness and runChecks read the same rule.
 */
import { describe, expect, it } from 'vitest';
import { claimFaithfulness, numbersTraced, runChecks } from '../../src/checks/index.ts';
import type { NumericGold } from '../../src/questions/schema.ts';
import { CHUNKS, HIGHLIGHTS, ITC, question, SEGMENTS } from './world.ts';

/** Reliance's consolidated revenue less ITC's (both in the fixture highlights). */
const DIFFERENCE: NumericGold = {
  label: 'revenue difference',
  value: 837631.51,
  unit: 'INR crore',
  tolerance: 0.01,
  derivation: {
    op: 'difference',
    operands: [
      { label: 'revenue FY24, Reliance', value: 914472, unit: 'INR crore' },
      { label: 'revenue FY24, ITC', value: 76840.49, unit: 'INR crore' },
    ],
  },
};
/** ITC's net margin: profit over revenue, in per cent. */
const MARGIN: NumericGold = {
  label: 'net profit margin',
  value: (20751.36 / 76840.49) * 100,
  unit: '%',
  tolerance: 0.02,
  derivation: {
    op: 'ratio',
    operands: [
      { label: 'profit FY24, ITC', value: 20751.36, unit: 'INR crore' },
      { label: 'revenue FY24, ITC', value: 76840.49, unit: 'INR crore' },
    ],
  },
};
const CITED = `[${HIGHLIGHTS.id}] [${ITC.id}]`;

describe('numbersTraced: a figure computed by the question recorded derivation', () => {
  it('is traced as derived from the chunks that print its operands, without restating them', () => {
    const answer = `Reliance Industries Limited, by Rs 8,37,631.51 crore ${CITED}.`;
    expect(numbersTraced(answer, CHUNKS).passed).toBe(false); // no recorded arithmetic: untraced
    const r = numbersTraced(answer, CHUNKS, [DIFFERENCE]);
    expect(r.passed).toBe(true);
    expect(r.detail).toBe(
      '1/1 figures traced to the retrieved chunks; derived: Rs 8,37,631.51 crore = Rs 9,14,472.00 crore - Rs 76,840.49 crore',
    );
    expect(numbersTraced('The net margin was 27.0%.', CHUNKS, [MARGIN]).passed).toBe(true);
  });

  it('wrong arithmetic, another operation, or an operand no chunk prints: untraced', () => {
    expect(numbersTraced('Reliance, by Rs 8,37,613.51 crore.', CHUNKS, [DIFFERENCE]).passed).toBe(false);
    expect(numbersTraced('The net margin was 27.3%.', CHUNKS, [MARGIN]).passed).toBe(false);
    expect(
      numbersTraced('Together, Rs 9,91,312.49 crore.', CHUNKS, [DIFFERENCE]).passed, // the sum
    ).toBe(false);
    const r = numbersTraced('Reliance, by Rs 8,37,631.51 crore.', [HIGHLIGHTS, SEGMENTS], [DIFFERENCE]);
    expect(r.passed).toBe(false);
    expect(r.detail).toContain('not found: Rs 8,37,631.51 crore');
  });

  it('runChecks and claim faithfulness take the arithmetic from the question', () => {
    const q = question({
      id: 'gm-900',
      category: 'grounded-multihop',
      gold_answer: 'Reliance Industries Limited, by Rs 8,37,631.51 crore.',
      must_include: [],
      must_not_include: [],
      numeric_gold: [DIFFERENCE],
    });
    const answer = `Reliance Industries Limited had the higher revenue, by Rs 8,37,631.51 crore ${CITED}.`;
    const checks = runChecks({ question: q, answer, chunks: CHUNKS, latencyMs: 1, latencyBudgetMs: 1000 });
    expect(checks.numbersTraced.passed).toBe(true);
    expect(claimFaithfulness(answer, CHUNKS).score).toBe(0);
    expect(checks.claimFaithfulness).toMatchObject({ supported: 1, total: 1 });
  });
});
