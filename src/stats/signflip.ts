/**
 * The paired sign-flip (randomization) test over clusters, and the confidence interval that inverts
 * it: the gate's test (docs/adr/0028-gate-sign-flip.md).
 *
 * Data: rows (cluster, d), d a paired difference (current - baseline) and a cluster a question with its
 * runs. The statistic is the mean of d over rows, T(delta0) = sum_q (u_q - n_q delta0) / N, u_q the sum
 * and n_q the number of cluster q's rows. Under H0, each cluster's total is symmetric about delta0
 * (exchangeable baseline and current runs give this exactly at delta0 = 0: swapping the two runs of a
 * question negates its total), so T's sign-flipped copies sum_q s_q (u_q - n_q delta0) / N, s in
 * {-1, +1}^Q, are equally likely. The p-value is the share of them at least as extreme; its level holds
 * in finite samples, whatever the scores' distribution: no asymptotics, no bootstrap shape.
 *
 * The interval without search. For a sign vector flipping the clusters of a set F,
 * T*(delta0) <= T(delta0) exactly when delta0 <= m_F = sum_F u_q / sum_F n_q, the mean over F's rows
 * (Hartigan 1969, "Using subsample values as typical values", JASA 64: 1303-1317). So the
 * lower-tail p-value at delta0 counts the subsets whose mean is at least delta0, the upper-tail one those
 * whose mean is at most delta0, and the equal-tailed interval's ends are order statistics of the subset
 * means. Exact enumeration of all 2^Q sign vectors when 2^Q <= resamples + 1; otherwise `resamples`
 * seeded random sign vectors, the observed one counted once more, p = (1 + count) / (resamples + 1)
 * (a Monte Carlo randomization test whose level is exact: Phipson and Smyth 2010, SAGMB 9: 39).
 * Excludes 0 at level alpha exactly when the two-sided p-value is at most alpha (both tails at alpha/2).
 */
import { scoreGrid } from './bootstrap.ts';
import { resamplingState, xoshiro128ss } from './resampling.ts';
import { assertArray } from './validate.ts';

export interface SignFlipOptions {
  /** random sign vectors when 2^clusters > resamples + 1; default 9999 */
  resamples?: number;
  /** default 0.95; the interval is equal-tailed, alpha / 2 in each tail */
  confidence?: number;
  /** seeds the sign vectors (seedrandom's Alea, then xoshiro128**: src/stats/resampling.ts) */
  seed: string;
  /**
   * the range the mean can take (e.g. [-1, 1] for GFS differences): an end the test cannot reach
   * (too few clusters for the level) is reported as this bound rather than as an infinity
   */
  bounds?: readonly [number, number];
}

export interface SignFlipResult {
  /** the mean of d over all rows */
  estimate: number;
  low: number;
  high: number;
  /** two-sided: 2 min(lower tail, upper tail), at most 1 */
  pValue: number;
  /** the lower tail at 0: small when the mean is below 0 (a regression) */
  pLower: number;
  /** the upper tail at 0: small when the mean is above 0 */
  pUpper: number;
  clusters: number;
  /** all 2^clusters sign vectors enumerated (no Monte Carlo error) */
  exact: boolean;
  /** sign vectors drawn (or enumerated, the identity left out) */
  resamples: number;
  seed: string;
  confidence: number;
  /** every d equal (on the score grid when there is one): a point interval */
  degenerate: boolean;
  /** an end the test cannot reach at this level (too few clusters): reported as `bounds` or an infinity */
  unbounded: boolean;
}

const DEFAULT_RESAMPLES = 9999;

/**
 * Each cluster's sum and number of rows, in order of first appearance. On a score grid (GFS lies on
 * 1/80, `scoreGrid`) the sums are in integer units of 1/scale, so subset sums are exact and a subset
 * whose mean is mathematically 0 (or equal to another's) computes as exactly that: ties are exact.
 */
function clusterTotals(rows: readonly { cluster: string; value: number }[]): {
  u: number[];
  n: number[];
  scale: number;
  allEqual: boolean;
} {
  const index = new Map<string, number>();
  const u: number[] = [];
  const n: number[] = [];
  rows.forEach((row, i) => {
    if (row === null || typeof row !== 'object')
      throw new TypeError(`signFlipTest: rows[${i}] is not an object`);
    if (typeof row.cluster !== 'string')
      throw new TypeError(`signFlipTest: rows[${i}].cluster must be a string`);
    if (typeof row.value !== 'number' || !Number.isFinite(row.value))
      throw new RangeError(
        `signFlipTest: rows[${i}].value must be a finite number, got ${String(row.value)}`,
      );
    let c = index.get(row.cluster);
    if (c === undefined) {
      c = u.length;
      index.set(row.cluster, c);
      u.push(0);
      n.push(0);
    }
    n[c] = (n[c] as number) + 1;
  });
  const grid = scoreGrid(rows.map((r) => r.value));
  rows.forEach((row, i) => {
    const c = index.get(row.cluster) as number;
    u[c] = (u[c] as number) + (grid ? (grid.units[i] as number) : row.value);
  });
  // every value equal (on the grid, in its units: 0.85 - 1.05 and 0.765 - 0.965 are one change)
  const units = grid ? grid.units : rows.map((r) => r.value);
  const allEqual = Array.prototype.every.call(units, (x: number) => x === units[0]);
  return { u, n, scale: grid ? grid.denominator : 1, allEqual };
}

