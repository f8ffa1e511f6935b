/**
 * The bootstrap: one-sample, paired and cluster resampling of a mean (or a custom statistic) and the
 * interval of the distribution drawn. What is left here is one algorithm, the resampling kernels and
 * their fast paths (sums of grid units, sums by level counts, sums drawn from the sum's distribution,
 * cluster sums), which share the options,
 * the tie handling and `finish`; the near-copies among the kernels are kept apart on purpose (each
 * inner loop is specialised for speed). The intervals from a drawn distribution are in
 * src/stats/intervals.ts, the seeded generator in src/stats/resampling.ts.
 */
import { binomialProbability } from './distributions.ts';
import { bcaFromParts, influenceFromJackknife, meanInfluence, meanOf } from './intervals.ts';
import { linearPercentile } from './percentile.ts';
import { resamplingState, resamplingStreams, UINT32_UNIT, uniform53 } from './resampling.ts';
import { drawSums, type GridLevels, sumDistribution, sumDistributionSize } from './sum-distribution.ts';
import { assertArray, assertFiniteNumbers, assertSameLength, tailAlpha } from './validate.ts';

export interface BootstrapOptions {
  method: 'bca' | 'percentile';
  /** number of bootstrap resamples B; default 9999, as scipy.stats.bootstrap */
  resamples?: number;
  /** default 0.95 */
  confidence?: number;
  /** seeds seedrandom's Alea generator (two streams); the same seed gives the same interval, bit for bit */
  seed: string;
  /**
   * default: the mean (fast path, resampling the sum). A custom statistic receives a reused buffer:
   * it may reorder it (e.g. sort it for a median) but must not keep it. It must return a finite number.
   */
  statistic?: (xs: ArrayLike<number>) => number;
}

export interface BootstrapResult {
  low: number;
  high: number;
  /** the statistic on the original data */
  estimate: number;
  /** the method asked for: 'bca' or 'percentile' */
  method: string;
  resamples: number;
  seed: string;
  /** set when the interval could not be computed as asked; see `bootstrapCI` */
  degenerate?: boolean;
}

const DEFAULT_RESAMPLES = 9999;

interface Resolved {
  method: 'bca' | 'percentile';
  resamples: number;
  alpha: number;
  seed: string;
}

function resolveOptions(fn: string, opts: BootstrapOptions): Resolved {
  if (opts === null || typeof opts !== 'object') throw new TypeError(`${fn}: options are required`);
  const { method, seed } = opts;
  if (method !== 'bca' && method !== 'percentile') {
    throw new RangeError(`${fn}: method must be 'bca' or 'percentile', got ${String(method)}`);
  }
  if (typeof seed !== 'string') throw new TypeError(`${fn}: seed must be a string`);
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`${fn}: resamples must be a positive integer, got ${resamples}`);
  }
  if (opts.statistic !== undefined && typeof opts.statistic !== 'function') {
    throw new TypeError(`${fn}: statistic must be a function`);
  }
  return { method, resamples, alpha: tailAlpha(fn, opts.confidence), seed };
}

/** The largest denominator `scoreGrid` tries: GFS on panels of up to three judges lies on 1/240. */
const MAX_GRID_DENOMINATOR = 4096;
/** How far (relative to max(1, |k|)) a value may lie from k/D and still count as on the grid. */
const GRID_TOLERANCE = 1e-9;

/**
 * The score grid of `xs`: the smallest denominator D <= 4096 such that every value is k/D for an
 * integer k (within 1e-9 relative, which absorbs the rounding of scores computed in floating point,
 * e.g. 0.4 * 2 + 0.35), with those integers `units[i] = k_i`; null when there is none, or when
 * sum |k_i| reaches 2^53 (integer sums would no longer be exact). Sums of units are exact integers in
 * any order, so resample means computed as (sum of units) / (n D) are the correctly rounded values of
 * the exact means: equal means give equal doubles, which is what makes BCa's ties exact.
 */
export function scoreGrid(xs: ArrayLike<number>): { denominator: number; units: Float64Array } | null {
  const sorted = Float64Array.from(xs).sort();
  const distinct: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) distinct.push(sorted[i] as number);
  }
  search: for (let d = 1; d <= MAX_GRID_DENOMINATOR; d++) {
    for (const v of distinct) {
      const y = v * d;
      const k = Math.round(y);
      if (!(Math.abs(y - k) <= GRID_TOLERANCE * Math.max(1, Math.abs(k)))) continue search;
    }
    const units = new Float64Array(xs.length);
    let total = 0;
    for (let i = 0; i < xs.length; i++) {
      const k = Math.round((xs[i] as number) * d);
      units[i] = k;
      total += Math.abs(k);
    }
    return total < 2 ** 53 ? { denominator: d, units } : null;
  }
  return null;
}

