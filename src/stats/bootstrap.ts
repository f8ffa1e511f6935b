import seedrandom from 'seedrandom';
import { normalCdf, normalQuantile } from './distributions.ts';
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

export interface BcaIntervalResult {
  low: number;
  high: number;
  /** bias correction Phi^-1((#(dist < estimate) + #(dist <= estimate)) / 2B) */
  z0: number;
  /** jackknife acceleration */
  acceleration: number;
  /** the adjusted lower and upper percentile levels, in [0, 1] */
  alpha1: number;
  alpha2: number;
  /** set when BCa is undefined and the percentile interval was returned instead */
  degenerate?: boolean;
}

const DEFAULT_RESAMPLES = 9999;

/**
 * numpy's default (`method='linear'`) percentile of an ascending array at level `level` in [0, 1],
 * reproducing `np.percentile(a, level * 100)` operation for operation: q = (level * 100) / 100, virtual
 * index (n - 1) q, and numpy 1.24's two-sided lerp (b - (b - a)(1 - t) when t >= 1/2).
 */
export function linearPercentile(sorted: ArrayLike<number>, level: number): number {
  const n = sorted.length;
  const q = (level * 100) / 100;
  const virtual = (n - 1) * q;
  if (virtual >= n - 1) return sorted[n - 1] as number;
  if (virtual < 0) return sorted[0] as number;
  const previous = Math.floor(virtual);
  const t = virtual - previous;
  const a = sorted[previous] as number;
  const b = sorted[previous + 1] as number;
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

function sortedCopy(fn: string, bootDistribution: readonly number[] | Float64Array): Float64Array {
  const sorted = Float64Array.from(bootDistribution);
  for (let i = 0; i < sorted.length; i++) {
    if (Number.isNaN(sorted[i] as number)) throw new RangeError(`${fn}: bootDistribution[${i}] is NaN`);
  }
  return sorted.sort();
}

/**
 * The percentile bootstrap interval, as `scipy.stats.bootstrap(..., method='percentile')` (scipy 1.10.1):
 * alpha = (1 - confidence) / 2, endpoints `np.percentile(dist, alpha * 100)` and
 * `np.percentile(dist, (1 - alpha) * 100)` with linear interpolation. Throws RangeError for an empty
 * distribution, NaN, or a confidence outside (0, 1).
 */
export function percentileInterval(
  bootDistribution: readonly number[],
  confidence?: number,
): { low: number; high: number } {
  const fn = 'percentileInterval';
  assertArray(fn, 'bootDistribution', bootDistribution);
  if (bootDistribution.length === 0) throw new RangeError(`${fn}: bootDistribution is empty`);
  const alpha = tailAlpha(fn, confidence);
  const sorted = sortedCopy(fn, bootDistribution);
  return { low: linearPercentile(sorted, alpha), high: linearPercentile(sorted, 1 - alpha) };
}

/**
 * BCa from a sorted bootstrap distribution, the estimate and the jackknife influence values
 * U_i = (n - 1)(mean(theta_(.)) - theta_(i)), exactly as scipy 1.10.1's `_bca_interval`:
 * z0 = ndtri((#(< est) + #(<= est)) / 2B), a = (sum U^3 / n^3) / 6 / (sum U^2 / n^2)^(3/2),
 * alpha1 = ndtr(z0 + (z0 + z_alpha) / (1 - a (z0 + z_alpha))), alpha2 likewise with z_(1 - alpha).
 * Where z0, a or the levels are not finite (distribution all on one side of the estimate, zero
 * jackknife spread), it returns the percentile interval with `degenerate: true`.
 */
export function bcaFromParts(
  sorted: Float64Array,
  estimate: number,
  influence: Float64Array,
  alpha: number,
): BcaIntervalResult {
  const b = sorted.length;
  let less = 0;
  let lessOrEqual = 0;
  for (let i = 0; i < b; i++) {
    const x = sorted[i] as number;
    if (x < estimate) less++;
    if (x <= estimate) lessOrEqual++;
    else break;
  }
  const z0 = normalQuantile((less + lessOrEqual) / (2 * b));

  const n = influence.length;
  let cubes = 0;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const u = influence[i] as number;
    const u2 = u * u;
    squares += u2;
    cubes += u2 * u;
  }
  const num = cubes / n ** 3;
  const den = squares / n ** 2;
  const acceleration = ((1 / 6) * num) / den ** (3 / 2);

  const zAlpha = normalQuantile(alpha);
  const num1 = z0 + zAlpha;
  const alpha1 = normalCdf(z0 + num1 / (1 - acceleration * num1));
  const num2 = z0 - zAlpha;
  const alpha2 = normalCdf(z0 + num2 / (1 - acceleration * num2));
  if (![z0, acceleration, alpha1, alpha2].every(Number.isFinite)) {
    return {
      low: linearPercentile(sorted, alpha),
      high: linearPercentile(sorted, 1 - alpha),
      z0,
      acceleration: Number.isNaN(acceleration) ? 0 : acceleration,
      alpha1: alpha,
      alpha2: 1 - alpha,
      degenerate: true,
    };
  }
  return {
    low: linearPercentile(sorted, alpha1),
    high: linearPercentile(sorted, alpha2),
    z0,
    acceleration,
    alpha1,
    alpha2,
  };
}

