/**
 * The gate's sign-flip test over clusters (src/stats/signflip.ts): its p-values and interval against a
 * brute-force enumeration of every sign vector, the interval's consistency with the test, its level
 * on symmetric discrete nulls, and its errors.
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { normalCdf, signFlipTest } from '../../src/stats/index.ts';

type Row = { cluster: string; value: number };

/** Rows of `q` clusters of 1-3 cells each, values on the GFS grid (k / 80), from a seeded stream. */
function rowsOf(q: number, seed: string, shift = 0): Row[] {
  const rng = seedrandom(seed);
  const rows: Row[] = [];
  for (let c = 0; c < q; c++) {
    const cells = 1 + Math.floor(rng() * 3);
    for (let r = 0; r < cells; r++)
      rows.push({ cluster: `q${c}`, value: Math.round((rng() - 0.5 + shift) * 80) / 80 });
  }
  return rows;
}

/** Brute force: the lower and upper tail p-values at delta0 over all 2^Q sign vectors, from T itself. */
function bruteTails(rows: Row[], delta0: number): { lower: number; upper: number } {
  const clusters = [...new Set(rows.map((r) => r.cluster))];
  const totals = clusters.map((c) =>
    rows.filter((r) => r.cluster === c).reduce((s, r) => s + (r.value - delta0), 0),
  );
  const t = totals.reduce((s, x) => s + x, 0);
  let lower = 0;
  let upper = 0;
  const all = 2 ** clusters.length;
  for (let mask = 0; mask < all; mask++) {
    const flipped = totals.reduce((s, x, i) => s + (mask & (1 << i) ? -x : x), 0);
    if (flipped <= t + 1e-12) lower++;
    if (flipped >= t - 1e-12) upper++;
  }
  return { lower: lower / all, upper: upper / all };
}

describe('signFlipTest against brute-force enumeration', () => {
  for (const q of [6, 8, 10]) {
    it(`${q} clusters: p-values and both ends of the interval are the enumeration's`, () => {
      const rows = rowsOf(q, `sf:${q}`, 0.15);
      const r = signFlipTest(rows, { seed: 'x', resamples: 9999 });
      expect(r.exact).toBe(true);
      const at0 = bruteTails(rows, 0);
      expect(r.pLower).toBeCloseTo(at0.lower, 12);
      expect(r.pUpper).toBeCloseTo(at0.upper, 12);
      expect(r.pValue).toBeCloseTo(Math.min(1, 2 * Math.min(at0.lower, at0.upper)), 12);
      // the ends are the edges of the set of delta0 the test does not reject at 2.5 % in each tail
      const accepts = (d: number) => {
        const t = bruteTails(rows, d);
        return t.lower > 0.025 && t.upper > 0.025;
      };
      if (!r.unbounded) {
        expect(accepts(r.low)).toBe(true);
        expect(accepts(r.high)).toBe(true);
        expect(accepts(r.low - 1e-7)).toBe(false);
        expect(accepts(r.high + 1e-7)).toBe(false);
      }
      expect(r.low).toBeLessThanOrEqual(r.estimate);
      expect(r.high).toBeGreaterThanOrEqual(r.estimate);
    });
  }

  it('the estimate is the mean over rows (clusters of unequal size weigh by their cells)', () => {
    const rows = rowsOf(12, 'sf:mean');
    const mean = rows.reduce((s, r) => s + r.value, 0) / rows.length;
    expect(signFlipTest(rows, { seed: 's' }).estimate).toBeCloseTo(mean, 14);
  });
});

