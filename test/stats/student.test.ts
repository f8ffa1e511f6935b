/**
 * Student's t (src/stats/student.ts) against closed forms and 30-digit quantiles from mpmath (findroot on the quadrature of the density).
 */
import { describe, expect, it } from 'vitest';
import { normalQuantile, studentTCdf, studentTQuantile } from '../../src/stats/index.ts';

/** closed-form quantiles: df 1 (Cauchy), df 2 and df 4 */
const closed: Record<number, (p: number) => number> = {
  1: (p) => Math.tan(Math.PI * (p - 0.5)),
  2: (p) => (2 * p - 1) / Math.sqrt(2 * p * (1 - p)),
  4: (p) => {
    const a = 4 * p * (1 - p);
    const q = Math.cos(Math.acos(Math.sqrt(a)) / 3) / Math.sqrt(a);
    return Math.sign(p - 0.5) * 2 * Math.sqrt(q - 1);
  },
};

describe('studentTQuantile', () => {
  for (const df of [1, 2, 4])
    for (const p of [0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.9995])
      it(`matches the closed form at df ${df}, p ${p}`, () => {
        const want = (closed[df] as (p: number) => number)(p);
        expect(Math.abs(studentTQuantile(p, df) - want)).toBeLessThanOrEqual(
          1e-11 * Math.max(1, Math.abs(want)),
        );
      });

  it("matches mpmath's 30-digit quantile at 0.975", () => {
    const reference: [number, number][] = [
      [7, 2.3646242515927853],
      [10, 2.2281388519862748],
      [30, 2.042272456301238],
    ];
    for (const [df, want] of reference) expect(studentTQuantile(0.975, df)).toBeCloseTo(want, 12);
  });

  it('tends to the normal quantile, and is its inverse CDF', () => {
    expect(studentTQuantile(0.975, Number.POSITIVE_INFINITY)).toBe(normalQuantile(0.975));
    expect(Math.abs(studentTQuantile(0.975, 1e7) - normalQuantile(0.975))).toBeLessThan(1e-6);
    for (const df of [3, 7.5, 39, 199])
      for (const p of [0.01, 0.3, 0.8, 0.975])
        expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 13);
  });

  it('is NaN outside its domain', () => {
    expect(studentTQuantile(0, 5)).toBeNaN();
    expect(studentTQuantile(1, 5)).toBeNaN();
    expect(studentTQuantile(0.5, 0)).toBeNaN();
  });
});
