/**
 * Prediction-powered inference of a mean (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic,
 * "Prediction-powered inference", Science 2023; the power-tuned PPI++ of Angelopoulos, Duchi and Zrnic,
 * arXiv:2311.01453): a few labelled items (the people's scores `y` beside the judges' `yhat`) correct the
 * mean of the judges' scores on many items (`yhatUnlabeled`) for the judges' error.
 */
import { normalQuantile } from './distributions.ts';
import { assertArray, assertFiniteNumbers, assertSameLength } from './validate.ts';

export interface PpiMeanInput {
  /** the people's scores of the labelled items */
  y: readonly number[];
  /** the judges' scores of the same items, in the same order */
  yhat: readonly number[];
  /** the judges' scores of the items the people did not label */
  yhatUnlabeled: readonly number[];
  /** sample weights of the labelled items (inclusion-probability weights of a stratified sample); default all 1 */
  w?: readonly number[];
  /** sample weights of the unlabelled items; default all 1 */
  wUnlabeled?: readonly number[];
  /** a number (1: classic PPI, 0: the labelled items' mean alone), or 'tuned' (PPI++, the default) */
  lambda?: number | 'tuned';
  /** the interval's error level (two-sided); default 0.05 */
  alpha?: number;
  /**
   * The cluster (e.g. the question) of each labelled and each unlabelled item: the standard error is
   * then cluster-robust, and items of one cluster may sit on both sides. Omitted: ppi_py's exactly.
   */
  clusters?: { labelled: readonly string[]; unlabelled: readonly string[] };
}

export interface PpiMeanResult {
  estimate: number;
  low: number;
  high: number;
  /** the lambda used (the tuned one, clipped to [0, 1], when 'tuned' was asked) */
  lambda: number;
  /** the standard error the interval is built on */
  standardError: number;
}

/** ppi_py's `construct_weight_vector`: w / sum(w) * n, or all ones. */
function normalisedWeights(
  fn: string,
  name: string,
  w: readonly number[] | undefined,
  n: number,
): Float64Array {
  const out = new Float64Array(n);
  if (w === undefined) return out.fill(1);
  assertFiniteNumbers(fn, name, w);
  if (w.length !== n)
    throw new RangeError(`${fn}: ${name} must have one weight per item (${n}), got ${w.length}`);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const x = w[i] as number;
    if (x < 0) throw new RangeError(`${fn}: ${name}[${i}] is ${x}; weights must be >= 0`);
    sum += x;
  }
  if (!(sum > 0)) throw new RangeError(`${fn}: ${name} sums to 0`);
  for (let i = 0; i < n; i++) out[i] = ((w[i] as number) / sum) * n;
  return out;
}

const meanOf = (xs: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i] as number;
  return s / xs.length;
};

/** numpy's `std(ddof=0)` squared: the two-pass population variance. */
function populationVariance(xs: ArrayLike<number>): number {
  const m = meanOf(xs);
  let ss = 0;
  for (let i = 0; i < xs.length; i++) ss += ((xs[i] as number) - m) ** 2;
  return ss / xs.length;
}

interface Prepared {
  y: readonly number[];
  yhat: readonly number[];
  yhatU: readonly number[];
  w: Float64Array;
  wU: Float64Array;
  n: number;
  big: number;
}

/** The two sides of the estimator for a lambda: wU * (lam * yhatU) and w * (y - lam * yhat), item by item. */
function terms(p: Prepared, lam: number): { imputed: Float64Array; rectifier: Float64Array } {
  const imputed = new Float64Array(p.big);
  for (let j = 0; j < p.big; j++) imputed[j] = (p.wU[j] as number) * (lam * (p.yhatU[j] as number));
  const rectifier = new Float64Array(p.n);
  for (let i = 0; i < p.n; i++)
    rectifier[i] = (p.w[i] as number) * ((p.y[i] as number) - lam * (p.yhat[i] as number));
  return { imputed, rectifier };
}

/** mean(wU * lam * yhatU) + mean(w * (y - lam * yhat)), as ppi_py's `ppi_mean_pointestimate`. */
function pointEstimate(p: Prepared, lam: number): number {
  const { imputed, rectifier } = terms(p, lam);
  return meanOf(imputed) + meanOf(rectifier);
}