/**
 * A tie tolerance for statistics summed in floating point: any summation of m terms of magnitude at
 * most `scale` is within (m - 1) u m scale of the exact sum (u = 2^-53, Higham, Accuracy and Stability
 * of Numerical Algorithms, 2nd ed., eq. 4.4), so a mean is within about m u scale of its exact value and
 * two means that are equal mathematically differ by at most 2 m u scale = m eps scale. Twice that.
 */
function summationTolerance(terms: number, scale: number): number {
  return 2 * terms * Number.EPSILON * scale;
}

function maxAbs(xs: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < xs.length; i++) m = Math.max(m, Math.abs(xs[i] as number));
  return m;
}

/**
 * out[r] = the sum over positions i < n of terms[floor(u n)], u the next draw of the even stream for
 * even i and of the odd stream for odd i (`resamplingStreams`), resample after resample; terms summed
 * by stream, then added. The generator is inlined: its state lives in eight local integers.
 */
function resampleSums(terms: Float64Array, state: Int32Array, out: Float64Array): void {
  const n = terms.length;
  const scale = n * UINT32_UNIT;
  const pairs = n >> 1;
  const last = n & 1;
  let a0 = state[0] as number;
  let a1 = state[1] as number;
  let a2 = state[2] as number;
  let a3 = state[3] as number;
  let b0 = state[4] as number;
  let b1 = state[5] as number;
  let b2 = state[6] as number;
  let b3 = state[7] as number;
  for (let r = 0; r < out.length; r++) {
    let sumEven = 0;
    let sumOdd = 0;
    for (let p = 0; p < pairs; p++) {
      const x = Math.imul(a1, 5);
      const y = Math.imul(b1, 5);
      const ra = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
      const rb = Math.imul((y << 7) | (y >>> 25), 9) >>> 0;
      const ta = a1 << 9;
      const tb = b1 << 9;
      a2 ^= a0;
      b2 ^= b0;
      a3 ^= a1;
      b3 ^= b1;
      a1 ^= a2;
      b1 ^= b2;
      a0 ^= a3;
      b0 ^= b3;
      a2 ^= ta;
      b2 ^= tb;
      a3 = (a3 << 11) | (a3 >>> 21);
      b3 = (b3 << 11) | (b3 >>> 21);
      sumEven += terms[(ra * scale) | 0] as number;
      sumOdd += terms[(rb * scale) | 0] as number;
    }
    if (last) {
      const x = Math.imul(a1, 5);
      const ra = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
      const ta = a1 << 9;
      a2 ^= a0;
      a3 ^= a1;
      a1 ^= a2;
      a0 ^= a3;
      a2 ^= ta;
      a3 = (a3 << 11) | (a3 >>> 21);
      sumEven += terms[(ra * scale) | 0] as number;
    }
    out[r] = sumEven + sumOdd;
  }
}

/**
 * Cluster resamples: for each resample, k clusters drawn as floor(u k) (even j from the even stream,
 * odd j from the odd one, as `resampleSums`); outSums[r] = the sum of the drawn clusters' sums,
 * outSizes[r] = the sum of their sizes.
 */
function resampleClusterSums(
  sums: Float64Array,
  sizes: Float64Array,
  state: Int32Array,
  outSums: Float64Array,
  outSizes: Float64Array,
): void {
  const k = sums.length;
  const scale = k * UINT32_UNIT;
  const pairs = k >> 1;
  const last = k & 1;
  let a0 = state[0] as number;
  let a1 = state[1] as number;
  let a2 = state[2] as number;
  let a3 = state[3] as number;
  let b0 = state[4] as number;
  let b1 = state[5] as number;
  let b2 = state[6] as number;
  let b3 = state[7] as number;
  for (let r = 0; r < outSums.length; r++) {
    let sumEven = 0;
    let sumOdd = 0;
    let size = 0;
    for (let p = 0; p < pairs; p++) {
      const x = Math.imul(a1, 5);
      const y = Math.imul(b1, 5);
      const ra = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
      const rb = Math.imul((y << 7) | (y >>> 25), 9) >>> 0;
      const ta = a1 << 9;
      const tb = b1 << 9;
      a2 ^= a0;
      b2 ^= b0;
      a3 ^= a1;
      b3 ^= b1;
      a1 ^= a2;
      b1 ^= b2;
      a0 ^= a3;
      b0 ^= b3;
      a2 ^= ta;
      b2 ^= tb;
      a3 = (a3 << 11) | (a3 >>> 21);
      b3 = (b3 << 11) | (b3 >>> 21);
      const c0 = (ra * scale) | 0;
      const c1 = (rb * scale) | 0;
      sumEven += sums[c0] as number;
      sumOdd += sums[c1] as number;
      size += (sizes[c0] as number) + (sizes[c1] as number);
    }
    if (last) {
      const x = Math.imul(a1, 5);
      const ra = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
      const ta = a1 << 9;
      a2 ^= a0;
      a3 ^= a1;
      a1 ^= a2;
      a0 ^= a3;
      a2 ^= ta;
      a3 = (a3 << 11) | (a3 >>> 21);
      const c0 = (ra * scale) | 0;
      sumEven += sums[c0] as number;
      size += sizes[c0] as number;
    }
    outSums[r] = sumEven + sumOdd;
    outSizes[r] = size;
  }
}