/**
 * The mean over the flipped clusters of each sign vector (all non-empty subsets when `exact`, else
 * `draws` seeded ones); a drawn vector that flips nothing (the identity again) is counted in `identity`.
 */
function subsetMeans(
  u: readonly number[],
  n: readonly number[],
  scale: number,
  draws: number,
  exact: boolean,
  seed: string,
): { means: Float64Array; identity: number } {
  const q = u.length;
  if (exact) {
    const total = 2 ** q - 1;
    const means = new Float64Array(total);
    for (let mask = 1; mask <= total; mask++) {
      let s = 0;
      let m = 0;
      for (let c = 0; c < q; c++)
        if (mask & (1 << c)) {
          s += u[c] as number;
          m += n[c] as number;
        }
      means[mask - 1] = s / (m * scale);
    }
    return { means, identity: 0 };
  }
  const state = resamplingState(seed);
  const out: number[] = [];
  let identity = 0;
  for (let j = 0; j < draws; j++) {
    let s = 0;
    let m = 0;
    for (let c = 0; c < q; c += 32) {
      const bits = xoshiro128ss(state, 0);
      const end = Math.min(32, q - c);
      for (let b = 0; b < end; b++)
        if (bits & (1 << b)) {
          s += u[c + b] as number;
          m += n[c + b] as number;
        }
    }
    if (m === 0) identity++;
    else out.push(s / (m * scale));
  }
  return { means: Float64Array.from(out), identity };
}

function resolve(opts: SignFlipOptions): { resamples: number; confidence: number } {
  if (opts === null || typeof opts !== 'object' || typeof opts.seed !== 'string')
    throw new TypeError('signFlipTest: options with a string seed are required');
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const confidence = opts.confidence ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`signFlipTest: resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`signFlipTest: confidence must be in (0, 1), got ${confidence}`);
  return { resamples, confidence };
}

/**
 * The sign-flip test of "the mean of d is 0" over clusters and the equal-tailed interval that inverts it
 * (see the module comment). Throws RangeError/TypeError for no rows, a non-string cluster, a non-finite
 * value or bad options.
 */
export function signFlipTest(
  rows: readonly { cluster: string; value: number }[],
  opts: SignFlipOptions,
): SignFlipResult {
  assertArray('signFlipTest', 'rows', rows);
  if (rows.length === 0) throw new RangeError('signFlipTest: rows is empty');
  const { resamples, confidence } = resolve(opts);
  const { u, n, scale, allEqual } = clusterTotals(rows);
  const q = u.length;
  const estimate = u.reduce((s, x) => s + x, 0) / (rows.length * scale);
  const exact = q <= 30 && 2 ** q <= resamples + 1;
  const { means, identity } = subsetMeans(u, n, scale, resamples, exact, opts.seed);
  means.sort();
  const denominator = exact ? 2 ** q : resamples + 1;
  const always = 1 + identity;
  // count(mean >= x) and count(mean <= x) over the sorted subset means
  const atLeast = (x: number) => means.length - lowerBound(means, x);
  const atMost = (x: number) => upperBound(means, x);
  const pLower = Math.min(1, (always + atLeast(0)) / denominator);
  const pUpper = Math.min(1, (always + atMost(0)) / denominator);
  // an end rejects while always + count <= K: K = floor(alpha/2 * denominator)
  const k = Math.floor(((1 - confidence) / 2) * denominator + 1e-9) - always;
  const [lo, hi] = opts.bounds ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  const reachable = k >= 0 && means.length >= k + 1;
  const degenerate = allEqual;
  return {
    estimate,
    low: degenerate ? estimate : reachable ? (means[k] as number) : lo,
    high: degenerate ? estimate : reachable ? (means[means.length - 1 - k] as number) : hi,
    pValue: Math.min(1, 2 * Math.min(pLower, pUpper)),
    pLower,
    pUpper,
    clusters: q,
    exact,
    resamples: exact ? denominator - 1 : resamples,
    seed: opts.seed,
    confidence,
    degenerate,
    unbounded: !degenerate && !reachable,
  };
}

/** The first index whose value is >= x (xs sorted ascending). */
function lowerBound(xs: Float64Array, x: number): number {
  let a = 0;
  let b = xs.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if ((xs[m] as number) < x) a = m + 1;
    else b = m;
  }
  return a;
}

/** The number of values <= x (xs sorted ascending). */
function upperBound(xs: Float64Array, x: number): number {
  let a = 0;
  let b = xs.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if ((xs[m] as number) <= x) a = m + 1;
    else b = m;
  }
  return a;
}
