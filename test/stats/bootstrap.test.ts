import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import {
  bcaInterval,
  bootstrapCI,
  clusterBootstrapCI,
  pairedBootstrapCI,
  percentileInterval,
} from '../../src/stats/index.ts';
import { bcaFromParts, influenceFromJackknife } from '../../src/stats/intervals.ts';
import { linearPercentile } from '../../src/stats/percentile.ts';
import { resamplingState, resamplingStreams, xoshiro128ss } from '../../src/stats/resampling.ts';
import { expectClose, reference } from './reference.ts';

const TIGHT = 1e-12;

describe('bcaInterval / percentileInterval on scipy 1.10.1 bootstrap distributions', () => {
  for (const c of reference.bootstrapGivenDistribution) {
    it(c.name, () => {
      const bca = bcaInterval(c.values, c.bootDistribution, { confidence: c.confidence });
      expect(bca.degenerate).toBeUndefined();
      for (const key of ['z0', 'acceleration', 'alpha1', 'alpha2', 'low', 'high'] as const) {
        expectClose(bca[key], c.bca[key], TIGHT, key);
      }
      const pct = percentileInterval(c.bootDistribution, c.confidence);
      expectClose(pct.low, c.percentile.low, TIGHT, 'percentile low');
      expectClose(pct.high, c.percentile.high, TIGHT, 'percentile high');
    });
  }
});

describe('cluster BCa (leave-one-cluster-out jackknife) on scipy paired bootstrap distributions', () => {
  for (const c of reference.clusterGivenDistribution) {
    it(c.name, () => {
      const total = c.clusterSums.reduce((s, x) => s + x, 0);
      const size = c.clusterSizes.reduce((s, x) => s + x, 0);
      const jackknife = Float64Array.from(
        c.clusterSums,
        (s, i) => (total - s) / (size - (c.clusterSizes[i] as number)),
      );
      const sorted = Float64Array.from(c.bootDistribution).sort();
      const bca = bcaFromParts(sorted, total / size, influenceFromJackknife(jackknife), 0.025000000000000022);
      for (const key of ['z0', 'acceleration', 'alpha1', 'alpha2', 'low', 'high'] as const) {
        expectClose(bca[key], c.bca[key], TIGHT, key);
      }
    });
  }
});

/** Endpoints sit on a lattice for data on a grid (0/1, quarter levels): one step of slack there. */
function latticeStep(values: readonly number[]): number {
  if (values.every((v) => Number.isInteger(v))) return 1 / values.length;
  return values.every((v) => Number.isInteger(v * 4)) ? 0.25 / values.length : 0;
}

describe('end to end: statistical agreement with scipy.stats.bootstrap (100,000 resamples)', () => {
  const resamples = 50_000;
  for (const c of reference.endToEnd.cases) {
    it(`${c.kind}: ${c.name}`, () => {
      for (const method of ['bca', 'percentile'] as const) {
        const opts = { method, resamples, seed: `reference ${c.name}`, confidence: c.confidence };
        let r: ReturnType<typeof bootstrapCI>;
        let step: number;
        if (c.kind === 'one-sample') {
          r = bootstrapCI(c.values, opts);
          step = latticeStep(c.values);
        } else if (c.kind === 'paired') {
          r = pairedBootstrapCI(c.a, c.b, opts);
          step = latticeStep(c.a);
        } else {
          r = clusterBootstrapCI(c.rows, opts);
          const sizes = new Map<string, number>();
          for (const row of c.rows) sizes.set(row.cluster, (sizes.get(row.cluster) ?? 0) + 1);
          step = new Set(sizes.values()).size === 1 ? latticeStep(c.rows.map((row) => row.value)) : 0;
        }
        const expected = c[method];
        // Monte Carlo sd of an endpoint is ~0.012 SE at 50,000 resamples, ~0.009 SE at scipy's 100,000
        const tol = 0.06 * expected.standardError + step;
        expect(
          Math.abs(r.low - expected.low),
          `${method} low ${r.low} vs ${expected.low}`,
        ).toBeLessThanOrEqual(tol);
        expect(
          Math.abs(r.high - expected.high),
          `${method} high ${r.high} vs ${expected.high}`,
        ).toBeLessThanOrEqual(tol);
        expect(r.low).toBeLessThanOrEqual(r.estimate);
        expect(r.high).toBeGreaterThanOrEqual(r.estimate);
        expect(r.degenerate).toBeUndefined();
      }
    });
  }
});

function gfsLike(n: number, seed: string): number[] {
  const random = seedrandom(seed);
  return Array.from({ length: n }, () => Math.floor(random() * 5) / 4);
}