/** Jackknife influence values from leave-one-out estimates theta_(i): (n - 1)(mean - theta_(i)), as scipy. */
export function influenceFromJackknife(jackknife: Float64Array): Float64Array {
  const n = jackknife.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += jackknife[i] as number;
  const mean = sum / n;
  const u = new Float64Array(n);
  for (let i = 0; i < n; i++) u[i] = (n - 1) * (mean - (jackknife[i] as number));
  return u;
}

/** Influence values of the mean: x_i - mean(x), the closed form of scipy's leave-one-out expression. */
function meanInfluence(xs: Float64Array, mean: number): Float64Array {
  const u = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) u[i] = (xs[i] as number) - mean;
  return u;
}

function meanOf(xs: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i] as number;
  return sum / xs.length;
}

/**
 * The BCa interval of the mean of `values` from a given bootstrap distribution, as scipy 1.10.1's
 * `scipy.stats.bootstrap(..., method='BCa')` computes it from `bootstrap_distribution`: z0 counts ties
 * one half, the acceleration is the jackknife of the mean of `values` (leave one out), and the
 * endpoints are `np.percentile` (linear) at alpha1 and alpha2. `opts.estimate` replaces mean(values)
 * as the estimate z0 is measured against.
 *
 * Degenerate input (all values equal, a distribution entirely on one side of the estimate, no
 * jackknife spread) has no BCa interval (scipy returns NaN): the percentile interval is returned with
 * alpha1 = alpha, alpha2 = 1 - alpha and `degenerate: true`; z0 may then be +-Infinity and the
 * acceleration is reported as 0 when it is 0/0. Never NaN. Throws RangeError for empty or non-finite
 * input or a confidence outside (0, 1).
 */
export function bcaInterval(
  values: readonly number[],
  bootDistribution: readonly number[],
  opts: { confidence?: number; estimate?: number } = {},
): BcaIntervalResult {
  const fn = 'bcaInterval';
  assertFiniteNumbers(fn, 'values', values);
  assertArray(fn, 'bootDistribution', bootDistribution);
  if (bootDistribution.length === 0) throw new RangeError(`${fn}: bootDistribution is empty`);
  const alpha = tailAlpha(fn, opts.confidence);
  const xs = Float64Array.from(values);
  const mean = meanOf(xs);
  const estimate = opts.estimate ?? mean;
  if (!Number.isFinite(estimate)) throw new RangeError(`${fn}: estimate must be finite, got ${estimate}`);
  return bcaFromParts(sortedCopy(fn, bootDistribution), estimate, meanInfluence(xs, mean), alpha);
}

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

/**
 * The two resampling streams for a seed: seedrandom's Alea generator seeded with `seed` draws the
 * items at even positions of every resample (0, 2, 4, ...), one seeded with `${seed}:odd` those at odd
 * positions. Each gives uniform doubles in [0, 1) with 32 bits of resolution; an item index is
 * floor(u * n). Two independent streams let the CPU step both generators at once (Alea's carry chain
 * is serial), which makes resampling about 1.7x faster than one stream.
 */
export function resamplingStreams(seed: string): [even: () => number, odd: () => number] {
  return [seedrandom.alea(seed), seedrandom.alea(`${seed}:odd`)];
}

function checkStatistic(fn: string, value: number, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RangeError(`${fn}: the statistic returned ${String(value)} on ${where}`);
  }
  return value;
}

function finish(
  fn: string,
  r: Resolved,
  estimate: number,
  dist: Float64Array,
  influence: () => Float64Array,
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
  const bca = bcaFromParts(sorted, estimate, influence(), r.alpha);
  return { low: bca.low, high: bca.high, ...base, ...(bca.degenerate ? { degenerate: true } : {}) };
}

function allEqual(xs: Float64Array): boolean {
  const first = xs[0] as number;
  for (let i = 1; i < xs.length; i++) if (xs[i] !== first) return false;
  return true;
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

  const [even, odd] = resamplingStreams(r.seed);
  const dist = new Float64Array(r.resamples);
  const pairs = n >> 1;
  if (!statistic) {
    for (let b = 0; b < r.resamples; b++) {
      let sumEven = 0;
      let sumOdd = 0;
      for (let p = 0; p < pairs; p++) {
        sumEven += xs[(even() * n) | 0] as number;
        sumOdd += xs[(odd() * n) | 0] as number;
      }
      if (n & 1) sumEven += xs[(even() * n) | 0] as number;
      dist[b] = (sumEven + sumOdd) / n;
    }
    return finish(fn, r, estimate, dist, () => meanInfluence(xs, estimate));
  }
  const buffer = new Float64Array(n);
  for (let b = 0; b < r.resamples; b++) {
    for (let i = 0; i < n; i++) buffer[i] = xs[((i & 1 ? odd() : even()) * n) | 0] as number;
    dist[b] = statistic(buffer);
  }
  return finish(fn, r, estimate, dist, () => {
    const jackknife = new Float64Array(n);
    const leaveOut = new Float64Array(n - 1);
    for (let i = 0; i < n; i++) {
      leaveOut.set(xs.subarray(0, i), 0);
      leaveOut.set(xs.subarray(i + 1), i);
      jackknife[i] = checkStatistic(fn, statistic(leaveOut), `the jackknife sample without item ${i}`);
    }
    return influenceFromJackknife(jackknife);
  });
}

