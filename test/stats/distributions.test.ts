import { describe, expect, it } from 'vitest';
import {
  binomialHalfCdf,
  chiSquare1Survival,
  erf,
  erfc,
  normalCdf,
  normalQuantile,
} from '../../src/stats/distributions.ts';
import { expectRelative, reference } from './reference.ts';

const ref = reference.distributions;
const MIN_NORMAL = 2.2250738585072014e-308;

describe('distribution functions against scipy 1.10.1', () => {
  it('normalCdf matches scipy.special.ndtr to ~1e-14 relative (normal range)', () => {
    for (const [z, p] of ref.ndtr) {
      // far in the tail the exponent z^2/2 carries the rounding: tolerance 2e-16 * max(64, z^2)
      if (p < MIN_NORMAL) expect(normalCdf(z)).toBeLessThan(1e-300);
      else expectRelative(normalCdf(z), p, 2e-16 * Math.max(64, z * z), `ndtr(${z})`);
    }
  });

  it('normalQuantile matches scipy.special.ndtri to 1e-14 relative', () => {
    for (const [p, z] of ref.ndtri) expectRelative(normalQuantile(p), z, 1e-14, `ndtri(${p})`);
  });

  it('chiSquare1Survival matches scipy.stats.chi2.sf(x, 1) to 1e-12 relative', () => {
    for (const [x, s] of ref.chi2sf1) expectRelative(chiSquare1Survival(x), s, 1e-12, `chi2.sf(${x})`);
  });

  it('binomialHalfCdf matches scipy.stats.binom.cdf(k, n, 0.5), n up to 2,000,000', () => {
    for (const [k, n, p] of ref.binomcdfHalf) {
      // relative error grows like eps * |log p| for tiny p (1e-13 at p ~ 1e-250)
      const tol = p > 1e-20 ? 1e-13 : 1e-11;
      expectRelative(binomialHalfCdf(k, n), p, tol, `binom.cdf(${k}, ${n})`);
    }
  });
});

describe('distribution functions: identities and edges', () => {
  it('textbook values', () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 15);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14);
    expect(chiSquare1Survival(3.841458820694124)).toBeCloseTo(0.05, 14);
    expect(binomialHalfCdf(0, 1)).toBe(0.5);
    expect(binomialHalfCdf(1, 3)).toBe(0.5);
    expect(binomialHalfCdf(2, 10)).toBeCloseTo(56 / 1024, 15);
    expect(erf(0)).toBe(0);
    expect(erfc(0)).toBe(1);
  });

  it('normalQuantile inverts normalCdf', () => {
    for (let z = -8; z <= 3; z += 0.37) expect(normalQuantile(normalCdf(z))).toBeCloseTo(z, 8);
  });

  it('handles the ends', () => {
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    expect(normalQuantile(1.5)).toBeNaN();
    expect(normalCdf(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(normalCdf(Number.POSITIVE_INFINITY)).toBe(1);
    expect(chiSquare1Survival(0)).toBe(1);
    expect(chiSquare1Survival(Number.POSITIVE_INFINITY)).toBe(0);
    expect(binomialHalfCdf(-1, 5)).toBe(0);
    expect(binomialHalfCdf(5, 5)).toBe(1);
    expect(binomialHalfCdf(0, 0)).toBe(1);
    expect(() => binomialHalfCdf(1, 2.5)).toThrow(RangeError);
  });
});
