/**
 * The drift test between two windows (src/stats/drift.ts): its exact p-values against a hand count and
 * a brute-force enumeration of every split, the grid's dynamic program against the enumeration, the
 * Monte Carlo's (b + 1) / (m + 1), the interval and MDD, and the gate: a planted drop in grounding fails,
 * a reshuffle of the same cases passes.
 *
 * The reference is scipy.stats.permutation_test (permutation_type='independent'), which enumerates every
 * distinct split exactly when n_resamples is at least their number. The vectors below are exact rationals
 * (the first counted by hand), and scipy 1.17.1 (Python 3.11) and 1.10.1 (Debian's python3-scipy) give the same p-values to the
 * last digit (0.2/0.4, 0.08554778554778555/0.1710955710955711, 0.1317016317016317/0.2634032634032634);
 * the brute force below enumerates every split as scipy's exact mode does. To check them again:
 *
 *   import numpy as np
 *   from scipy import stats
 *   def d(x, y, axis=-1): return np.mean(x, axis=axis) - np.mean(y, axis=axis)
 *   a, b = [2, 2, 1], [0, 1]            # window A, window B
 *   for alt in ('less', 'two-sided'):
 *       r = stats.permutation_test((b, a), d, permutation_type='independent', alternative=alt,
 *                                  n_resamples=np.inf, vectorized=True)
 *       print(alt, r.pvalue)            # less 0.2, two-sided 0.4
 *   a = [2, 2, 2, 1, 2, 1, 2, 2]; b = [1, 2, 0, 1, 2, 1, 0, 2]
 *   ...                                 # less 1101/12870 = 0.0855478, two-sided 0.1710956
 *   a = [1, 1.5, 2, 2, 0.5, 2]; b = [0.5, 1, 1, 0, 1.5, 2, 1]
 *   ...                                 # less 226/1716 = 0.1317016, two-sided 0.2634033
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { driftVerdict, permutationDrift } from '../../src/stats/index.ts';

/** Every split of the pooled scores into nA and nB, brute force: P(d* <= d) and P(d* >= d), d = mean(B) - mean(A). */
function bruteForce(a: number[], b: number[]): { less: number; greater: number } {
  const pooled = [...a, ...b];
  const n = pooled.length;
  const d = (xs: number[], ys: number[]) =>
    ys.reduce((s, x) => s + x, 0) / ys.length - xs.reduce((s, x) => s + x, 0) / xs.length;
  const observed = d(a, b);
  let less = 0;
  let greater = 0;
  let all = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    const xs: number[] = [];
    const ys: number[] = [];
    pooled.forEach((x, i) => {
      if (mask & (1 << i)) xs.push(x);
      else ys.push(x);
    });
    if (xs.length !== a.length) continue;
    const v = d(xs, ys);
    if (v <= observed + 1e-12) less++;
    if (v >= observed - 1e-12) greater++;
    all++;
  }
  return { less: less / all, greater: greater / all };
}

/** Exact p-values (exact rationals) of small fixed windows. */
const VECTORS: { a: number[]; b: number[]; less: number; twoSided: number }[] = [
  { a: [2, 2, 1], b: [0, 1], less: 2 / 10, twoSided: 4 / 10 },
  { a: [2, 2, 2, 1, 2, 1, 2, 2], b: [1, 2, 0, 1, 2, 1, 0, 2], less: 1101 / 12870, twoSided: 2202 / 12870 },
  { a: [1, 1.5, 2, 2, 0.5, 2], b: [0.5, 1, 1, 0, 1.5, 2, 1], less: 226 / 1716, twoSided: 452 / 1716 },
];

const grounding = (n: number, seed: string, shares: [number, number, number]): number[] => {
  const rng = seedrandom(seed);
  return Array.from({ length: n }, () => {
    const u = rng();
    return u < shares[0] ? 0 : u < shares[0] + shares[1] ? 1 : 2;
  });
};

describe('permutationDrift: exact p-values', () => {
  it('counts the 10 splits of [2, 2, 1] vs [0, 1] by hand: P(sA* >= 5) = 2/10', () => {
    const r = permutationDrift([2, 2, 1], [0, 1], { seed: 's' });
    expect(r.method).toBe('exact-grid');
    expect(r.pLess).toBeCloseTo(0.2, 14);
    expect(r.pGreater).toBeCloseTo(1, 14);
    expect(r.pTwoSided).toBeCloseTo(0.4, 14);
    expect(r.splits).toBeCloseTo(10, 9);
    expect(r.difference).toBeCloseTo(0.5 - 5 / 3, 14);
  });

  for (const [i, v] of VECTORS.entries())
    it(`vector ${i}: the grid's dynamic program and the enumeration of splits equal the brute force`, () => {
      const brute = bruteForce(v.a, v.b);
      expect(brute.less).toBeCloseTo(v.less, 14);
      expect(Math.min(1, 2 * Math.min(brute.less, brute.greater))).toBeCloseTo(v.twoSided, 14);
      const grid = permutationDrift(v.a, v.b, { seed: 's' });
      const splits = permutationDrift(v.a, v.b, { seed: 's', maxWork: 0 });
      expect(grid.method).toBe('exact-grid');
      expect(splits.method).toBe('exact-splits');
      for (const r of [grid, splits]) {
        expect(r.pLess).toBeCloseTo(v.less, 12);
        expect(r.pTwoSided).toBeCloseTo(v.twoSided, 12);
        expect(r.pGreater).toBeCloseTo(brute.greater, 12);
      }
    });

  it('agrees with the brute force on 30 random pairs of grounding windows (0/1/2 and panel means)', () => {
    const rng = seedrandom('drift-random');
    for (let t = 0; t < 30; t++) {
      const nA = 2 + Math.floor(rng() * 7);
      const nB = 2 + Math.floor(rng() * 7);
      const step = t % 2 === 0 ? 1 : 0.5;
      const draw = () => Math.round(rng() * (2 / step)) * step;
      const a = Array.from({ length: nA }, draw);
      const b = Array.from({ length: nB }, draw);
      const brute = bruteForce(a, b);
      const r = permutationDrift(a, b, { seed: 's' });
      expect(r.pLess, `${a} | ${b}`).toBeCloseTo(brute.less, 12);
      expect(r.pGreater, `${a} | ${b}`).toBeCloseTo(brute.greater, 12);
    }
  });

  it('scores off any grid (continuous) are enumerated split by split', () => {
    const a = [0.123456789, 1.7, 0.3333333333, 1.1];
    const b = [0.2, 0.9876543, 0.01, 0.5];
    const r = permutationDrift(a, b, { seed: 's' });
    expect(r.method).toBe('exact-splits');
    expect(r.splits).toBe(70);
    expect(r.pLess).toBeCloseTo(bruteForce(a, b).less, 14);
  });
});