/**
 * ppi_py's tuned lambda for a mean (`_calc_lam_glm` with the identity Hessian, clip=True), around the
 * lam = 1 estimate t: g = w (y - t), gh = w (yhat - t), ghu = wU (yhatU - t);
 * lambda = (sum (g - mean g)(gh - mean gh) / n) / ((1 + n / N) var([gh, ghu], ddof 1)), clipped to
 * [0, 1]. Where the judges' scores do not vary (the variance is 0, up to rounding) lambda is 0 (ppi_py:
 * NaN, or a ratio of rounding errors).
 */
function tunedLambda(p: Prepared): number {
  const t = pointEstimate(p, 1);
  const g = new Float64Array(p.n);
  const gh = new Float64Array(p.n + p.big);
  for (let i = 0; i < p.n; i++) {
    g[i] = (p.w[i] as number) * ((p.y[i] as number) - t);
    gh[i] = (p.w[i] as number) * ((p.yhat[i] as number) - t);
  }
  for (let j = 0; j < p.big; j++) gh[p.n + j] = (p.wU[j] as number) * ((p.yhatU[j] as number) - t);
  const gMean = meanOf(g);
  const ghMean = meanOf(gh.subarray(0, p.n));
  let cross = 0;
  for (let i = 0; i < p.n; i++) cross += ((g[i] as number) - gMean) * ((gh[i] as number) - ghMean);
  const covariance = (2 * cross) / p.n;
  const all = gh.length;
  const variance = (populationVariance(gh) * all) / (all - 1);
  // judge scores that do not vary: a variance of rounding noise only, (a few ulps of the values)^2
  let scale = 0;
  for (let i = 0; i < all; i++) scale = Math.max(scale, Math.abs(gh[i] as number));
  if (!(variance > (64 * Number.EPSILON * scale) ** 2)) return 0;
  const lam = covariance / (2 * (1 + p.n / p.big) * variance);
  return Math.min(1, Math.max(0, lam));
}

/** ppi_py's standard error for a given lambda: sqrt(var(wU lam yhatU) / N + var(w (y - lam yhat)) / n), ddof 0. */
function standardError(p: Prepared, lam: number): number {
  const { imputed, rectifier } = terms(p, lam);
  return Math.sqrt(populationVariance(imputed) / p.big + populationVariance(rectifier) / p.n);
}

/**
 * The cluster-robust parts of the estimator's error, per cluster g (items centred on their side's mean):
 * A_g = sum wU yhatU / N, H_g = sum w yhat / n, B_g = sum w y / n. The estimate's error is
 * sum_g (lam (A_g - H_g) + B_g), so its variance is lam^2 sum D^2 + 2 lam sum D B + sum B^2 with
 * D = A - H: with every item its own cluster and no cluster on both sides, ppi_py's variance.
 */
function clusterParts(p: Prepared, clusters: NonNullable<PpiMeanInput['clusters']>) {
  const index = new Map<string, number>();
  const slot = (c: string) => {
    let k = index.get(c);
    if (k === undefined) {
      k = index.size;
      index.set(c, k);
    }
    return k;
  };
  const labelledAt = clusters.labelled.map(slot);
  const unlabelledAt = clusters.unlabelled.map(slot);
  const k = index.size;
  const d = new Float64Array(k);
  const b = new Float64Array(k);
  const wyMean = meanOf(Array.from({ length: p.n }, (_, i) => (p.w[i] as number) * (p.y[i] as number)));
  const whMean = meanOf(Array.from({ length: p.n }, (_, i) => (p.w[i] as number) * (p.yhat[i] as number)));
  const wuMean = meanOf(
    Array.from({ length: p.big }, (_, j) => (p.wU[j] as number) * (p.yhatU[j] as number)),
  );
  for (let j = 0; j < p.big; j++) {
    const c = unlabelledAt[j] as number;
    d[c] = (d[c] as number) + ((p.wU[j] as number) * (p.yhatU[j] as number) - wuMean) / p.big;
  }
  for (let i = 0; i < p.n; i++) {
    const c = labelledAt[i] as number;
    d[c] = (d[c] as number) - ((p.w[i] as number) * (p.yhat[i] as number) - whMean) / p.n;
    b[c] = (b[c] as number) + ((p.w[i] as number) * (p.y[i] as number) - wyMean) / p.n;
  }
  let dd = 0;
  let db = 0;
  let bb = 0;
  for (let c = 0; c < k; c++) {
    dd += (d[c] as number) ** 2;
    db += (d[c] as number) * (b[c] as number);
    bb += (b[c] as number) ** 2;
  }
  return { dd, db, bb };
}

