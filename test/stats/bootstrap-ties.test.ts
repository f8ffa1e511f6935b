/**
 * BCa on discrete scores against the exact, tie-aware BCa interval. For data on a grid (every value
 * k/D) the bootstrap distribution of the mean is known exactly: the resample's unit sum S is the sum
 * of n draws from the data's units (binomial for two values, an n-fold convolution in general). The
 * B -> infinity BCa interval is then
 *   z0 = Phi^-1(P(S < S0) + P(S = S0) / 2)   (S0 the data's unit sum: ties count one half)
 *   a = sum u^3 / (6 (sum u^2)^(3/2)), u_i = x_i - mean   (the mean's jackknife)
 *   alpha1,2 = Phi(z0 + (z0 +- z)/(1 - a (z0 +- z))), endpoints the exact quantiles Q(alpha1,2) / (nD)
 * and a bootstrap with B resamples must land on it up to its resampling error, computed here: the
 * tie-aware proportion p = P(S < S0) + P(S = S0)/2 is estimated with sd <= sqrt(p (1 - p) / B), and an
 * empirical quantile at level alpha sits within sd sqrt(alpha (1 - alpha) / B) of its level. Allowing
 * 4 sd on both gives a range of levels; the endpoint must lie between the exact quantiles at its ends.
 * Where that range holds one grid value (checked for the headline cases), the test demands that value
 * exactly, and a z0 that counted ties as all above or all below the estimate would miss it.
 */
import { describe, expect, it } from 'vitest';
import { binomialByInversion, scoreGrid } from '../../src/stats/bootstrap.ts';
import { binomialProbability, normalCdf, normalQuantile } from '../../src/stats/distributions.ts';
import { bootstrapCI, clusterBootstrapCI, pairedBootstrapCI } from '../../src/stats/index.ts';

const RESAMPLES = 20_000;
/** the headline case's upper level sits 0.005 above a CDF step: 100,000 resamples keep 4 sd inside */
const HEADLINE_RESAMPLES = 100_000;
const CONFIDENCE = 0.95;
const SIGMAS = 4;

/** pmf of the unit sum of n draws with replacement from `units`: index s - n * min(units). */
function unitSumPmf(units: number[]): { offset: number; pmf: Float64Array } {
  const n = units.length;
  const lo = Math.min(...units);
  const span = Math.max(...units) - lo;
  const one = new Float64Array(span + 1);
  for (const k of units) one[k - lo] = (one[k - lo] as number) + 1 / n;
  const distinct = [...new Set(units)];
  if (distinct.length === 2) {
    // two values: S = n lo + span * K, K ~ Binomial(n, share of the high value), by exact log-factorials
    const p = units.filter((k) => k !== lo).length / n;
    const logFactorial = [0];
    for (let i = 1; i <= n; i++) logFactorial.push((logFactorial[i - 1] as number) + Math.log(i));
    const pmf = new Float64Array(n * span + 1);
    for (let k = 0; k <= n; k++) {
      const logChoose =
        (logFactorial[n] as number) - (logFactorial[k] as number) - (logFactorial[n - k] as number);
      pmf[k * span] = Math.exp(logChoose + k * Math.log(p) + (n - k) * Math.log1p(-p));
    }
    return { offset: n * lo, pmf };
  }
  // general grid: the n-fold convolution of one draw's pmf
  let pmf = Float64Array.of(1);
  for (let draw = 0; draw < n; draw++) {
    const next = new Float64Array(pmf.length + span);
    for (let s = 0; s < pmf.length; s++) {
      const ps = pmf[s] as number;
      if (ps === 0) continue;
      for (let j = 0; j <= span; j++) next[s + j] = (next[s + j] as number) + ps * (one[j] as number);
    }
    pmf = next;
  }
  return { offset: n * lo, pmf };
}

interface Exact {
  /** the tie-aware interval */
  low: number;
  high: number;
  /** the ranges an endpoint may take with B resamples (4 sd) */
  lowRange: [number, number];
  highRange: [number, number];
  /** the intervals a z0 counting ties as all above / all below the estimate gives */
  tiesAbove: [number, number];
  tiesBelow: [number, number];
}

