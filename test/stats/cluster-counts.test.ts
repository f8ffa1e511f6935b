/**
 * `clusterCountsCI` (issue 53): the cluster bootstrap of a statistic of the rows' counts per category,
 * which resamples clusters by their counts instead of their rows, gives `clusterBootstrapCI`'s interval
 * bit for bit, calling the statistic as often and in the same order, on seeded random data: few and many
 * clusters, clusters of unequal sizes, both methods, kappa of a two-rater table and a statistic that
 * depends on the order of nothing but the counts; and the same degenerate cases.
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { type BootstrapOptions, clusterBootstrapCI, clusterCountsCI } from '../../src/stats/bootstrap.ts';
import {
  KAPPA_CONFIDENCE,
  KAPPA_INTERVAL_METHOD,
  kappaInterval,
  tableAgreement,
} from '../../src/stats/kappa.ts';

/** Counts per category of coded rows. */
function countsOf(xs: ArrayLike<number>, categories: number): number[] {
  const counts = new Array<number>(categories).fill(0);
  for (let i = 0; i < xs.length; i++) counts[xs[i] as number] = (counts[xs[i] as number] as number) + 1;
  return counts;
}

/** Kappa of the 3 x 3 table of two strata's counts, averaged (a defined value where a table is empty). */
function kappaOfCounts(counts: ArrayLike<number>): number {
  let sum = 0;
  for (let s = 0; s < 2; s++) {
    const table = Array.from({ length: 9 }, (_, i) => counts[s * 9 + i] as number);
    const k = table.some((c) => c > 0) ? tableAgreement('kappa', table, 3) : 0;
    sum += Number.isNaN(k) ? 0.5 : k;
  }
  return sum / 2;
}

function rowsFor(seed: string, clusters: number, categories: number) {
  const rng = seedrandom(seed);
  const rows: { cluster: string; value: number }[] = [];
  for (let c = 0; c < clusters; c++) {
    const size = 1 + Math.floor(rng() * 12);
    // raters agree most of the time: codes on the diagonal of a stratum's table
    for (let i = 0; i < size; i++) {
      const value =
        rng() < 0.7 ? Math.floor(rng() * 3) * 4 + (rng() < 0.5 ? 0 : 9) : Math.floor(rng() * categories);
      rows.push({ cluster: `q-${c}`, value: value % categories });
    }
  }
  // shuffled: clusters are numbered in order of first appearance, rows keep theirs
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [rows[i], rows[j]] = [rows[j] as (typeof rows)[number], rows[i] as (typeof rows)[number]];
  }
  return rows;
}

describe('clusterCountsCI', () => {
  it("gives clusterBootstrapCI's interval bit for bit, calling the statistic as often, in the same order", () => {
    let compared = 0;
    for (const [t, clusters] of [2, 3, 17, 60, 200].entries())
      for (const method of ['bca', 'percentile'] as const)
        for (const [name, categories, statistic] of [
          ['kappa', 18, kappaOfCounts],
          [
            'weighted',
            5,
            (c: ArrayLike<number>) => ((c[1] as number) + 2 * (c[3] as number)) / ((c[0] as number) + 1),
          ],
        ] as const) {
          const rows = rowsFor(`cc-${t}-${name}`, clusters, categories);
          const calls = { rows: [] as number[], counts: [] as number[] };
          const opts: Omit<BootstrapOptions, 'statistic'> = { method, resamples: 499, seed: `s-${t}` };
          const viaRows = clusterBootstrapCI(rows, {
            ...opts,
            statistic: (xs) => {
              const v = statistic(countsOf(xs, categories));
              calls.rows.push(v);
              return v;
            },
          });
          const viaCounts = clusterCountsCI(rows, {
            ...opts,
            categories,
            statistic: (counts) => {
              const v = statistic(counts);
              calls.counts.push(v);
              return v;
            },
          });
          expect(viaCounts).toEqual(viaRows);
          expect(Object.is(viaCounts.low, viaRows.low) && Object.is(viaCounts.high, viaRows.high)).toBe(true);
          expect(calls.counts).toEqual(calls.rows);
          compared++;
        }
    expect(compared).toBe(20);
  });

  it('gives the same point interval where clusterBootstrapCI does (one cluster, all values equal)', () => {
    const statistic = (c: ArrayLike<number>) => (c[0] as number) / 10;
    for (const rows of [
      [1, 0, 2].map((value) => ({ cluster: 'only', value })),
      [1, 1, 1, 1].map((value, i) => ({ cluster: `q-${i % 2}`, value })),
    ]) {
      const opts = { method: 'bca', resamples: 99, seed: 'x' } as const;
      const viaRows = clusterBootstrapCI(rows, { ...opts, statistic: (xs) => statistic(countsOf(xs, 3)) });
      expect(clusterCountsCI(rows, { ...opts, categories: 3, statistic })).toEqual(viaRows);
      expect(viaRows.degenerate).toBe(true);
    }
  });

  it('refuses a value that is not a category', () => {
    const opts = { method: 'bca', seed: 'x', categories: 3, statistic: () => 0 } as const;
    expect(() => clusterCountsCI([{ cluster: 'a', value: 3 }], opts)).toThrow(/not a category/);
    expect(() => clusterCountsCI([{ cluster: 'a', value: 0.5 }], opts)).toThrow(/not a category/);
  });
});