/**
 * A draw of Binomial(trials, p) (q = 1 - p) by inversion of `u` in [0, 1), visiting the values from the
 * mode outwards (mode, mode + 1, mode - 1, mode + 2, ...): u falls in the value whose probability,
 * taken in that order, covers it. Each value gets exactly its probability's share of [0, 1), up to
 * the pmf's rounding (Loader's expansion at the mode, ~1e-15 relative, then exact ratios), so it is
 * the binomial distribution; the search takes about 1.6 standard deviations of steps. Should rounding
 * leave u above the total mass (chance ~1e-13), the mode is returned.
 */
export function binomialByInversion(trials: number, p: number, q: number, u: number): number {
  if (trials === 0 || p === 0) return 0;
  if (q === 0) return trials;
  const mode = Math.min(trials, Math.floor((trials + 1) * p));
  const odds = p / q;
  let fHigh = binomialProbability(mode, trials, p, q);
  let fLow = fHigh;
  let rest = u - fHigh;
  if (rest < 0) return mode;
  let high = mode;
  let low = mode;
  while (high < trials || low > 0) {
    if (high < trials) {
      fHigh *= ((trials - high) / (high + 1)) * odds;
      high++;
      rest -= fHigh;
      if (rest < 0) return high;
    }
    if (low > 0) {
      fLow *= low / (trials - low + 1) / odds;
      low--;
      rest -= fLow;
      if (rest < 0) return low;
    }
  }
  return mode;
}

/**
 * Resample sums of integer units drawn as counts: a resample of n items drawn with replacement from
 * data holding `counts[l]` copies of `units[l]` has level counts Multinomial(n, counts / n), drawn as
 * conditional binomials (level l: Binomial(items left, counts[l] / copies left at levels >= l)), each
 * by `binomialByInversion` of the next draw of `uniform`. The same distribution as n index draws at
 * O(levels sqrt n) instead of O(n) per resample; the sums are exact integers.
 */
function resampleSumsByCounts(
  units: Float64Array,
  counts: Float64Array,
  uniform: () => number,
  out: Float64Array,
): void {
  const levels = units.length;
  const copiesFrom = new Float64Array(levels + 1);
  for (let l = levels - 1; l >= 0; l--) copiesFrom[l] = (copiesFrom[l + 1] as number) + (counts[l] as number);
  const n = copiesFrom[0] as number;
  for (let r = 0; r < out.length; r++) {
    let left = n;
    let sum = 0;
    for (let l = 0; l < levels - 1 && left > 0; l++) {
      const copies = copiesFrom[l] as number;
      const here = counts[l] as number;
      const drawn = binomialByInversion(left, here / copies, (copies - here) / copies, uniform());
      sum += drawn * (units[l] as number);
      left -= drawn;
    }
    out[r] = sum + left * (units[levels - 1] as number);
  }
}

/** The distinct integer units of a grid, ascending, with their counts. */
function gridLevels(units: Float64Array): GridLevels {
  const sorted = Float64Array.from(units).sort();
  const distinct: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0 && sorted[i] === sorted[i - 1]) counts[counts.length - 1] = (counts.at(-1) as number) + 1;
    else {
      distinct.push(sorted[i] as number);
      counts.push(1);
    }
  }
  return { units: Float64Array.from(distinct), counts: Float64Array.from(counts) };
}

/** How a grid's resample sums are drawn: n indices each, level counts, or from the sum's distribution. */
type GridKernel = 'indices' | 'counts' | 'distribution';

/**
 * The cheapest way to draw B resample sums of a grid, in units of one index draw (measured on two
 * cores, bench/stats.bench.ts): n index draws a resample; about (levels - 1)(16 + sqrt n) steps of the
 * binomial search, four index draws' worth each; or the sum's distribution, N (log2 N + 40) for its
 * table of size N (two transforms and N/2 complex powers) then log2 N + 8 a resample for the search.
 */