describe('permutationDrift: Monte Carlo', () => {
  it('gives (b + 1) / (m + 1) near the exact value, the same for the same seed', () => {
    const a = grounding(40, 'a', [0.1, 0.3, 0.6]);
    const b = grounding(40, 'b', [0.2, 0.3, 0.5]);
    const exact = permutationDrift(a, b, { seed: 's' });
    const mc = permutationDrift(a, b, { seed: 's', maxWork: 0, maxSplits: 1, resamples: 20000 });
    expect(mc.method).toBe('monte-carlo');
    expect(mc.splits).toBe(20000);
    // 4 binomial standard errors of a proportion near 0.1 at 20000 draws
    expect(Math.abs(mc.pLess - exact.pLess)).toBeLessThan(4 * Math.sqrt((0.25 * 1) / 20000));
    expect(permutationDrift(a, b, { seed: 's', maxWork: 0, maxSplits: 1, resamples: 20000 }).pLess).toBe(
      mc.pLess,
    );
    // never 0: the observed split counts once
    const far = permutationDrift([2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], {
      seed: 's',
      maxWork: 0,
      maxSplits: 1,
      resamples: 999,
    });
    expect(far.pLess).toBeCloseTo(1 / 1000, 15);
  });
});

describe('permutationDrift: interval and MDD', () => {
  it("is the normal approximation with Welch's standard error; the MDD is (z(0.95) + z(0.8)) SE", () => {
    const a = [2, 2, 1, 2, 0, 2];
    const b = [1, 2, 0, 1, 1];
    const r = permutationDrift(a, b, { seed: 's' });
    const va = a.reduce((s, x) => s + (x - 1.5) ** 2, 0) / 5;
    const vb = b.reduce((s, x) => s + (x - 1) ** 2, 0) / 4;
    const se = Math.sqrt(va / 6 + vb / 5);
    expect(r.standardError).toBeCloseTo(se, 14);
    expect(r.low).toBeCloseTo(-0.5 - 1.959963984540054 * se, 12);
    expect(r.high).toBeCloseTo(-0.5 + 1.959963984540054 * se, 12);
    expect(r.mdd).toBeCloseTo((1.6448536269514722 + 0.8416212335729143) * se, 10);
  });

  it('refuses an empty window and a bad alpha', () => {
    expect(() => permutationDrift([], [1], { seed: 's' })).toThrow(/a is empty/);
    expect(() => permutationDrift([1], [1], { seed: 's', alpha: 0.7 })).toThrow(/alpha/);
  });
});

describe('driftVerdict: the drift gate', () => {
  it('fails on a planted drop in grounding (0/1/2) between two windows of 200 cases', () => {
    const a = grounding(200, 'week-48', [0.05, 0.15, 0.8]);
    const b = grounding(200, 'week-49', [0.2, 0.25, 0.55]);
    const r = permutationDrift(a, b, { seed: 'drift' });
    expect(r.method).toBe('exact-grid');
    const v = driftVerdict(r, 0.1);
    expect(r.pLess).toBeLessThan(1e-4);
    expect(v).toMatchObject({ verdict: 'fail', significant: true, material: true });
  });

  it('passes a reshuffle: the same cases split at random into two windows', () => {
    const all = [
      ...grounding(200, 'week-48', [0.05, 0.15, 0.8]),
      ...grounding(200, 'week-49', [0.2, 0.25, 0.55]),
    ];
    const rng = seedrandom('reshuffle');
    const order = all.map((x) => ({ x, k: rng() })).sort((p, q) => p.k - q.k);
    const a = order.slice(0, 200).map((p) => p.x);
    const b = order.slice(200).map((p) => p.x);
    const r = permutationDrift(a, b, { seed: 'drift' });
    expect(driftVerdict(r, 0.1).verdict).toBe('pass');
    expect(r.pLess).toBeGreaterThan(0.05);
  });

  it('a significant drop smaller than --min-effect passes (1000 cases a window: Monte Carlo)', () => {
    const counts = (zeros: number, ones: number, twos: number) => [
      ...Array<number>(zeros).fill(0),
      ...Array<number>(ones).fill(1),
      ...Array<number>(twos).fill(2),
    ];
    // means 1.6 and 1.52: a drop of 0.08, about 2.6 standard errors
    const r = permutationDrift(counts(100, 200, 700), counts(140, 200, 660), { seed: 'drift' });
    expect(r.method).toBe('monte-carlo');
    expect(r.difference).toBeCloseTo(-0.08, 12);
    const v = driftVerdict(r, 0.1);
    expect(v.significant).toBe(true);
    expect(v.verdict).toBe('pass');
    expect(driftVerdict(r, 0.05).verdict).toBe('fail');
  });
});
