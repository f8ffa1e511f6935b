import { normalQuantile } from './distributions.ts';
import { tailAlpha } from './validate.ts';

export interface ProportionInterval {
  successes: number;
  n: number;
  /** successes / n; NaN when n = 0 */
  share: number;
  /** Wilson score interval; null when n = 0 */
  low: number | null;
  high: number | null;
}

/**
 * A binomial proportion with its Wilson score interval (as statsmodels' `proportion_confint(count, nobs,
 * method='wilson')`): it stays inside [0, 1] and keeps its coverage near 0 and 1, where the normal
 * interval collapses (0 of 40 would give [0, 0]). Throws RangeError unless 0 <= successes <= n are
 * integers.
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): ProportionInterval {
  const fn = 'wilsonInterval';
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`${fn}: n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n)
    throw new RangeError(`${fn}: successes must be an integer from 0 to n (${n}), got ${successes}`);
  if (n === 0) return { successes, n, share: Number.NaN, low: null, high: null };
  const z = normalQuantile(1 - tailAlpha(fn, confidence));
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { successes, n, share: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