function gridKernel(levels: GridLevels, n: number, resamples: number): GridKernel {
  const byIndices = resamples * n;
  const byCounts = resamples * 4 * (levels.units.length - 1) * (16 + Math.sqrt(n));
  const size = sumDistributionSize(levels);
  const byDistribution = size * (Math.log2(size) + 40) + resamples * (Math.log2(size) + 8);
  if (byDistribution <= byIndices && byDistribution <= byCounts) return 'distribution';
  return byCounts < byIndices ? 'counts' : 'indices';
}

function checkStatistic(fn: string, value: number, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RangeError(`${fn}: the statistic returned ${String(value)} on ${where}`);
  }
  return value;
}

/**
 * How z0 tells ties: the estimate to compare resamples with (on the grid, the grid mean, computed as
 * the resamples are) and the tolerance, fixed or from the scale of the sorted distribution.
 */
interface Ties {
  estimate: number;
  tolerance: number | ((sorted: Float64Array) => number);
}

function finish(
  fn: string,
  r: Resolved,
  estimate: number,
  dist: Float64Array,
  influence: () => Float64Array,
  ties: Ties,
): BootstrapResult {
  for (let i = 0; i < dist.length; i++) checkStatistic(fn, dist[i] as number, `resample ${i}`);
  const sorted = dist.sort();
  const base = { estimate, method: r.method, resamples: r.resamples, seed: r.seed };
  if (sorted[0] === sorted[sorted.length - 1]) {
    const only = sorted[0] as number;
    return { low: only, high: only, ...base, degenerate: true };
  }
  if (r.method === 'percentile') {
    return { low: linearPercentile(sorted, r.alpha), high: linearPercentile(sorted, 1 - r.alpha), ...base };
  }
  const tolerance = typeof ties.tolerance === 'number' ? ties.tolerance : ties.tolerance(sorted);
  const bca = bcaFromParts(sorted, ties.estimate, influence(), r.alpha, tolerance);
  return { low: bca.low, high: bca.high, ...base, ...(bca.degenerate ? { degenerate: true } : {}) };
}

function allEqual(xs: Float64Array): boolean {
  const first = xs[0] as number;
  for (let i = 1; i < xs.length; i++) if (xs[i] !== first) return false;
  return true;
}

/** Ties for a custom statistic: m summed terms of the data's or the statistic's magnitude. */
function customTies(estimate: number, terms: number, data: Float64Array): Ties {
  const dataScale = Math.max(maxAbs(data), Math.abs(estimate));
  return {
    estimate,
    tolerance: (sorted) => {
      const scale = Math.max(
        dataScale,
        Math.abs(sorted[0] as number),
        Math.abs(sorted[sorted.length - 1] as number),
      );
      return summationTolerance(terms, scale);
    },
  };
}

/** Bootstrap of a one-sample statistic over `xs` (already validated). */
function bootstrapSample(
  fn: string,
  xs: Float64Array,
  r: Resolved,
  statistic?: (xs: ArrayLike<number>) => number,
) {
  const n = xs.length;
  // the statistic gets a copy of the data, so one that sorts its input in place cannot disturb it
  const estimate = statistic ? checkStatistic(fn, statistic(xs.slice()), 'the data') : meanOf(xs);
  const base = { estimate, method: r.method, resamples: r.resamples, seed: r.seed };
  if (allEqual(xs)) return { low: estimate, high: estimate, ...base, degenerate: true };

  const dist = new Float64Array(r.resamples);
  if (!statistic) {
    const influence = () => meanInfluence(xs, estimate);
    const grid = scoreGrid(xs);
    if (grid) {
      // exact integer sums: resample means and the estimate rounded once each, so ties are exact
      const levels = gridLevels(grid.units);
      const kernel = gridKernel(levels, n, r.resamples);
      if (kernel === 'distribution') {
        const state = resamplingState(r.seed);
        drawSums(sumDistribution(levels), () => uniform53(state, 0), dist);
      } else if (kernel === 'counts') {
        resampleSumsByCounts(levels.units, levels.counts, resamplingStreams(r.seed)[0], dist);
      } else resampleSums(grid.units, resamplingState(r.seed), dist);
      const denominator = n * grid.denominator;
      for (let b = 0; b < dist.length; b++) dist[b] = (dist[b] as number) / denominator;
      let units = 0;
      for (let i = 0; i < n; i++) units += grid.units[i] as number;
      return finish(fn, r, estimate, dist, influence, { estimate: units / denominator, tolerance: 0 });
    }
    resampleSums(xs, resamplingState(r.seed), dist);
    for (let b = 0; b < dist.length; b++) dist[b] = (dist[b] as number) / n;
    return finish(fn, r, estimate, dist, influence, {
      estimate,
      tolerance: summationTolerance(n, maxAbs(xs)),
    });
  }
  const [even, odd] = resamplingStreams(r.seed);
  const buffer = new Float64Array(n);
  for (let b = 0; b < r.resamples; b++) {
    for (let i = 0; i < n; i++) buffer[i] = xs[((i & 1 ? odd() : even()) * n) | 0] as number;
    dist[b] = statistic(buffer);
  }
  return finish(
    fn,
    r,
    estimate,
    dist,
    () => {
      const jackknife = new Float64Array(n);
      const leaveOut = new Float64Array(n - 1);
      for (let i = 0; i < n; i++) {
        leaveOut.set(xs.subarray(0, i), 0);
        leaveOut.set(xs.subarray(i + 1), i);
        jackknife[i] = checkStatistic(fn, statistic(leaveOut), `the jackknife sample without item ${i}`);
      }
      return influenceFromJackknife(jackknife);
    },
    customTies(estimate, n, xs),
  );
}