/**
 * Bootstrap confidence interval of a statistic (default the mean) of one sample, as
 * `scipy.stats.bootstrap((values,), statistic, method='BCa' | 'percentile')` (scipy 1.10.1):
 * B resamples of n items drawn with replacement, then `percentileInterval` or the BCa interval of
 * `bcaInterval` (z0 with ties counted one half, jackknife acceleration, numpy linear percentiles).
 *
 * Resampling: seedrandom 3.0.5's Alea generator, two streams (`resamplingStreams`): item i of each
 * resample is xs[floor(u * n)] with u the next draw of Alea(seed) for even i and of Alea(`${seed}:odd`)
 * for odd i, resample by resample; so the same seed, data and options give the same interval bit for
 * bit (not the same draws as numpy, so endpoints agree with scipy statistically, not exactly).
 * The default mean resamples the sum (even and odd positions summed apart, then added) into a typed
 * array, with no allocation per resample; a custom `statistic` gets a reused buffer.
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
 * `statistic` receives the resampled differences. Options, determinism and degenerate cases as
 * `bootstrapCI`. Throws RangeError when a and b differ in length, are empty, or hold non-finite values.
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
 * `bootstrapCI` (even j: Alea(seed), odd j: Alea(`${seed}:odd`)), clusters numbered in order of first
 * appearance. Degenerate cases as `bootstrapCI`: a single cluster, or all values equal, gives the
 * point interval with `degenerate: true`. Throws RangeError/TypeError for no rows, a non-string
 * cluster or a non-finite value.
 */
export function clusterBootstrapCI(
  rows: readonly { cluster: string; value: number }[],
  opts: BootstrapOptions,
): BootstrapResult {
  const fn = 'clusterBootstrapCI';
  assertArray(fn, 'rows', rows);
  if (rows.length === 0) throw new RangeError(`${fn}: rows is empty`);
  const r = resolveOptions(fn, opts);
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
  // rows regrouped cluster by cluster; offsets[c]..offsets[c + 1] are cluster c's rows
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
  const statistic = opts.statistic;
  const estimate = statistic ? checkStatistic(fn, statistic(grouped.slice()), 'the data') : meanOf(values);
  const base = { estimate, method: r.method, resamples: r.resamples, seed: r.seed };
  if (k < 2 || allEqual(values)) return { low: estimate, high: estimate, ...base, degenerate: true };

  const [even, odd] = resamplingStreams(r.seed);
  const dist = new Float64Array(r.resamples);
  let totalSum = 0;
  for (let c = 0; c < k; c++) totalSum += sums[c] as number;
  if (!statistic) {
    const pairs = k >> 1;
    for (let b = 0; b < r.resamples; b++) {
      let sumEven = 0;
      let sumOdd = 0;
      let size = 0;
      for (let p = 0; p < pairs; p++) {
        const c0 = (even() * k) | 0;
        const c1 = (odd() * k) | 0;
        sumEven += sums[c0] as number;
        sumOdd += sums[c1] as number;
        size += (sizes[c0] as number) + (sizes[c1] as number);
      }
      if (k & 1) {
        const c0 = (even() * k) | 0;
        sumEven += sums[c0] as number;
        size += sizes[c0] as number;
      }
      dist[b] = (sumEven + sumOdd) / size;
    }
    return finish(fn, r, estimate, dist, () => {
      const jackknife = new Float64Array(k);
      for (let c = 0; c < k; c++) {
        jackknife[c] = (totalSum - (sums[c] as number)) / (rows.length - (sizes[c] as number));
      }
      return influenceFromJackknife(jackknife);
    });
  }
  let largest = 0;
  for (let c = 0; c < k; c++) largest = Math.max(largest, sizes[c] as number);
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
  return finish(fn, r, estimate, dist, () => {
    const jackknife = new Float64Array(k);
    for (let c = 0; c < k; c++) {
      const from = offsets[c] as number;
      const to = offsets[c + 1] as number;
      const leaveOut = new Float64Array(rows.length - (to - from));
      leaveOut.set(grouped.subarray(0, from), 0);
      leaveOut.set(grouped.subarray(to), from);
      jackknife[c] = checkStatistic(fn, statistic(leaveOut), `the jackknife sample without cluster ${c}`);
    }
    return influenceFromJackknife(jackknife);
  });
}
