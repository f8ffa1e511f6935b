import { krippendorffAlpha, type MeasurementLevel, pairAlphaFromTable, type Ratings } from './agreement.ts';
import { bootstrapCI, clusterBootstrapCI, clusterCountsCI } from './bootstrap.ts';
import { assertFiniteNumbers, assertSameLength } from './validate.ts';

export interface CohenKappaOptions {
  /** 'none' (default): unweighted; 'linear': |i - j|; 'quadratic': (i - j)^2, i and j indexing `labels` */
  weights?: 'none' | 'linear' | 'quadratic';
  /** the categories and their order; default the sorted union of the labels seen in `a` and `b` */
  labels?: readonly number[];
}

/**
 * Cohen's kappa between two raters, as `sklearn.metrics.cohen_kappa_score` (scikit-learn 1.2.1):
 * kappa = 1 - sum(W * O) / sum(W * E), with O the confusion matrix (rows a, columns b), E the outer
 * product of its margins over n, and W zero on the diagonal and one off it (unweighted), |i - j|
 * (linear) or (i - j)^2 (quadratic), where i and j index the label list.
 *
 * Labels: by default the sorted union of the values seen. Explicit `labels` are used in the order
 * given (as scikit-learn does: the weights index that list), and items whose label in `a` or `b` is
 * not in the list are left out of the table.
 *
 * Edge cases: NaN where kappa is undefined, i.e. sum(W * E) = 0: both raters constant on the same
 * label, or a single label (scikit-learn returns NaN there too, with a warning). Raters constant on
 * different labels give 0. Kappa is negative when agreement is below chance.
 *
 * Throws RangeError for empty input, different lengths, non-finite values, empty or repeated
 * `labels`, or `labels` none of which occurs in `a`; TypeError for non-numbers.
 */
export function cohenKappa(a: readonly number[], b: readonly number[], opts: CohenKappaOptions = {}): number {
  const fn = 'cohenKappa';
  assertFiniteNumbers(fn, 'a', a);
  assertFiniteNumbers(fn, 'b', b);
  assertSameLength(fn, a, b);
  const weights = opts.weights ?? 'none';
  if (weights !== 'none' && weights !== 'linear' && weights !== 'quadratic') {
    throw new RangeError(`${fn}: weights must be 'none', 'linear' or 'quadratic', got ${String(weights)}`);
  }
  let labels: number[];
  if (opts.labels !== undefined) {
    assertFiniteNumbers(fn, 'labels', opts.labels);
    labels = [...opts.labels];
    if (new Set(labels).size !== labels.length) throw new RangeError(`${fn}: labels has repeated values`);
    const inA = new Set(a);
    if (!labels.some((l) => inA.has(l))) throw new RangeError(`${fn}: at least one label must occur in a`);
  } else {
    labels = [...new Set([...a, ...b])].sort((x, y) => x - y);
  }
  const k = labels.length;
  const index = new Map<number, number>();
  for (let i = 0; i < k; i++) index.set(labels[i] as number, i);

  const observed = new Float64Array(k * k);
  for (let t = 0; t < a.length; t++) {
    const i = index.get(a[t] as number);
    const j = index.get(b[t] as number);
    if (i === undefined || j === undefined) continue;
    observed[i * k + j] = (observed[i * k + j] as number) + 1;
  }
  return cohenKappaFromTable(observed, k, weights);
}

/**
 * Cohen's kappa from the k x k table of two raters (`observed[i * k + j]`: items a put in category i and
 * b in j, labels in order): the computation of `cohenKappa` after it has counted the table, so equal to
 * it to the bit, in time independent of the number of items. NaN where undefined, as `cohenKappa`.
 */
export function cohenKappaFromTable(
  observed: ArrayLike<number>,
  k: number,
  weights: 'none' | 'linear' | 'quadratic' = 'none',
): number {
  const rowSums = new Float64Array(k); // rater a
  const colSums = new Float64Array(k); // rater b
  let total = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const o = observed[i * k + j] as number;
      rowSums[i] = (rowSums[i] as number) + o;
      colSums[j] = (colSums[j] as number) + o;
      total += o;
    }
  }
  const weight = (i: number, j: number): number =>
    weights === 'none' ? (i === j ? 0 : 1) : weights === 'linear' ? Math.abs(i - j) : (i - j) ** 2;
  let disagreeObserved = 0;
  let disagreeExpected = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = weight(i, j);
      if (w === 0) continue;
      disagreeObserved += w * (observed[i * k + j] as number);
      // scikit-learn's expected = outer(colSums, rowSums) / total, indexed [i][j]
      disagreeExpected += w * (((colSums[i] as number) * (rowSums[j] as number)) / total);
    }
  }
  if (disagreeExpected === 0 || total === 0) return Number.NaN;
  return 1 - disagreeObserved / disagreeExpected;
}

