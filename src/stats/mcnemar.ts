import { binomialHalfCdf, chiSquare1Survival } from './distributions.ts';
import { assertArray, assertSameLength } from './validate.ts';

export type McNemarInput =
  | { a: readonly boolean[]; b: readonly boolean[] }
  | { table: [[number, number], [number, number]] };

export interface McNemarOptions {
  /** exact binomial test; default true when n01 + n10 < 25, else the chi-square test */
  exact?: boolean;
  /** continuity correction for the chi-square test; default true */
  correction?: boolean;
}

export interface McNemarResult {
  statistic: number;
  pValue: number;
  /** items with a false and b true: table[0][1] */
  n01: number;
  /** items with a true and b false: table[1][0] */
  n10: number;
  /** 'exact-binomial', 'chi-square-corrected', 'chi-square' or 'no-discordant-pairs' */
  method: string;
}

function readTable(input: McNemarInput): { n01: number; n10: number } {
  const fn = 'mcnemar';
  if ('table' in input) {
    const t = input.table;
    if (!Array.isArray(t) || t.length !== 2 || !t.every((row) => Array.isArray(row) && row.length === 2)) {
      throw new TypeError(`${fn}: table must be 2 x 2`);
    }
    for (const row of t) {
      for (const cell of row) {
        if (typeof cell !== 'number') throw new TypeError(`${fn}: table cells must be numbers`);
        if (!Number.isFinite(cell) || cell < 0) {
          throw new RangeError(`${fn}: table cells must be finite and non-negative, got ${cell}`);
        }
      }
    }
    return { n01: t[0][1], n10: t[1][0] };
  }
  const { a, b } = input;
  assertArray(fn, 'a', a);
  assertArray(fn, 'b', b);
  assertSameLength(fn, a, b);
  if (a.length === 0) throw new RangeError(`${fn}: a and b are empty`);
  let n01 = 0;
  let n10 = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (typeof x !== 'boolean' || typeof y !== 'boolean') {
      throw new TypeError(`${fn}: a[${i}] and b[${i}] must be booleans`);
    }
    if (!x && y) n01++;
    else if (x && !y) n10++;
  }
  return { n01, n10 };
}

/**
 * McNemar's test for paired binary outcomes, as `statsmodels.stats.contingency_tables.mcnemar`
 * (statsmodels 0.13.5). `table[i][j]` counts items with a = i and b = j (true = 1); only the
 * discordant cells n01 = table[0][1] and n10 = table[1][0] matter.
 *
 * - Exact (default when n01 + n10 < 25): statistic min(n01, n10), two-sided p =
 *   min(1, 2 * BinomCDF(min; n01 + n10, 1/2)); the counts must be whole numbers.
 * - Chi-square: statistic (|n01 - n10| - corr)^2 / (n01 + n10), corr = 1 with `correction` (the
 *   default) else 0, p from chi-square with 1 df. As in statsmodels the correction is not clamped,
 *   so n01 = n10 > 0 gives statistic 1 / (n01 + n10), not 0.
 *
 * n01 + n10 = 0 (no discordant pairs): statistic 0, p = 1, method 'no-discordant-pairs' (statsmodels
 * gives p = 1 for the exact test but inf or NaN statistics for the chi-square test there).
 * Throws TypeError/RangeError for a malformed table, negative or non-finite counts, fractional
 * counts with the exact test, non-boolean or different-length a and b.
 */
export function mcnemar(input: McNemarInput, opts: McNemarOptions = {}): McNemarResult {
  if (input === null || typeof input !== 'object') throw new TypeError('mcnemar: input must be an object');
  const { n01, n10 } = readTable(input);
  const discordant = n01 + n10;
  const exact = opts.exact ?? discordant < 25;
  const correction = opts.correction ?? true;
  if (discordant === 0) return { statistic: 0, pValue: 1, n01, n10, method: 'no-discordant-pairs' };
  if (exact) {
    if (!Number.isInteger(n01) || !Number.isInteger(n10)) {
      throw new RangeError(`mcnemar: the exact test needs whole counts, got n01 = ${n01}, n10 = ${n10}`);
    }
    const statistic = Math.min(n01, n10);
    const pValue = Math.min(1, 2 * binomialHalfCdf(statistic, discordant));
    return { statistic, pValue, n01, n10, method: 'exact-binomial' };
  }
  const corr = correction ? 1 : 0;
  const statistic = (Math.abs(n01 - n10) - corr) ** 2 / (1 * discordant);
  return {
    statistic,
    pValue: chiSquare1Survival(statistic),
    n01,
    n10,
    method: correction ? 'chi-square-corrected' : 'chi-square',
  };
}