/** Continuous values in [0, 1): no score grid, so the mean's fast path draws n indices a resample. */
function offGrid(n: number, seed: string): number[] {
  const random = seedrandom(seed);
  return Array.from({ length: n }, () => random());
}

describe('bootstrapCI', () => {
  it('is reproducible bit for bit by seed, and the seed changes the draws', () => {
    const xs = gfsLike(500, 'data');
    const a = bootstrapCI(xs, { method: 'bca', resamples: 2000, seed: 'run-1' });
    const b = bootstrapCI(xs, { method: 'bca', resamples: 2000, seed: 'run-1' });
    const c = bootstrapCI(xs, { method: 'bca', resamples: 2000, seed: 'run-2' });
    expect(b).toEqual(a);
    expect(Object.is(a.low, b.low) && Object.is(a.high, b.high)).toBe(true);
    expect([c.low, c.high]).not.toEqual([a.low, a.high]);
    expect(a).toMatchObject({ method: 'bca', resamples: 2000, seed: 'run-1' });
    expect(a.estimate).toBe(xs.reduce((s, x) => s + x, 0) / xs.length);
  });

  it('draws item i as floor(u * n), u from the even stream for even i and the odd stream for odd i', () => {
    // powers of two: n = 7 distinct levels, so the index path (not counts), and sums exact in any order
    const xs = [1, 2, 4, 8, 16, 32, 64];
    const [even, odd] = resamplingStreams('pinned');
    const dist: number[] = [];
    for (let b = 0; b < 50; b++) {
      let sum = 0;
      for (let i = 0; i < xs.length; i++) sum += xs[Math.floor((i % 2 ? odd : even)() * xs.length)] as number;
      dist.push(sum / xs.length);
    }
    const pct = percentileInterval(dist, 0.9);
    const r = bootstrapCI(xs, { method: 'percentile', resamples: 50, confidence: 0.9, seed: 'pinned' });
    expect([r.low, r.high]).toEqual([pct.low, pct.high]);
    const bca = bootstrapCI(xs, { method: 'bca', resamples: 50, confidence: 0.9, seed: 'pinned' });
    const fromDist = bcaInterval(xs, dist, { confidence: 0.9 });
    expect([bca.low, bca.high]).toEqual([fromDist.low, fromDist.high]);
  });

  it('the streams are xoshiro128** seeded by the first eight int32 outputs of seedrandom.alea(seed)', () => {
    // the reference C code (prng.di.unimi.it/xoshiro128starstar.c) from state {1, 2, 3, 4}
    const state = Int32Array.from([1, 2, 3, 4, 0, 0, 0, 0]);
    const first = Array.from({ length: 8 }, () => xoshiro128ss(state, 0));
    expect(first).toEqual([11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849]);
    const alea = seedrandom.alea('recorded seed');
    const words = Array.from({ length: 8 }, () => alea.int32());
    expect(Array.from(resamplingState('recorded seed'))).toEqual(words);
    const [even, odd] = resamplingStreams('recorded seed');
    const reference = Int32Array.from(words);
    for (let i = 0; i < 5; i++) {
      expect(even()).toBe(xoshiro128ss(reference, 0) / 2 ** 32);
      expect(odd()).toBe(xoshiro128ss(reference, 4) / 2 ** 32);
    }
  });

  it('a custom statistic takes the general path and agrees with the mean fast path (index draws, off a grid)', () => {
    // off a grid the mean's fast path draws the same indices as the general path; on a grid it may
    // draw the resample sums from their distribution instead (test/stats/sum-distribution.test.ts)
    const xs = offGrid(120, 'custom');
    const mean = (v: ArrayLike<number>) => {
      let s = 0;
      for (let i = 0; i < v.length; i++) s += v[i] as number;
      return s / v.length;
    };
    for (const method of ['bca', 'percentile'] as const) {
      const fast = bootstrapCI(xs, { method, resamples: 3000, seed: 's' });
      const general = bootstrapCI(xs, { method, resamples: 3000, seed: 's', statistic: mean });
      expect(general.low).toBeCloseTo(fast.low, 12);
      expect(general.high).toBeCloseTo(fast.high, 12);
    }
    // sorts its input in place: allowed, and must not disturb the data
    const median = (v: ArrayLike<number>) => linearPercentile((v as Float64Array).sort(), 0.5);
    const r = bootstrapCI(xs, { method: 'percentile', resamples: 2000, seed: 'm', statistic: median });
    expect(r.low).toBeLessThanOrEqual(r.estimate);
    expect(r.high).toBeGreaterThanOrEqual(r.estimate);
  });

  it('contains the estimate on non-degenerate data', () => {
    for (let k = 0; k < 20; k++) {
      const xs = gfsLike(30 + k * 10, `contain-${k}`);
      for (const method of ['bca', 'percentile'] as const) {
        const r = bootstrapCI(xs, { method, resamples: 1000, seed: `s${k}` });
        expect(r.low).toBeLessThanOrEqual(r.estimate);
        expect(r.high).toBeGreaterThanOrEqual(r.estimate);
        expect(r.low).toBeLessThan(r.high);
      }
    }
  });

  it('all-equal data gives the point interval, degenerate, never NaN', () => {
    for (const xs of [[0.7], [1, 1, 1, 1], Array(1800).fill(0.1)]) {
      for (const method of ['bca', 'percentile'] as const) {
        const r = bootstrapCI(xs, { method, seed: 'x' });
        expect(r).toMatchObject({
          low: r.estimate,
          high: r.estimate,
          degenerate: true,
          method,
          resamples: 9999,
        });
        expect(Number.isNaN(r.estimate)).toBe(false);
      }
    }
    expect(bootstrapCI([0, 0, 0], { method: 'bca', seed: 'x' })).toMatchObject({
      low: 0,
      high: 0,
      estimate: 0,
    });
  });

  it('BCa undefined (distribution all on one side of the estimate): percentile endpoints, degenerate', () => {
    const r = bcaInterval([0, 1], [0.5, 0.6, 0.7], { estimate: 0.4 });
    expect(r.degenerate).toBe(true);
    expect(r.z0).toBe(Number.NEGATIVE_INFINITY);
    expect([r.low, r.high]).toEqual([0.505, 0.695]);
    expect([r.alpha1, r.alpha2]).toEqual([0.025000000000000022, 0.975]);
    // a statistic with no jackknife spread: a = 0/0
    const constant = bootstrapCI([1, 2, 3, 4], {
      method: 'bca',
      resamples: 200,
      seed: 'c',
      statistic: () => 5,
    });
    expect(constant).toMatchObject({ low: 5, high: 5, degenerate: true });
  });

  it('a single rare value (29 zeros, one 1) still gives a finite interval', () => {
    const xs = [...Array(29).fill(0), 1];
    const r = bootstrapCI(xs, { method: 'bca', resamples: 5000, seed: 'rare' });
    expect(r.low).toBe(0);
    expect(r.high).toBeGreaterThan(r.estimate);
    expect(Number.isFinite(r.high)).toBe(true);
  });

  it('rejects bad input with clear errors', () => {
    expect(() => bootstrapCI([], { method: 'bca', seed: 's' })).toThrow(/values is empty/);
    expect(() => bootstrapCI([1, Number.NaN], { method: 'bca', seed: 's' })).toThrow(/values\[1\] is NaN/);
    expect(() => bootstrapCI([1, 2], { method: 'bca', seed: 's', resamples: 0 })).toThrow(/resamples/);
    expect(() => bootstrapCI([1, 2], { method: 'bca', seed: 's', confidence: 1 })).toThrow(/confidence/);
    // @ts-expect-error: the seed is required
    expect(() => bootstrapCI([1, 2], { method: 'bca' })).toThrow(TypeError);
    // @ts-expect-error: unknown method
    expect(() => bootstrapCI([1, 2], { method: 'basic', seed: 's' })).toThrow(RangeError);
    expect(() => bootstrapCI([1, 2], { method: 'bca', seed: 's', statistic: () => Number.NaN })).toThrow(
      /statistic returned NaN/,
    );
    expect(() => bootstrapCI([1, 2], { method: 'bca', seed: 's', statistic: () => 1 / 0 })).toThrow(
      /statistic returned Infinity/,
    );
    expect(() => percentileInterval([])).toThrow(/empty/);
    expect(() => percentileInterval([1, Number.NaN])).toThrow(/NaN/);
    expect(() => bcaInterval([], [1])).toThrow(/values is empty/);
  });
});

