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