/**
 * Bootstrap confidence interval of a statistic (default the mean) of one sample, as
 * `scipy.stats.bootstrap((values,), statistic, method='BCa' | 'percentile')` (scipy 1.10.1):
 * B resamples of n items drawn with replacement, then `percentileInterval` or the BCa interval of
 * `bcaInterval` (z0 with ties counted one half, jackknife acceleration, numpy linear percentiles).
 *
 * Resampling: two xoshiro128** streams seeded from seedrandom's Alea generator on `seed`
 * (`resamplingState`, `resamplingStreams`): item i of each resample is xs[floor(u * n)] with u the
 * next draw of the even stream for even i and of the odd stream for odd i, resample by resample; so
 * the same seed, data and options give the same interval bit for bit (not the same draws as numpy, so
 * endpoints agree with scipy statistically, not exactly). Until rge 0.x (issue 11) the streams were
 * seedrandom.alea(seed) and alea(`${seed}:odd`) themselves: intervals changed by resampling noise.
 * For the default mean on a score grid the cheapest of three kernels draws the resample sums
 * (`gridKernel`): n indices as above, the level counts (conditional binomials from the even stream),
 * or each sum drawn from the sum's distribution computed once (src/stats/sum-distribution.ts; a
 * 53-bit uniform from the even stream per resample). All three draw from the same bootstrap
 * distribution; on GFS data (a 0.025 grid, n = 1,800) the last is an order of magnitude cheaper than
 * n index draws (bench/stats.bench.ts). Until issue 22 the last did not exist: intervals on grid data
 * changed by resampling noise.
 *
 * Ties (BCa's z0 counts resamples equal to the estimate one half): they are decided exactly, not by
 * the order of floating-point summation. The default mean on data lying on a score grid (every value
 * k/D, `scoreGrid`) sums the integers k exactly and divides once, so a resample mean equals the
 * estimate exactly when it does mathematically; off a grid, and for a custom statistic, a resample
 * within a summation-error bound of the estimate (2 m eps scale, m the number of values, scale the
 * largest magnitude of data and statistic) counts as a tie. scipy 1.10.1 compares floating-point sums
 * with `<` and `<=`, so on discrete data its z0 (and with it an endpoint) can differ by a tie's
 * weight from the exact one, depending on the order of the data.
 *
 * The default mean resamples sums into a typed array, with no allocation and no call per draw; a
 * custom `statistic` gets a reused buffer.
 *
 * Degenerate cases (never NaN, never a throw): all values equal gives the point interval
 * [estimate, estimate] with `degenerate: true` (scipy returns NaN for BCa); a bootstrap distribution
 * with a single value gives that point, `degenerate: true`; where BCa is undefined (distribution all on
 * one side of the estimate, zero jackknife spread) the percentile endpoints with `degenerate: true`.
 * `method` is the method asked for. Throws RangeError/TypeError for empty or non-finite values, bad
 * options, or a statistic returning NaN or an infinity.
 */
export function bootstrapCI(values: readonly number[], opts: BootstrapOptions): BootstrapResult {
  const fn = 'bootstrapCI';
  assertFiniteNumbers(fn, 'values', values);
  const r = resolveOptions(fn, opts);
  return bootstrapSample(fn, Float64Array.from(values), r, opts.statistic);
}

/**
 * Bootstrap CI of mean(a - b) for paired data (the same items under two conditions), resampling pairs:
 * as `scipy.stats.bootstrap((a, b), lambda a, b: mean(a - b), paired=True)`, which for this statistic
 * is `bootstrapCI` on the differences a_i - b_i (the jackknife leaves out one pair). A custom
 * `statistic` receives the resampled differences. Options, determinism, ties and degenerate cases as
 * `bootstrapCI` (differences of scores on a grid lie on the same grid). Throws RangeError when a and b
 * differ in length, are empty, or hold non-finite values.
 */