/**
 * kappaInterval as it was before issue 53: every resample's items counted by the statistic
 * (`clusterBootstrapCI`), an undefined kappa counted as the estimate.
 */
function kappaIntervalByItems(
  a: number[],
  b: number[],
  clusters: string[],
  strata: number[],
  seed: string,
  resamples: number,
) {
  const codes = a.map((x, i) => (strata[i] as number) * 9 + x * 3 + (b[i] as number));
  const strataCount = Math.max(...strata) + 1;
  const kappaOf = (xs: ArrayLike<number>) => {
    const counts = countsOf(xs, strataCount * 9);
    const kappas: number[] = [];
    for (let s = 0; s < strataCount; s++) {
      const table = counts.slice(s * 9, s * 9 + 9);
      const k = table.every((c) => c === 0) ? Number.NaN : tableAgreement('kappa', table, 3);
      if (!Number.isNaN(k)) kappas.push(k);
    }
    let sum = 0;
    for (const k of kappas) sum += k;
    return kappas.length === 0 ? Number.NaN : sum / kappas.length;
  };
  const estimate = kappaOf(codes);
  let calls = 0;
  let undefinedResamples = 0;
  const ci = clusterBootstrapCI(
    codes.map((value, i) => ({ cluster: clusters[i] as string, value })),
    {
      method: KAPPA_INTERVAL_METHOD,
      resamples,
      confidence: KAPPA_CONFIDENCE,
      seed,
      statistic: (xs) => {
        calls++;
        const v = kappaOf(xs);
        if (!Number.isNaN(v)) return v;
        if (calls > 1 && calls <= resamples + 1) undefinedResamples++;
        return estimate;
      },
    },
  );
  return { low: ci.low, high: ci.high, undefinedResamples };
}

describe('kappaInterval over clusters', () => {
  it('is the interval of the items, and counts the resamples where a stratum has no kappa as before', () => {
    // the judges give one label only in all but two questions: a resample without those two has no kappa
    const rng = seedrandom('undefined-kappa');
    const a: number[] = [];
    const b: number[] = [];
    const clusters: string[] = [];
    const strata: number[] = [];
    for (let q = 0; q < 40; q++)
      for (let r = 0; r < 3; r++) {
        const x = q < 2 ? Math.floor(rng() * 3) : 2;
        a.push(x);
        b.push(q < 2 && rng() < 0.3 ? Math.floor(rng() * 3) : x);
        clusters.push(`q-${q}`);
        strata.push(0);
      }
    const ci = kappaInterval(a, b, 3, { seed: 'k', clusters, strata, resamples: 500 });
    const before = kappaIntervalByItems(a, b, clusters, strata, 'k', 500);
    expect(before.undefinedResamples).toBeGreaterThan(0);
    expect(ci && { low: ci.low, high: ci.high, undefinedResamples: ci.undefinedResamples }).toEqual(before);
    expect(ci?.clusters).toBe(40);
  });
});
