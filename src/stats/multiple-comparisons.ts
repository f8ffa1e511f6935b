import { assertFiniteNumbers } from './validate.ts';

function checkPValues(fn: string, pValues: readonly number[]): void {
  assertFiniteNumbers(fn, 'pValues', pValues, true);
  for (let i = 0; i < pValues.length; i++) {
    const p = pValues[i] as number;
    if (p < 0 || p > 1) throw new RangeError(`${fn}: pValues[${i}] is ${p}; p-values must lie in [0, 1]`);
  }
}

/**
 * Bonferroni-adjusted p-values, as `statsmodels.stats.multitest.multipletests(p, method='bonferroni')`
 * (statsmodels 0.13.5): min(1, m * p) for m tests, in input order. An empty list gives an empty list.
 * Throws RangeError for NaN or values outside [0, 1].
 */
export function bonferroni(pValues: readonly number[]): number[] {
  checkPValues('bonferroni', pValues);
  const m = pValues.length;
  return pValues.map((p) => Math.min(1, p * m));
}

/**
 * Holm's step-down adjusted p-values, as `multipletests(p, method='holm')` (statsmodels 0.13.5): sort
 * ascending, multiply the i-th smallest (0-based) by m - i, take the running maximum, cap at 1, and
 * return in input order. Tied p-values get the same adjusted value. Empty gives empty; throws
 * RangeError for NaN or values outside [0, 1].
 */
export function holm(pValues: readonly number[]): number[] {
  checkPValues('holm', pValues);
  const m = pValues.length;
  const order = Array.from({ length: m }, (_, i) => i).sort(
    (i, j) => (pValues[i] as number) - (pValues[j] as number) || i - j,
  );
  const adjusted = new Array<number>(m);
  let running = 0;
  for (let rank = 0; rank < m; rank++) {
    const i = order[rank] as number;
    running = Math.max(running, (pValues[i] as number) * (m - rank));
    adjusted[i] = Math.min(1, running);
  }
  return adjusted;
}