export function pairedBootstrapCI(
  a: readonly number[],
  b: readonly number[],
  opts: BootstrapOptions,
): BootstrapResult {
  const fn = 'pairedBootstrapCI';
  assertFiniteNumbers(fn, 'a', a);
  assertFiniteNumbers(fn, 'b', b);
  assertSameLength(fn, a, b);
  const r = resolveOptions(fn, opts);
  const differences = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) differences[i] = (a[i] as number) - (b[i] as number);
  return bootstrapSample(fn, differences, r, opts.statistic);
}

/**
 * Cluster bootstrap CI (clusters are questions, rows their runs): each resample draws as many clusters
 * as there are, with replacement, and keeps all rows of each drawn cluster. The default statistic is
 * the mean over all rows of the resample (sum of the drawn clusters' sums over the sum of their
 * sizes), so unequal cluster sizes weight rows equally; a custom statistic's estimate sees the rows
 * grouped by cluster (clusters in order of first appearance). BCa's acceleration is the cluster-level
 * jackknife (leave one cluster out), as `scipy.stats.bootstrap((sums, sizes), ratio, paired=True,
 * method='BCa')` over per-cluster sums and sizes, against which it is checked. A custom `statistic`
 * receives the values of the resample's rows, clusters in drawn order and rows in input order.
 *
 * Resampling draws the j-th cluster of a resample as floor(u * K) from the two streams of
 * `bootstrapCI` (even j: the even stream, odd j: the odd one), clusters numbered in order of first
 * appearance. Ties as `bootstrapCI`: on a score grid the resample mean is (sum of the drawn clusters'
 * integer unit sums) / (D * rows drawn), one rounding of the exact ratio, so a resample whose mean
 * equals the estimate mathematically equals it exactly; off a grid, within the summation-error bound
 * for the largest resample. Degenerate cases as `bootstrapCI`: a single cluster, or all values equal,
 * gives the point interval with `degenerate: true`. Throws RangeError/TypeError for no rows, a
 * non-string cluster or a non-finite value.
 */
export function clusterBootstrapCI(
  rows: readonly { cluster: string; value: number }[],
  opts: BootstrapOptions,
): BootstrapResult {
  const fn = 'clusterBootstrapCI';
  assertArray(fn, 'rows', rows);
  if (rows.length === 0) throw new RangeError(`${fn}: rows is empty`);
  const r = resolveOptions(fn, opts);
  const clusters = clustersOf(fn, rows);
  const statistic = opts.statistic;
  const estimate = statistic
    ? checkStatistic(fn, statistic(clusters.grouped.slice()), 'the data')
    : meanOf(clusters.values);
  const base = { estimate, method: r.method, resamples: r.resamples, seed: r.seed };
  if (clusters.sums.length < 2 || allEqual(clusters.values))
    return { low: estimate, high: estimate, ...base, degenerate: true };
  return statistic
    ? clusterStatisticCI(fn, r, clusters, estimate, statistic)
    : clusterMeanCI(fn, r, clusters, estimate);
}

/** Rows grouped by cluster, clusters numbered in order of first appearance. */
interface Clusters {
  /** the rows' values in input order */
  values: Float64Array;
  /** the values regrouped cluster by cluster: offsets[c]..offsets[c + 1] are cluster c's rows */
  grouped: Float64Array;
  offsets: Int32Array;
  /** each cluster's sum and number of rows */
  sums: Float64Array;
  sizes: Float64Array;
  /** the most rows of a cluster */
  largest: number;
}

/** Checks each row (an object, a string cluster, a finite value) and groups the rows by cluster. */
function clustersOf(fn: string, rows: readonly { cluster: string; value: number }[]): Clusters {
  const clusterIndex = new Map<string, number>();
  const members: number[][] = [];
  const values = new Float64Array(rows.length);
  rows.forEach((row, i) => {
    if (row === null || typeof row !== 'object') throw new TypeError(`${fn}: rows[${i}] is not an object`);
    if (typeof row.cluster !== 'string') throw new TypeError(`${fn}: rows[${i}].cluster must be a string`);
    if (typeof row.value !== 'number' || !Number.isFinite(row.value)) {
      throw new RangeError(`${fn}: rows[${i}].value must be a finite number, got ${String(row.value)}`);
    }
    values[i] = row.value;
    let c = clusterIndex.get(row.cluster);
    if (c === undefined) {
      c = members.length;
      clusterIndex.set(row.cluster, c);
      members.push([]);
    }
    (members[c] as number[]).push(i);
  });
  const k = members.length;
  const grouped = new Float64Array(rows.length);
  const offsets = new Int32Array(k + 1);
  const sums = new Float64Array(k);
  const sizes = new Float64Array(k);
  let at = 0;
  for (let c = 0; c < k; c++) {
    offsets[c] = at;
    for (const i of members[c] as number[]) {
      grouped[at++] = values[i] as number;
      sums[c] = (sums[c] as number) + (values[i] as number);
    }
    sizes[c] = (members[c] as number[]).length;
  }
  offsets[k] = at;
  let largest = 0;
  for (let c = 0; c < k; c++) largest = Math.max(largest, sizes[c] as number);
  return { values, grouped, offsets, sums, sizes, largest };
}

