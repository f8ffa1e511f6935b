/** Percentiles of sorted samples. */

/**
 * numpy's default (`method='linear'`) percentile of an ascending array at level `level` in [0, 1],
 * reproducing `np.percentile(a, level * 100)` operation for operation: q = (level * 100) / 100, virtual
 * index (n - 1) q, and numpy 1.24's two-sided lerp (b - (b - a)(1 - t) when t >= 1/2). NaN when empty.
 * The one percentile of rge: bootstrap intervals, latency quantiles, the agreement report's latencies.
 */
export function linearPercentile(sorted: ArrayLike<number>, level: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
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
