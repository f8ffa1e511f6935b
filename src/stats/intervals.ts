/**
 * Bootstrap intervals from a bootstrap distribution already drawn: the percentile interval and BCa
 * (bias correction with ties counted one half, jackknife acceleration, numpy linear percentiles), as
 * scipy 1.10.1's `scipy.stats.bootstrap` computes them. No resampling here (src/stats/bootstrap.ts
 * draws the distributions; src/stats/resampling.ts is the seeded generator).
 */
import { normalCdf, normalQuantile } from './distributions.ts';
import { linearPercentile } from './percentile.ts';
import { assertArray, assertFiniteNumbers, tailAlpha } from './validate.ts';

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

export function sortedCopy(fn: string, bootDistribution: readonly number[] | Float64Array): Float64Array {
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
 *
 * `tieTolerance` (default 0, scipy's exact comparisons): a value within it of the estimate counts as
 * a tie (one half in z0), i.e. z0 = ndtri((#(< est - tol) + #(<= est + tol)) / 2B). The bootstrap
 * functions pass a tolerance that covers the rounding of their own summation (see `bootstrapCI`), so
 * that a resample whose statistic equals the estimate mathematically is counted as a tie whatever the
 * order of summation made of it.
 */
export function bcaFromParts(
  sorted: Float64Array,
  estimate: number,
  influence: Float64Array,
  alpha: number,
  tieTolerance = 0,
): BcaIntervalResult {
  const b = sorted.length;
  const below = estimate - tieTolerance;
  const above = estimate + tieTolerance;
  let less = 0;
  let lessOrEqual = 0;
  for (let i = 0; i < b; i++) {
    const x = sorted[i] as number;
    if (x < below) less++;
    if (x <= above) lessOrEqual++;
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
export function meanInfluence(xs: Float64Array, mean: number): Float64Array {
  const u = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) u[i] = (xs[i] as number) - mean;
  return u;
}

export function meanOf(xs: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i] as number;
  return sum / xs.length;
}

/**
 * The BCa interval of the mean of `values` from a given bootstrap distribution, as scipy 1.10.1's
 * `scipy.stats.bootstrap(..., method='BCa')` computes it from `bootstrap_distribution`: z0 counts ties
 * one half, the acceleration is the jackknife of the mean of `values` (leave one out), and the
 * endpoints are `np.percentile` (linear) at alpha1 and alpha2. `opts.estimate` replaces mean(values)
 * as the estimate z0 is measured against; `opts.tieTolerance` (default 0, as scipy) is passed to
 * `bcaFromParts`.
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
  opts: { confidence?: number; estimate?: number; tieTolerance?: number } = {},
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
  const tieTolerance = opts.tieTolerance ?? 0;
  if (!(tieTolerance >= 0 && Number.isFinite(tieTolerance))) {
    throw new RangeError(`${fn}: tieTolerance must be a finite number >= 0, got ${tieTolerance}`);
  }
  return bcaFromParts(
    sortedCopy(fn, bootDistribution),
    estimate,
    meanInfluence(xs, mean),
    alpha,
    tieTolerance,
  );
}