function exactBca(values: number[], resamples: number, confidence: number): Exact {
  const grid = scoreGrid(values);
  if (!grid) throw new Error('not on a grid');
  const units = Array.from(grid.units);
  const n = units.length;
  const scale = n * grid.denominator;
  const { offset, pmf } = unitSumPmf(units);
  const s0 = units.reduce((s, k) => s + k, 0) - offset;
  const cdf = new Float64Array(pmf.length);
  let run = 0;
  for (let s = 0; s < pmf.length; s++) {
    run += pmf[s] as number;
    cdf[s] = run;
  }
  const below = s0 > 0 ? (cdf[s0 - 1] as number) : 0;
  const tie = pmf[s0] as number;
  const quantile = (level: number) => {
    let s = 0;
    while (s < cdf.length - 1 && (cdf[s] as number) < level) s++;
    return (s + offset) / scale;
  };
  const mean = values.reduce((s, x) => s + x, 0) / n;
  let squares = 0;
  let cubes = 0;
  for (const x of values) {
    squares += (x - mean) ** 2;
    cubes += (x - mean) ** 3;
  }
  const a = cubes / (6 * squares ** 1.5);
  const z = normalQuantile((1 - confidence) / 2);
  const levels = (p: number): [number, number] => {
    const z0 = normalQuantile(p);
    const level = (zz: number) => normalCdf(z0 + (z0 + zz) / (1 - a * (z0 + zz)));
    return [level(z), level(-z)];
  };
  const p = below + tie / 2;
  const [alpha1, alpha2] = levels(p);
  const pSd = Math.sqrt((p * (1 - p)) / resamples);
  const [alpha1Low, alpha2Low] = levels(p - SIGMAS * pSd);
  const [alpha1High, alpha2High] = levels(p + SIGMAS * pSd);
  const widen = (lo: number, hi: number): [number, number] => [
    quantile(lo - SIGMAS * Math.sqrt((lo * (1 - lo)) / resamples)),
    quantile(hi + SIGMAS * Math.sqrt((hi * (1 - hi)) / resamples)),
  ];
  const interval = (pp: number): [number, number] => {
    const [l1, l2] = levels(pp);
    return [quantile(l1), quantile(l2)];
  };
  return {
    low: quantile(alpha1),
    high: quantile(alpha2),
    lowRange: widen(alpha1Low, alpha1High),
    highRange: widen(alpha2Low, alpha2High),
    tiesAbove: interval(below),
    tiesBelow: interval(below + tie),
  };
}

function expectWithin(actual: number, [lo, hi]: [number, number], what: string): void {
  const slack = 1e-12;
  if (!(actual >= lo - slack && actual <= hi + slack))
    expect.fail(`${what}: ${actual} outside [${lo}, ${hi}]`);
}

function repeat(value: number, times: number): number[] {
  return Array.from({ length: times }, () => value);
}

/** A fixed interleaving, so no dataset is sorted (the old z0 depended on summation order). */
function interleave(a: number[], b: number[]): number[] {
  const out: number[] = [];
  const step = a.length / Math.max(1, b.length);
  let j = 0;
  a.forEach((x, i) => {
    out.push(x);
    while (j < b.length && i + 1 >= (j + 1) * step) out.push(b[j++] as number);
  });
  return [...out, ...b.slice(j)];
}

const HEADLINE = interleave(repeat(0.4, 38), repeat(1.0, 7));