describe('percentileInterval', () => {
  it("is numpy's linear percentile", () => {
    // np.percentile([1, 2, 3, 4], [2.5, 97.5]) = [1.075, 3.925]
    const r = percentileInterval([4, 1, 3, 2]);
    expect(r.low).toBeCloseTo(1.075, 15);
    expect(r.high).toBeCloseTo(3.925, 15);
    expect(percentileInterval([7])).toEqual({ low: 7, high: 7 });
  });
});

describe('pairedBootstrapCI', () => {
  it('is the bootstrap of the differences, resampling pairs', () => {
    const a = gfsLike(300, 'pa');
    const b = gfsLike(300, 'pb');
    const d = a.map((x, i) => x - (b[i] as number));
    const opts = { method: 'bca' as const, resamples: 3000, seed: 'p' };
    expect(pairedBootstrapCI(a, b, opts)).toEqual(bootstrapCI(d, opts));
  });

  it('rejects a length mismatch and NaN', () => {
    expect(() => pairedBootstrapCI([1, 2], [1], { method: 'bca', seed: 's' })).toThrow(/same length/);
    expect(() => pairedBootstrapCI([1, 2], [1, Number.NaN], { method: 'bca', seed: 's' })).toThrow(
      RangeError,
    );
  });

  it('identical conditions: zero differences, degenerate point at 0', () => {
    const a = gfsLike(50, 'same');
    expect(pairedBootstrapCI(a, a, { method: 'bca', seed: 's' })).toMatchObject({
      low: 0,
      high: 0,
      estimate: 0,
      degenerate: true,
    });
  });
});