/** Bootstrap resamples of a kappa interval: 2,000 resamples of the items (or of their clusters). */
export const KAPPA_RESAMPLES = 2000;
export const KAPPA_CONFIDENCE = 0.95;
/** BCa, as the report's other intervals (docs/adr/0004-statistics.md). */
export const KAPPA_INTERVAL_METHOD = 'bca';
/**
 * Below this many items a kappa is printed with a warning (too few to tell). At n = 30 and 0/1/2 labels
 * with kappa near 0.75, the 95% interval spans about +-0.2 (test/stats/kappa-interval.test.ts measures
 * it); below, a threshold of 0.75 cannot be told from 0.5.
 */
export const KAPPA_MIN_N = 30;

export interface KappaInterval {
  low: number;
  high: number;
  confidence: number;
  method: typeof KAPPA_INTERVAL_METHOD;
  resamples: number;
  seed: string;
  /** clusters resampled (items when no clusters were given) */
  clusters: number;
  /**
   * resamples on which kappa is undefined (both raters constant on the same label, so they say nothing
   * about agreement beyond chance): each counts as the estimate, which neither widens nor shifts the
   * interval (dropping them is not an option of the bootstrap)
   */
  undefinedResamples: number;
  /** the interval could not be computed as asked (see `bootstrapCI`): a point, or percentile for BCa */
  degenerate: boolean;
}

/**
 * What agreement between two raters is measured: Cohen's kappa unweighted (the methodology's), linear or
 * quadratic weighted (an ordinal rubric: 0 vs 2 costs four times 1 vs 2), or Krippendorff's alpha.
 */
export type AgreementMeasure =
  | 'kappa'
  | 'kappa-linear'
  | 'kappa-quadratic'
  | 'alpha-nominal'
  | 'alpha-ordinal'
  | 'alpha-interval';

/** The measure between two raters' label indices 0..labelCount-1 (NaN where undefined). */
export function pairAgreement(
  measure: AgreementMeasure,
  a: readonly number[],
  b: readonly number[],
  labelCount: number,
): number {
  const labels = Array.from({ length: labelCount }, (_, i) => i);
  switch (measure) {
    case 'kappa':
      return cohenKappa(a, b, { labels });
    case 'kappa-linear':
      return cohenKappa(a, b, { labels, weights: 'linear' });
    case 'kappa-quadratic':
      return cohenKappa(a, b, { labels, weights: 'quadratic' });
    default: {
      // as cohenKappa with explicit labels: items whose label in a or b is not one of them are left out
      const keep = a.flatMap((x, i) => (labels.includes(x) && labels.includes(b[i] as number) ? [i] : []));
      if (keep.length === 0) return Number.NaN;
      const raters = [keep.map((i) => a[i] as number), keep.map((i) => b[i] as number)];
      const level =
        measure === 'alpha-nominal' ? 'nominal' : measure === 'alpha-ordinal' ? 'ordinal' : 'interval';
      return krippendorffAlpha(raters, { level, values: labels });
    }
  }
}

/**
 * `pairAgreement` from the two raters' labelCount x labelCount table instead of their labels: the same
 * value to the bit (the measures depend on the table alone, and are computed from it the same way), in
 * time independent of the number of items, which is what the bootstrap of a large run needs (issue 41).
 */
export function tableAgreement(
  measure: AgreementMeasure,
  table: readonly number[],
  labelCount: number,
): number {
  switch (measure) {
    case 'kappa':
      return cohenKappaFromTable(table, labelCount, 'none');
    case 'kappa-linear':
      return cohenKappaFromTable(table, labelCount, 'linear');
    case 'kappa-quadratic':
      return cohenKappaFromTable(table, labelCount, 'quadratic');
    default: {
      const level =
        measure === 'alpha-nominal' ? 'nominal' : measure === 'alpha-ordinal' ? 'ordinal' : 'interval';
      return pairAlphaFromTable(table, labelCount, level);
    }
  }
}

export interface KappaIntervalOptions {
  seed: string;
  /** default 'kappa' (Cohen's, unweighted) */
  measure?: AgreementMeasure;
  resamples?: number;
  confidence?: number;
  /**
   * the cluster of each item (e.g. its question, whose runs are not independent): whole clusters are
   * resampled (`clusterCountsCI`, as `clusterBootstrapCI` would); absent, items are resampled one by one
   * (`bootstrapCI`)
   */
  clusters?: readonly string[];
  /**
   * the stratum of each item (e.g. its subject, whose judges are another pair): the statistic is then the
   * mean over strata of each stratum's kappa (strata where kappa is undefined left out)
   */
  strata?: readonly number[];
}