/**
 * The prediction-powered estimate of a mean and its normal interval, as ppi_py (aangelopoulos/ppi_py,
 * `ppi_mean_pointestimate` and `ppi_mean_ci`, one-dimensional, two-sided) computes them:
 * - weights are rescaled to sum to their count (w / sum(w) * n; likewise wUnlabeled);
 * - estimate(lam) = mean(wU lam yhatU) + mean(w (y - lam yhat)); lam = 1 is classic PPI, lam = 0 the
 *   (weighted) mean of the labelled items alone;
 * - 'tuned' (PPI++): lam = cov / (2 (1 + n / N) var), clipped to [0, 1] (see `tunedLambda`);
 * - interval: estimate -/+ z(1 - alpha / 2) sqrt(var(wU lam yhatU) / N + var(w (y - lam yhat)) / n),
 *   variances with ddof 0 (statsmodels' `_zconfint_generic`).
 * Checked against vectors ppi_py computed (`../shared/oracle/ppi.json`, test/stats/ppi.test.ts) to 1e-9.
 *
 * With `clusters` (rge's addition, docs/adr/0021-judge-error-corrected-gfs.md) the standard error is the
 * cluster-robust one: items of one cluster (the runs of a question) are summed before squaring, on both
 * sides together, so correlated runs and a question with labelled and unlabelled runs are counted as
 * what they are; the tuned lambda is then the one minimising that variance (clipped to [0, 1]). With
 * every item its own cluster it is ppi_py's variance exactly (the tuned lambda is then the exact
 * minimiser, close to ppi_py's plug-in).
 *
 * Throws RangeError for empty `y` or `yhatUnlabeled`, lengths that differ, non-finite values, negative
 * weights or weights summing to 0, a lambda that is not finite, or alpha outside (0, 1).
 */
export function ppiMean(input: PpiMeanInput): PpiMeanResult {
  const fn = 'ppiMean';
  if (input === null || typeof input !== 'object') throw new TypeError(`${fn}: input must be an object`);
  const { y, yhat, yhatUnlabeled } = input;
  assertFiniteNumbers(fn, 'y', y);
  assertFiniteNumbers(fn, 'yhat', yhat);
  assertSameLength(fn, y, yhat, 'y and yhat');
  assertFiniteNumbers(fn, 'yhatUnlabeled', yhatUnlabeled);
  const alpha = input.alpha ?? 0.05;
  if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1))
    throw new RangeError(`${fn}: alpha must be a number in (0, 1), got ${String(alpha)}`);
  const asked = input.lambda ?? 'tuned';
  if (asked !== 'tuned' && (typeof asked !== 'number' || !Number.isFinite(asked)))
    throw new RangeError(`${fn}: lambda must be a finite number or 'tuned', got ${String(asked)}`);
  const p: Prepared = {
    y,
    yhat,
    yhatU: yhatUnlabeled,
    n: y.length,
    big: yhatUnlabeled.length,
    w: normalisedWeights(fn, 'w', input.w, y.length),
    wU: normalisedWeights(fn, 'wUnlabeled', input.wUnlabeled, yhatUnlabeled.length),
  };
  const z = normalQuantile(1 - alpha / 2);
  if (input.clusters !== undefined) {
    const { labelled, unlabelled } = input.clusters;
    assertArray(fn, 'clusters.labelled', labelled);
    assertArray(fn, 'clusters.unlabelled', unlabelled);
    assertSameLength(fn, labelled, y, 'clusters.labelled and y');
    assertSameLength(fn, unlabelled, yhatUnlabeled, 'clusters.unlabelled and yhatUnlabeled');
    for (const [name, list] of [
      ['clusters.labelled', labelled],
      ['clusters.unlabelled', unlabelled],
    ] as const)
      list.forEach((c, i) => {
        if (typeof c !== 'string') throw new TypeError(`${fn}: ${name}[${i}] must be a string`);
      });
    const { dd, db, bb } = clusterParts(p, input.clusters);
    const tuned = dd > 0 ? Math.min(1, Math.max(0, -db / dd)) : 0;
    const lam = asked === 'tuned' ? tuned : asked;
    const estimate = pointEstimate(p, lam);
    const se = Math.sqrt(Math.max(0, lam * lam * dd + 2 * lam * db + bb));
    return { estimate, low: estimate - z * se, high: estimate + z * se, lambda: lam, standardError: se };
  }
  const lam = asked === 'tuned' ? tunedLambda(p) : asked;
  const estimate = pointEstimate(p, lam);
  const se = standardError(p, lam);
  return { estimate, low: estimate - z * se, high: estimate + z * se, lambda: lam, standardError: se };
}