describe('clusterBootstrapCI', () => {
  const rows = Array.from({ length: 40 }, (_, q) =>
    Array.from({ length: 1 + (q % 4) }, (_, r) => ({ cluster: `q${q}`, value: ((q * 7 + r * 3) % 5) / 4 })),
  ).flat();

  it('estimate is the row mean; reproducible; contains the estimate', () => {
    const opts = { method: 'bca' as const, resamples: 4000, seed: 'cl' };
    const r = clusterBootstrapCI(rows, opts);
    expect(r.estimate).toBeCloseTo(rows.reduce((s, x) => s + x.value, 0) / rows.length, 15);
    expect(clusterBootstrapCI(rows, opts)).toEqual(r);
    expect(r.low).toBeLessThan(r.estimate);
    expect(r.high).toBeGreaterThan(r.estimate);
  });

  it('keeps a cluster together: wider than the row bootstrap when runs agree within a question', () => {
    const clustered = Array.from({ length: 60 }, (_, q) =>
      Array.from({ length: 5 }, () => ({ cluster: `q${q}`, value: q % 3 === 0 ? 1 : 0 })),
    ).flat();
    const opts = { method: 'percentile' as const, resamples: 4000, seed: 'w' };
    const byCluster = clusterBootstrapCI(clustered, opts);
    const byRow = bootstrapCI(
      clustered.map((r) => r.value),
      opts,
    );
    expect(byCluster.high - byCluster.low).toBeGreaterThan(1.8 * (byRow.high - byRow.low));
  });

  it('one row per cluster is the ordinary bootstrap up to the generator stream (off a grid)', () => {
    const values = offGrid(200, 'one');
    const single = values.map((value, i) => ({ cluster: String(i), value }));
    const opts = { method: 'bca' as const, resamples: 3000, seed: 'same' };
    const a = clusterBootstrapCI(single, opts);
    const b = bootstrapCI(values, opts);
    expect(a.low).toBeCloseTo(b.low, 12);
    expect(a.high).toBeCloseTo(b.high, 12);
  });

  it('a custom statistic sees whole clusters and matches the fast path for the mean', () => {
    const mean = (v: ArrayLike<number>) => {
      let s = 0;
      for (let i = 0; i < v.length; i++) s += v[i] as number;
      return s / v.length;
    };
    const opts = { method: 'bca' as const, resamples: 2000, seed: 'g' };
    const fast = clusterBootstrapCI(rows, opts);
    const general = clusterBootstrapCI(rows, { ...opts, statistic: mean });
    expect(general.low).toBeCloseTo(fast.low, 12);
    expect(general.high).toBeCloseTo(fast.high, 12);
  });

  it('degenerate cases and errors', () => {
    const one = [
      { cluster: 'a', value: 1 },
      { cluster: 'a', value: 0 },
    ];
    expect(clusterBootstrapCI(one, { method: 'bca', seed: 's' })).toMatchObject({
      low: 0.5,
      high: 0.5,
      degenerate: true,
    });
    expect(() => clusterBootstrapCI([], { method: 'bca', seed: 's' })).toThrow(/empty/);
    expect(() =>
      clusterBootstrapCI([{ cluster: 'a', value: Number.NaN }], { method: 'bca', seed: 's' }),
    ).toThrow(RangeError);
  });
});

describe('linearPercentile (the one percentile: bootstrap, latency quantiles, agreement latencies)', () => {
  it('interpolates between order statistics like numpy, and is NaN on no data', () => {
    expect(linearPercentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(linearPercentile([10, 20], 0.95)).toBeCloseTo(19.5, 12);
    expect(linearPercentile([7], 0.3)).toBe(7);
    expect(linearPercentile([], 0.5)).toBeNaN();
  });
});