/**
 * Cohen's kappa with a bootstrap interval between `a` and `b` (label indices 0..labelCount-1, item by
 * item); with `strata`, the mean over strata of each stratum's kappa. BCa, 2,000 resamples unless told,
 * of the items or, with `clusters`, of whole clusters. A resample on which the statistic is undefined
 * counts as the estimate (see `undefinedResamples`). Null where the statistic itself is undefined (no
 * items, or one label only in every stratum). Kappa depends only on the a x b counts of each stratum, so
 * it is computed once per distinct table.
 */
export function kappaInterval(
  a: readonly number[],
  b: readonly number[],
  labelCount: number,
  opts: KappaIntervalOptions,
): KappaInterval | null {
  const fn = 'kappaInterval';
  assertSameLength(fn, a, b);
  if (a.length === 0) return null;
  if (opts.clusters !== undefined && opts.clusters.length !== a.length)
    throw new RangeError(`${fn}: ${opts.clusters.length} clusters for ${a.length} items`);
  if (opts.strata !== undefined && opts.strata.length !== a.length)
    throw new RangeError(`${fn}: ${opts.strata.length} strata for ${a.length} items`);
  const cells = labelCount * labelCount;
  const strata = opts.strata ?? a.map(() => 0);
  const strataCount = Math.max(...strata) + 1;
  // an item is one number, stratum x a x b, so that resampling items keeps each pair together
  const codes = a.map((x, i) => (strata[i] as number) * cells + x * labelCount + (b[i] as number));
  const categories = strataCount * cells;
  const ofCounts = stratifiedKappa(labelCount, strataCount, opts.measure ?? 'kappa');
  const statisticOf = ofItems(categories, ofCounts);
  const estimate = statisticOf(codes);
  if (Number.isNaN(estimate)) return null;
  const resamples = opts.resamples ?? KAPPA_RESAMPLES;
  const confidence = opts.confidence ?? KAPPA_CONFIDENCE;
  const options = { method: KAPPA_INTERVAL_METHOD, resamples, confidence, seed: opts.seed } as const;
  const clusters = opts.clusters;
  // clusters resampled by their tables (`clusterCountsCI`: the items' interval bit for bit, in time
  // independent of the number of items); items one by one through the statistic of the items
  const resampled = undefinedAsEstimate(clusters ? ofCounts : statisticOf, estimate, resamples);
  const ci = clusters
    ? clusterCountsCI(
        codes.map((value, i) => ({ cluster: clusters[i] as string, value })),
        { ...options, categories, statistic: resampled.statistic },
      )
    : bootstrapCI(codes, { ...options, statistic: resampled.statistic });
  return {
    low: ci.low,
    high: ci.high,
    confidence,
    method: KAPPA_INTERVAL_METHOD,
    resamples,
    seed: opts.seed,
    clusters: clusters ? new Set(clusters).size : a.length,
    undefinedResamples: resampled.undefinedResamples(),
    degenerate: ci.degenerate === true,
  };
}

/**
 * The statistic of `kappaInterval` from the counts of the items coded stratum x a x b (`labelCount`
 * labels): the mean over strata of each stratum's kappa, strata where it is undefined left out (NaN when
 * it is undefined in all). Kappa depends only on a stratum's a x b counts, so it is computed once per
 * distinct table.
 */
function stratifiedKappa(
  labelCount: number,
  strataCount: number,
  measure: AgreementMeasure,
): (counts: ArrayLike<number>) => number {
  const cells = labelCount * labelCount;
  const known = new Map<string, number>();
  const tableKappa = (counts: ArrayLike<number>, from: number): number => {
    const table = Array.from({ length: cells }, (_, i) => counts[from + i] as number);
    const key = table.join(',');
    const seen = known.get(key);
    if (seen !== undefined) return seen;
    const kappa = table.every((c) => c === 0) ? Number.NaN : tableAgreement(measure, table, labelCount);
    known.set(key, kappa);
    return kappa;
  };
  return (counts) => {
    let sum = 0;
    let defined = 0;
    for (let s = 0; s < strataCount; s++) {
      const kappa = tableKappa(counts, s * cells);
      if (Number.isNaN(kappa)) continue;
      sum += kappa;
      defined++;
    }
    return defined === 0 ? Number.NaN : sum / defined;
  };
}

/** A statistic of counts as a statistic of the coded items it counts (0..categories-1). */
function ofItems(
  categories: number,
  statistic: (counts: ArrayLike<number>) => number,
): (codes: ArrayLike<number>) => number {
  const counts = new Array<number>(categories);
  return (xs) => {
    counts.fill(0);
    for (let i = 0; i < xs.length; i++) {
      const code = xs[i] as number;
      counts[code] = (counts[code] as number) + 1;
    }
    return statistic(counts);
  };
}

