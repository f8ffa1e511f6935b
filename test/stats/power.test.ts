/**
 * Power of a clustered mean by hand-computed cases: the variance components of nested cells, the
 * standard error of a design, the minimal detectable difference (2.8016 SE at alpha 0.05 and 80 %
 * power), the power at an effect and the questions a design needs.
 */
import { describe, expect, it } from 'vitest';
import {
  designStandardError,
  minimalDetectableDifference,
  nestedComponents,
  normalQuantile,
  powerAt,
  questionsNeeded,
} from '../../src/stats/index.ts';

const rows = (byQuestion: number[][]) =>
  byQuestion.flatMap((values, q) => values.map((value) => ({ cluster: `q${q}`, value })));

describe('nestedComponents', () => {
  it('balanced: within = pooled run variance, between = spread of question means less within / R', () => {
    // means 2, 3, 7; each question's runs differ by 2 (variance 2); var(means) = 7 -> tau^2 = 7 - 2 / 2
    const c = nestedComponents(
      rows([
        [1, 3],
        [2, 4],
        [6, 8],
      ]),
    );
    expect(c.mean).toBe(4);
    expect(c.withinQuestionVariance).toBe(2);
    expect(c.betweenQuestionVariance).toBe(6);
    expect(c.questions).toBe(3);
    expect(c.runsPerQuestion).toBe(2);
    // balanced: SE^2 = var(question means) / Q = 7 / 3
    expect(c.standardError).toBeCloseTo(Math.sqrt(7 / 3), 15);
    expect(designStandardError({ ...c, questions: 3, runs: 2 })).toBeCloseTo(c.standardError, 15);
  });

  it('floors tau^2 at 0 when the question means vary less than their runs explain (the SE is not floored)', () => {
    const c = nestedComponents(
      rows([
        [0, 1],
        [1, 0],
        [0.5, 0.5],
      ]),
    );
    expect(c.betweenQuestionVariance).toBe(0);
    expect(c.withinQuestionVariance).toBeCloseTo(1 / 3, 15);
    // every question's mean is 0.5: no spread between questions, a standard error of 0
    expect(c.standardError).toBe(0);
  });

  it('unbalanced: the cluster-robust SE^2 = Q / (Q - 1) sum (S_q - m_q mean)^2 / N^2', () => {
    const c = nestedComponents(rows([[1, 3, 2], [5], [4, 6]]));
    const n = 6;
    const mean = 21 / 6;
    const residual = (6 - 3 * mean) ** 2 + (5 - mean) ** 2 + (10 - 2 * mean) ** 2;
    expect(c.standardError).toBeCloseTo(Math.sqrt((1.5 * residual) / n ** 2), 15);
    // pooled within: (1 + 1 + 0 + 1 + 1) / (2 + 1) ... runs around their question means
    expect(c.withinQuestionVariance).toBeCloseTo((1 + 1 + 0 + 1 + 1) / 3, 15);
  });

  it('one run per question: the components cannot be told apart, all variance is between', () => {
    const c = nestedComponents(rows([[1], [2], [4]]));
    expect(c.withinQuestionVariance).toBeNaN();
    expect(c.betweenQuestionVariance).toBeCloseTo(7 / 3, 15);
    expect(c.standardError).toBeCloseTo(Math.sqrt(7 / 9), 15);
  });

  it('one question: no standard error', () => {
    expect(nestedComponents(rows([[1, 2]])).standardError).toBeNaN();
  });

  it('rejects bad rows', () => {
    expect(() => nestedComponents([])).toThrow(/rows is empty/);
    expect(() => nestedComponents([{ cluster: 'a', value: Number.NaN }])).toThrow(/rows\[0\]\.value/);
    // @ts-expect-error: a cluster must be a string
    expect(() => nestedComponents([{ cluster: 1, value: 1 }])).toThrow(TypeError);
  });
});

describe('minimal detectable difference and power', () => {
  it('MDD = (z(0.975) + z(0.8)) SE = 2.8016 SE; Bonferroni levels widen it', () => {
    expect(minimalDetectableDifference(1)).toBeCloseTo(2.801585218, 8);
    expect(minimalDetectableDifference(0.01, { alpha: 0.05 / 3 })).toBeCloseTo(
      0.01 * (normalQuantile(1 - 0.05 / 6) + normalQuantile(0.8)),
      15,
    );
    expect(minimalDetectableDifference(1, { power: 0.9 })).toBeCloseTo(3.241516, 5);
    expect(() => minimalDetectableDifference(1, { alpha: 0 })).toThrow(/alpha/);
  });

  it('the power at the MDD is 80 % (plus the far tail)', () => {
    const se = 0.013;
    const at = powerAt(minimalDetectableDifference(se), se);
    expect(at).toBeGreaterThan(0.8);
    expect(at).toBeLessThan(0.8 + 1e-5);
    expect(powerAt(0, se)).toBeCloseTo(0.05, 12);
  });

  it('questionsNeeded: the fewest questions whose MDD is at most the effect', () => {
    const components = { betweenQuestionVariance: 0.01, withinQuestionVariance: 0.02 };
    for (const runs of [1, 2, 3, 5]) {
      const q = questionsNeeded(components, runs, 0.03);
      const mdd = (questions: number) =>
        minimalDetectableDifference(designStandardError({ ...components, questions, runs }));
      expect(mdd(q)).toBeLessThanOrEqual(0.03 + 1e-15);
      expect(mdd(q - 1)).toBeGreaterThan(0.03);
    }
    // more runs help only the within part: never below tau^2's share
    expect(questionsNeeded(components, 5, 0.03)).toBeGreaterThanOrEqual(
      Math.ceil((2.801585218 ** 2 * 0.01) / 0.03 ** 2),
    );
    expect(() => questionsNeeded(components, 1, 0)).toThrow(/effect must be > 0/);
  });
});