describe('exact tie-aware BCa on two-valued scores (binomial bootstrap distribution)', () => {
  it('the eager baseline grounded-direct GFS (38 x 0.4, 7 x 1.0): [0.440, 0.573], exactly', () => {
    const exact = exactBca(HEADLINE, HEADLINE_RESAMPLES, CONFIDENCE);
    expect(exact.low).toBeCloseTo(0.44, 12);
    expect(exact.high).toBeCloseTo(0.4 + (0.6 * 13) / 45, 12);
    // the resampling error cannot move either endpoint off its grid value...
    expect(exact.lowRange[0]).toBe(exact.lowRange[1]);
    expect(exact.highRange[0]).toBe(exact.highRange[1]);
    // ...and counting the ties wholly above or below the estimate moves an endpoint by a step
    expect(exact.tiesAbove).not.toEqual([exact.low, exact.high]);
    expect(exact.tiesBelow).not.toEqual([exact.low, exact.high]);
    for (const seed of ['eager', 'grounded-direct', 'run-1', 'run-2', 'run-3']) {
      const r = bootstrapCI(HEADLINE, {
        method: 'bca',
        resamples: HEADLINE_RESAMPLES,
        confidence: CONFIDENCE,
        seed,
      });
      expect(r.low, seed).toBeCloseTo(exact.low, 12);
      expect(r.high, seed).toBeCloseTo(exact.high, 12);
    }
    // the order of the data no longer matters
    const sorted = [...HEADLINE].sort();
    const reversed = [...sorted].reverse();
    const opts = { method: 'bca' as const, resamples: HEADLINE_RESAMPLES, seed: 'order' };
    expect(bootstrapCI(sorted, opts)).toMatchObject({ low: exact.low, high: exact.high });
    expect(bootstrapCI(reversed, opts)).toMatchObject({ low: exact.low, high: exact.high });
  });

  const cases: [string, number[]][] = [
    ['0/1, 9 of 60', interleave(repeat(0, 51), repeat(1, 9))],
    ['quarters, 31 x 0.25 and 9 x 0.75', interleave(repeat(0.25, 31), repeat(0.75, 9))],
    ['tenths, 0.1 and 0.7 (0.1 + 0.2-style rounding)', interleave(repeat(0.1, 70), repeat(0.7, 50))],
    ['n = 400, 310 x 0.35 and 90 x 0.85 (drawn as counts)', interleave(repeat(0.35, 310), repeat(0.85, 90))],
    ['n = 1,000, 0.025 and 0.975, rare high', interleave(repeat(0.025, 960), repeat(0.975, 40))],
  ];
  for (const [name, values] of cases) {
    it(name, () => {
      const exact = exactBca(values, RESAMPLES, CONFIDENCE);
      const r = bootstrapCI(values, { method: 'bca', resamples: RESAMPLES, seed: name });
      expectWithin(r.low, exact.lowRange, 'low');
      expectWithin(r.high, exact.highRange, 'high');
      expect(r.degenerate).toBeUndefined();
    });
  }

  it('paired: differences 1.0 - 0.4 and 0.4 - 0.4 are two-valued; the same exact interval', () => {
    const a = HEADLINE;
    const b = repeat(0.4, a.length);
    const differences = a.map((x, i) => x - (b[i] as number));
    const exact = exactBca(differences, HEADLINE_RESAMPLES, CONFIDENCE);
    expect(exact.lowRange[0]).toBe(exact.lowRange[1]);
    expect(exact.highRange[0]).toBe(exact.highRange[1]);
    const r = pairedBootstrapCI(a, b, { method: 'bca', resamples: HEADLINE_RESAMPLES, seed: 'paired' });
    expect(r.low).toBeCloseTo(exact.low, 12);
    expect(r.high).toBeCloseTo(exact.high, 12);
    expect(r.low).toBeCloseTo(0.04, 12);
  });

  it('cluster: equal clusters whose sums take two values, rows summed in varying order', () => {
    // cluster means 0.4 (rows 0.2, 0.6, 0.4 in rotating order) or 1.0: the mean of 45 cluster means
    const low = [0.2, 0.6, 0.4];
    const rows = HEADLINE.flatMap((m, q) =>
      [0, 1, 2].map((j) => ({
        cluster: `q${q}`,
        value: m === 1 ? 1 : (low[(j + q) % 3] as number),
      })),
    );
    const exact = exactBca(HEADLINE, HEADLINE_RESAMPLES, CONFIDENCE);
    for (const seed of ['gate-1', 'gate-2', 'gate-3']) {
      const r = clusterBootstrapCI(rows, { method: 'bca', resamples: HEADLINE_RESAMPLES, seed });
      expect(r.low, seed).toBeCloseTo(exact.low, 12);
      expect(r.high, seed).toBeCloseTo(exact.high, 12);
    }
  });
});