/**
 * The default statistic, the mean over all rows: each resample's sum of the drawn clusters' sums over
 * the sum of their sizes (`resampleClusterSums`), in integer units on a score grid (exact ties); the
 * cluster-level jackknife gives the acceleration.
 */
function clusterMeanCI(fn: string, r: Resolved, clusters: Clusters, estimate: number): BootstrapResult {
  const { values, grouped, offsets, sums, sizes, largest } = clusters;
  const k = sums.length;
  const dist = new Float64Array(r.resamples);
  let totalSum = 0;
  for (let c = 0; c < k; c++) totalSum += sums[c] as number;
  const influence = () => {
    const jackknife = new Float64Array(k);
    for (let c = 0; c < k; c++) {
      jackknife[c] = (totalSum - (sums[c] as number)) / (values.length - (sizes[c] as number));
    }
    return influenceFromJackknife(jackknife);
  };
  const sizesDrawn = new Float64Array(r.resamples);
  const grid = scoreGrid(values);
  if (grid) {
    // per-cluster sums of integer units: exact, so is every resample's sum
    const unitSums = new Float64Array(k);
    let units = 0;
    for (let c = 0; c < k; c++) {
      for (let i = offsets[c] as number; i < (offsets[c + 1] as number); i++) {
        unitSums[c] = (unitSums[c] as number) + Math.round((grouped[i] as number) * grid.denominator);
      }
      units += unitSums[c] as number;
    }
    resampleClusterSums(unitSums, sizes, resamplingState(r.seed), dist, sizesDrawn);
    for (let b = 0; b < dist.length; b++) {
      dist[b] = (dist[b] as number) / (grid.denominator * (sizesDrawn[b] as number));
    }
    const tieEstimate = units / (grid.denominator * values.length);
    return finish(fn, r, estimate, dist, influence, { estimate: tieEstimate, tolerance: 0 });
  }
  resampleClusterSums(sums, sizes, resamplingState(r.seed), dist, sizesDrawn);
  for (let b = 0; b < dist.length; b++) dist[b] = (dist[b] as number) / (sizesDrawn[b] as number);
  return finish(fn, r, estimate, dist, influence, {
    estimate,
    tolerance: summationTolerance(k * largest, maxAbs(values)),
  });
}

/**
 * A custom statistic: each resample's rows (clusters in drawn order, rows in input order) in one reused
 * buffer; the jackknife leaves one cluster out at a time.
 */
function clusterStatisticCI(
  fn: string,
  r: Resolved,
  clusters: Clusters,
  estimate: number,
  statistic: (xs: ArrayLike<number>) => number,
): BootstrapResult {
  const { values, grouped, offsets, largest } = clusters;
  const k = clusters.sums.length;
  const dist = new Float64Array(r.resamples);
  const [even, odd] = resamplingStreams(r.seed);
  const buffer = new Float64Array(largest * k);
  for (let b = 0; b < r.resamples; b++) {
    let length = 0;
    for (let j = 0; j < k; j++) {
      const c = ((j & 1 ? odd() : even()) * k) | 0;
      const from = offsets[c] as number;
      const to = offsets[c + 1] as number;
      for (let i = from; i < to; i++) buffer[length++] = grouped[i] as number;
    }
    dist[b] = statistic(buffer.subarray(0, length));
  }
  return finish(
    fn,
    r,
    estimate,
    dist,
    () => {
      const jackknife = new Float64Array(k);
      for (let c = 0; c < k; c++) {
        const from = offsets[c] as number;
        const to = offsets[c + 1] as number;
        const leaveOut = new Float64Array(values.length - (to - from));
        leaveOut.set(grouped.subarray(0, from), 0);
        leaveOut.set(grouped.subarray(to), from);
        jackknife[c] = checkStatistic(fn, statistic(leaveOut), `the jackknife sample without cluster ${c}`);
      }
      return influenceFromJackknife(jackknife);
    },
    customTies(estimate, k * largest, values),
  );
}

/** A statistic of how many rows fall in each category (`clusterCountsCI`). */
export interface CountStatistic {
  /** the categories a row's value is one of: 0..categories-1 */
  categories: number;
  /**
   * The statistic of a sample from its counts per category (counts[c]: the rows whose value is c). It
   * receives a reused buffer it must not keep, and must return a finite number.
   */
  statistic: (counts: ArrayLike<number>) => number;
}