describe('signFlipTest by Monte Carlo', () => {
  it('the interval excludes 0 exactly when the two-sided p-value is at most 1 - confidence', () => {
    let excluded = 0;
    for (let i = 0; i < 300; i++) {
      const rows = rowsOf(40, `sf:mc:${i}`, (i % 7) * 0.01);
      const r = signFlipTest(rows, { seed: `s${i}`, resamples: 1999 });
      expect(r.exact).toBe(false);
      const outside = r.low > 0 || r.high < 0;
      if (outside) excluded++;
      expect(outside).toBe(r.pValue <= 0.05);
      expect(r.high < 0).toBe(r.pLower <= 0.025);
    }
    // the shifts make some of them exclude 0: the equivalence was tested both ways
    expect(excluded).toBeGreaterThan(20);
    expect(excluded).toBeLessThan(280);
  });

  it('is deterministic for a seed and follows the normal approximation on many clusters', () => {
    const rows = rowsOf(300, 'sf:large', 0.02);
    const a = signFlipTest(rows, { seed: 'same', resamples: 20_000 });
    const b = signFlipTest(rows, { seed: 'same', resamples: 20_000 });
    expect(b).toEqual(a);
    // under the sign-flip distribution T has variance sum(u_q^2) / N^2: the two-sided normal p-value
    const totals = new Map<string, number>();
    for (const r of rows) totals.set(r.cluster, (totals.get(r.cluster) ?? 0) + r.value);
    const sd = Math.sqrt([...totals.values()].reduce((s, u) => s + u * u, 0)) / rows.length;
    const normal = 2 * normalCdf(-Math.abs(a.estimate) / sd);
    expect(Math.abs(a.pValue - normal)).toBeLessThan(0.01);
  });

  it('holds its level on a symmetric, discrete, lumpy null (most differences 0, some +-0.6)', () => {
    const runs = 1500;
    let rejected = 0;
    const rng = seedrandom('sf:level');
    for (let i = 0; i < runs; i++) {
      const rows: Row[] = [];
      for (let c = 0; c < 25; c++)
        for (let r = 0; r < 2; r++) {
          const u = rng();
          rows.push({
            cluster: `q${c}`,
            value: u < 0.1 ? -0.6 : u < 0.2 ? 0.6 : u < 0.3 ? 0.0125 : u < 0.4 ? -0.0125 : 0,
          });
        }
      if (signFlipTest(rows, { seed: `lvl${i}`, resamples: 999 }).pValue <= 0.05) rejected++;
    }
    // exact level: at most 5 % in expectation (binomial SE 0.56 points at 1,500)
    expect(rejected / runs).toBeLessThanOrEqual(0.065);
    expect(rejected / runs).toBeGreaterThan(0.02);
  });
});

describe('signFlipTest edge cases and errors', () => {
  it('all differences equal: a point interval flagged degenerate', () => {
    const rows = Array.from({ length: 20 }, (_, i) => ({ cluster: `q${i >> 1}`, value: -0.05 }));
    const r = signFlipTest(rows, { seed: 'd' });
    expect(r).toMatchObject({ low: -0.05, high: -0.05, degenerate: true });
    // the same change computed from different scores differs in the last bits; on the grid it is one value
    const drops = [
      [0.765, 0.965],
      [0.85, 1.05],
      [0.4, 0.6],
    ].map(([c, b], i) => ({ cluster: `q${i}`, value: (c as number) - (b as number) }));
    expect(new Set(drops.map((d) => d.value)).size).toBeGreaterThan(1);
    expect(signFlipTest(drops, { seed: 'd' })).toMatchObject({ degenerate: true, low: -0.2, high: -0.2 });
  });

  it('too few clusters to reach the level: the ends are the bounds, flagged unbounded', () => {
    const rows = rowsOf(4, 'sf:few', 0.3);
    const r = signFlipTest(rows, { seed: 'f', bounds: [-1, 1] });
    // 2^4 = 16 sign vectors: the smallest tail is 1/16 > 2.5 %, so no delta0 is rejected
    expect(r).toMatchObject({ low: -1, high: 1, unbounded: true, exact: true });
    expect(r.pValue).toBeGreaterThan(0.05);
  });

  it('rejects bad input with the argument named', () => {
    expect(() => signFlipTest([], { seed: 's' })).toThrow(/rows is empty/);
    expect(() => signFlipTest([{ cluster: 'a', value: Number.NaN }], { seed: 's' })).toThrow(
      /rows\[0\]\.value must be a finite number/,
    );
    expect(() => signFlipTest([{ cluster: 'a', value: 0 }], { seed: 's', resamples: 0 })).toThrow(
      /resamples must be a positive integer/,
    );
    expect(() => signFlipTest([{ cluster: 'a', value: 0 }], { seed: 's', confidence: 1 })).toThrow(
      /confidence must be in \(0, 1\)/,
    );
  });
});