describe('exact tie-aware BCa on a five-level GFS-like sample (n-fold convolution)', () => {
  it('n = 1,800 on quarters, the bench configuration (drawn as counts)', () => {
    const levels = [0, 0.25, 0.5, 0.75, 1];
    const counts = [330, 370, 350, 380, 370];
    const values = levels.flatMap((v, l) => repeat(v, counts[l] as number));
    // a fixed shuffle (the summation order is irrelevant now, but keep the data unsorted)
    const shuffled = values
      .map((v, i) => ({ v, key: (i * 7919) % values.length }))
      .sort((x, y) => x.key - y.key);
    const data = shuffled.map((x) => x.v);
    const exact = exactBca(data, RESAMPLES, CONFIDENCE);
    const r = bootstrapCI(data, { method: 'bca', resamples: RESAMPLES, seed: 'five levels' });
    expectWithin(r.low, exact.lowRange, 'low');
    expectWithin(r.high, exact.highRange, 'high');
  });

  it('n = 150 on fortieths (GFS primary weights), index draws', () => {
    const data = Array.from({ length: 150 }, (_, i) => {
      const g = i % 3;
      const c = Math.floor(i / 3) % 3;
      const k = Math.floor(i / 9) % 3;
      return (0.4 * g + 0.35 * c + 0.25 * k) / 2;
    });
    expect(scoreGrid(data)?.denominator).toBe(40);
    const exact = exactBca(data, RESAMPLES, CONFIDENCE);
    const r = bootstrapCI(data, { method: 'bca', resamples: RESAMPLES, seed: 'fortieths' });
    expectWithin(r.low, exact.lowRange, 'low');
    expectWithin(r.high, exact.highRange, 'high');
  });
});

describe('scoreGrid', () => {
  it('finds the smallest denominator, absorbing floating-point rounding', () => {
    expect(scoreGrid([0.4, 1, 0.4])).toMatchObject({ denominator: 5, units: Float64Array.of(2, 5, 2) });
    expect(scoreGrid([0.1 + 0.2, 0.7])?.denominator).toBe(10);
    expect(scoreGrid([-0.6, 0, 0.6])).toMatchObject({ denominator: 5, units: Float64Array.of(-3, 0, 3) });
    expect(scoreGrid([0, 1, 3])?.denominator).toBe(1);
  });

  it('is null off a grid', () => {
    expect(scoreGrid([0.1234567, 0.7654321])).toBeNull();
    expect(scoreGrid([Math.PI, 1])).toBeNull();
    expect(scoreGrid([1e300, 1])).toBeNull();
  });
});

describe('binomialByInversion', () => {
  it('gives each value exactly its probability of [0, 1)', () => {
    for (const [trials, p] of [
      [10, 0.3],
      [57, 0.9],
      [400, 0.05],
      [1, 0.5],
    ] as const) {
      const grid = 200_000;
      const hits = new Float64Array(trials + 1);
      for (let i = 0; i < grid; i++) {
        const k = binomialByInversion(trials, p, 1 - p, (i + 0.5) / grid);
        hits[k] = (hits[k] as number) + 1;
      }
      for (let k = 0; k <= trials; k++) {
        const expected = binomialProbability(k, trials, p);
        // the share of a fine grid of u: within one grid cell at each end of the value's interval
        expect(Math.abs((hits[k] as number) / grid - expected), `${trials} ${p} ${k}`).toBeLessThanOrEqual(
          2 / grid,
        );
      }
    }
    expect(binomialByInversion(0, 0.5, 0.5, 0.3)).toBe(0);
    expect(binomialByInversion(12, 1, 0, 0.3)).toBe(12);
  });
});