/**
 * `clusterBootstrapCI` of a statistic that depends on the rows' counts per category alone (e.g. kappa,
 * which depends on the two raters' table): the same interval, bit for bit, as `clusterBootstrapCI` with
 * the statistic `xs => statistic(counts of xs)` (the same draws, estimate, jackknife and ties; the
 * statistic called as often, in the same order), in time per resample proportional to the clusters
 * times the categories instead of the rows: a resample adds up its drawn clusters' counts (issue 53: a
 * run of 100,000 cases has 200 question clusters). Throws as `clusterBootstrapCI`, and RangeError for a
 * value that is not a category.
 */
export function clusterCountsCI(
  rows: readonly { cluster: string; value: number }[],
  opts: Omit<BootstrapOptions, 'statistic'> & CountStatistic,
): BootstrapResult {
  const fn = 'clusterCountsCI';
  assertArray(fn, 'rows', rows);
  if (rows.length === 0) throw new RangeError(`${fn}: rows is empty`);
  const r = resolveOptions(fn, { ...opts, statistic: undefined });
  const clusters = clustersOf(fn, rows);
  const { categories, statistic } = opts;
  const counts = clusterCounts(fn, clusters, categories);
  const k = clusters.sums.length;
  const total = new Float64Array(categories);
  for (let c = 0; c < k; c++)
    for (let x = 0; x < categories; x++)
      total[x] = (total[x] as number) + (counts[c * categories + x] as number);
  const estimate = checkStatistic(fn, statistic(total.slice()), 'the data');
  const base = { estimate, method: r.method, resamples: r.resamples, seed: r.seed };
  if (k < 2 || allEqual(clusters.values)) return { low: estimate, high: estimate, ...base, degenerate: true };
  const dist = new Float64Array(r.resamples);
  const [even, odd] = resamplingStreams(r.seed);
  const buffer = new Float64Array(categories);
  // each cluster's categories that it has rows in: a resample adds those only (a cluster of a few rows
  // among many categories is mostly zeros; adding a zero count changes no sum, so the sums are the same)
  const { from, category, count } = nonZeroCounts(counts, k, categories);
  for (let b = 0; b < r.resamples; b++) {
    buffer.fill(0);
    for (let j = 0; j < k; j++) {
      const c = ((j & 1 ? odd() : even()) * k) | 0;
      for (let i = from[c] as number; i < (from[c + 1] as number); i++) {
        const x = category[i] as number;
        buffer[x] = (buffer[x] as number) + (count[i] as number);
      }
    }
    dist[b] = statistic(buffer);
  }
  const influence = () => {
    const jackknife = new Float64Array(k);
    for (let c = 0; c < k; c++) {
      for (let x = 0; x < categories; x++)
        buffer[x] = (total[x] as number) - (counts[c * categories + x] as number);
      jackknife[c] = checkStatistic(fn, statistic(buffer), `the jackknife sample without cluster ${c}`);
    }
    return influenceFromJackknife(jackknife);
  };
  return finish(
    fn,
    r,
    estimate,
    dist,
    influence,
    customTies(estimate, k * clusters.largest, clusters.values),
  );
}

/** The non-zero entries of `clusterCounts`, cluster by cluster: cluster c's are from[c]..from[c + 1]. */
function nonZeroCounts(
  counts: Float64Array,
  k: number,
  categories: number,
): { from: Int32Array; category: Int32Array; count: Float64Array } {
  let n = 0;
  for (const x of counts) if (x !== 0) n++;
  const from = new Int32Array(k + 1);
  const category = new Int32Array(n);
  const count = new Float64Array(n);
  let at = 0;
  for (let c = 0; c < k; c++) {
    from[c] = at;
    for (let x = 0; x < categories; x++) {
      const v = counts[c * categories + x] as number;
      if (v === 0) continue;
      category[at] = x;
      count[at++] = v;
    }
  }
  from[k] = at;
  return { from, category, count };
}

/** Each cluster's counts per category, cluster by cluster (k x categories). */
function clusterCounts(fn: string, clusters: Clusters, categories: number): Float64Array {
  if (!Number.isInteger(categories) || categories < 1)
    throw new RangeError(`${fn}: categories must be a positive integer, got ${categories}`);
  const { grouped, offsets } = clusters;
  const k = clusters.sums.length;
  const counts = new Float64Array(k * categories);
  for (let c = 0; c < k; c++)
    for (let i = offsets[c] as number; i < (offsets[c + 1] as number); i++) {
      const x = grouped[i] as number;
      if (!Number.isInteger(x) || x < 0 || x >= categories)
        throw new RangeError(`${fn}: a row's value ${x} is not a category (0..${categories - 1})`);
      counts[c * categories + x] = (counts[c * categories + x] as number) + 1;
    }
  return counts;
}