/**
 * The statistic as the bootstrap calls it: where it is undefined it counts as the estimate, and the
 * resamples on which it was are counted (call 1 is the data itself, then the resamples, then, for BCa,
 * the jackknife samples).
 */
function undefinedAsEstimate(
  statisticOf: (xs: ArrayLike<number>) => number,
  estimate: number,
  resamples: number,
): { statistic: (xs: ArrayLike<number>) => number; undefinedResamples: () => number } {
  let calls = 0;
  let undefinedResamples = 0;
  const statistic = (xs: ArrayLike<number>) => {
    calls++;
    const value = statisticOf(xs);
    if (!Number.isNaN(value)) return value;
    if (calls > 1 && calls <= resamples + 1) undefinedResamples++;
    return estimate;
  };
  return { statistic, undefinedResamples: () => undefinedResamples };
}

/** The figures reported wherever kappa is: the pre-registered kappa, then the two ordinal ones. */
export const ORDINAL_AGREEMENT_MEASURES = ['kappa', 'kappa-quadratic', 'alpha-ordinal'] as const;

export interface AgreementFigure {
  measure: AgreementMeasure;
  /** NaN where undefined */
  value: number;
  /** null where the statistic is undefined */
  ci: KappaInterval | null;
}

/**
 * Cohen's kappa, quadratic-weighted kappa and ordinal Krippendorff's alpha between two raters, each with
 * its interval (`kappaInterval`, the same seed, resamples and clusters, so the three are read together).
 */
export function agreementFigures(
  a: readonly number[],
  b: readonly number[],
  labelCount: number,
  opts: Omit<KappaIntervalOptions, 'measure' | 'strata'>,
): AgreementFigure[] {
  return ORDINAL_AGREEMENT_MEASURES.map((measure) => ({
    measure,
    value: a.length === 0 ? Number.NaN : pairAgreement(measure, a, b, labelCount),
    ci: kappaInterval(a, b, labelCount, { ...opts, measure }),
  }));
}

export interface AlphaIntervalOptions extends Omit<KappaIntervalOptions, 'measure' | 'strata'> {
  level: MeasurementLevel;
  /** the scale (default the sorted distinct ratings) */
  values?: readonly number[];
}

/**
 * Krippendorff's alpha of any number of raters (null: not rated) with a bootstrap interval over the
 * items, or with `clusters` over whole clusters (an item's cluster, e.g. its question). BCa, 2,000
 * resamples unless told; a resample on which alpha is undefined counts as the estimate, as in
 * `kappaInterval`. Null where alpha itself is undefined.
 */
export function alphaInterval(raters: Ratings, opts: AlphaIntervalOptions): KappaInterval | null {
  const fn = 'alphaInterval';
  const items = raters[0]?.length ?? 0;
  if (opts.clusters !== undefined && opts.clusters.length !== items)
    throw new RangeError(`${fn}: ${opts.clusters.length} clusters for ${items} items`);
  const alphaOpts = { level: opts.level, ...(opts.values ? { values: opts.values } : {}) };
  const estimate = krippendorffAlpha(raters, alphaOpts);
  if (Number.isNaN(estimate)) return null;
  // an item is its index; a resample's items are the raters' columns at those indices
  const statisticOf = (xs: ArrayLike<number>) => {
    const picked = Array.from(xs, Number);
    return krippendorffAlpha(
      raters.map((r) => picked.map((i) => r[i] ?? null)),
      alphaOpts,
    );
  };
  const resamples = opts.resamples ?? KAPPA_RESAMPLES;
  const confidence = opts.confidence ?? KAPPA_CONFIDENCE;
  const resampled = undefinedAsEstimate(statisticOf, estimate, resamples);
  const options = {
    method: KAPPA_INTERVAL_METHOD,
    resamples,
    confidence,
    seed: opts.seed,
    statistic: resampled.statistic,
  } as const;
  const indices = Array.from({ length: items }, (_, i) => i);
  const clusters = opts.clusters;
  const ci = clusters
    ? clusterBootstrapCI(
        indices.map((value) => ({ cluster: clusters[value] as string, value })),
        options,
      )
    : bootstrapCI(indices, options);
  return {
    low: ci.low,
    high: ci.high,
    confidence,
    method: KAPPA_INTERVAL_METHOD,
    resamples,
    seed: opts.seed,
    clusters: clusters ? new Set(clusters).size : items,
    undefinedResamples: resampled.undefinedResamples(),
    degenerate: ci.degenerate === true,
  };
}
