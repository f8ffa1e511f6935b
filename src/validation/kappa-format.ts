/**
 * How a kappa is printed wherever rge prints one (the report's tables, `rge judge audit`): the estimate,
 * its 95% interval and a warning when it rests on fewer than KAPPA_MIN_N items. Pure.
 */
import { KAPPA_MIN_N } from '../stats/index.ts';

/** What a printed kappa needs: n, the estimate (NaN: undefined) and its interval (null: none). */
export interface KappaShown {
  n: number;
  kappa: number;
  low: number | null;
  high: number | null;
}

const f3 = (x: number) => x.toFixed(3);

/** The warning mark of a kappa on too few items. */
export const FEW_MARK = '⚠ few';

/**
 * "0.831 [0.802, 0.858]", "n/a (one score only)", with " ⚠ few" when n < KAPPA_MIN_N; `intervalMark`
 * (a footnote mark about the interval) goes right after the interval.
 */
export function formatKappa(k: KappaShown, intervalMark = ''): string {
  const few = k.n < KAPPA_MIN_N ? ` ${FEW_MARK}` : '';
  if (k.n === 0) return 'n/a (no items)';
  if (!Number.isFinite(k.kappa)) return `n/a (one score only)${few}`;
  const ci = k.low === null || k.high === null ? '' : ` [${f3(k.low)}, ${f3(k.high)}]${intervalMark}`;
  return `${f3(k.kappa)}${ci}${few}`;
}

/** The sentence under a table of kappas: what the interval is, and what the warning means. */
export function kappaFootnote(what: string): string {
  return `Each kappa: Cohen's kappa on 0/1/2 scores, ${what}, with a BCa 95% interval (2,000 bootstrap resamples of questions, a question's runs kept together; seeded). ${FEW_MARK}: fewer than ${KAPPA_MIN_N} responses, where a kappa near 0.75 has an interval about 0.4 wide and cannot be told from 0.5; a point interval there says the bootstrap had too few items, not that the figure is exact.`;
}

/** An agreement figure beside kappa (quadratic-weighted kappa, Krippendorff's alpha): NaN, nulls where undefined. */
export interface OrdinalFigure {
  value: number;
  low: number | null;
  high: number | null;
}

/** An ordinal figure printed as a kappa is (`formatKappa`), on `n` items. */
export function formatOrdinal(n: number, f: OrdinalFigure): string {
  return formatKappa({ n, kappa: f.value, low: f.low, high: f.high });
}
