import { describe, expect, it } from 'vitest';
import { cohenKappa } from '../../src/stats/index.ts';
import { expectClose, reference } from './reference.ts';

describe('cohenKappa against sklearn.metrics.cohen_kappa_score 1.2.1', () => {
  for (const c of reference.kappa) {
    it(c.name, () => {
      const opts = { weights: c.weights, ...(c.labels ? { labels: c.labels } : {}) };
      expectClose(cohenKappa(c.a, c.b, opts), c.kappa, 1e-14, c.name);
    });
  }
});

describe('cohenKappa', () => {
  it('textbook 2 x 2: po = 0.7, pe = 0.5 gives 0.4', () => {
    // 20 agree yes, 15 agree no, 5 + 10 disagree; margins 25/25 and 30/20
    const a = [...Array(25).fill(1), ...Array(25).fill(0)];
    const b = [...Array(20).fill(1), ...Array(5).fill(0), ...Array(10).fill(1), ...Array(15).fill(0)];
    expect(cohenKappa(a, b)).toBeCloseTo(0.4, 15);
  });

  it('is 1 on identical input and symmetric in the raters (all weightings)', () => {
    const a = [0, 1, 2, 3, 4, 2, 1, 0, 3, 3, 4, 2];
    const b = [0, 2, 2, 3, 3, 1, 1, 0, 4, 3, 4, 0];
    for (const weights of ['none', 'linear', 'quadratic'] as const) {
      expect(cohenKappa(a, a, { weights })).toBe(1);
      expect(cohenKappa(a, b, { weights })).toBeCloseTo(cohenKappa(b, a, { weights }), 14);
    }
  });

  it('NaN when both raters are constant on the same label; 0 on different labels', () => {
    expect(cohenKappa([1, 1, 1], [1, 1, 1])).toBeNaN();
    expect(cohenKappa([1, 1, 1], [0, 0, 0])).toBe(0);
  });

  it('fractional labels are categories (GFS levels), same as their integer codes', () => {
    const a = [0, 0.25, 0.5, 0.75, 1, 1, 0.5];
    const b = [0, 0.5, 0.5, 0.75, 0.75, 1, 0.25];
    const code = (xs: number[]) => xs.map((x) => x * 4);
    expect(cohenKappa(a, b, { weights: 'quadratic' })).toBe(
      cohenKappa(code(a), code(b), { weights: 'quadratic' }),
    );
  });

  it('rejects bad input with clear errors', () => {
    expect(() => cohenKappa([], [])).toThrow(/a is empty/);
    expect(() => cohenKappa([1, 2], [1])).toThrow(RangeError);
    expect(() => cohenKappa([1, Number.NaN], [1, 2])).toThrow(/a\[1\] is NaN/);
    expect(() => cohenKappa([1, 2], [1, 2], { labels: [1, 1] })).toThrow(/repeated/);
    expect(() => cohenKappa([1, 2], [1, 2], { labels: [7] })).toThrow(/at least one label/);
    // @ts-expect-error: a wrong weighting
    expect(() => cohenKappa([1, 2], [1, 2], { weights: 'cubic' })).toThrow(RangeError);
    // @ts-expect-error: strings are not numbers
    expect(() => cohenKappa(['a'], ['a'])).toThrow(TypeError);
  });
});
