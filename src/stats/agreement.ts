/**
 * Agreement among raters beyond Cohen's kappa: Krippendorff's alpha (nominal, ordinal or interval; any
 * number of raters; missing ratings) and Fleiss' kappa (complete data, any number of raters).
 *
 * Undefined values are NaN, as `cohenKappa` and scikit-learn return them: alpha when no item has two
 * ratings or when every pairable rating is in one category (expected disagreement 0, so 0/0); Fleiss'
 * kappa when one category holds every rating (chance agreement 1). `krippendorffAlphaDetail` says
 * why (docs/adr/0027-agreement-on-an-ordinal-rubric.md).
 */
import { assertArray } from './validate.ts';

export type MeasurementLevel = 'nominal' | 'ordinal' | 'interval';

export interface KrippendorffOptions {
  /** default 'ordinal', the rubric's 0/1/2 */
  level?: MeasurementLevel;
  /**
   * the scale's values in their order (as fast-krippendorff's `value_domain`); default the sorted
   * distinct values rated. A category of the scale that nobody used changes no distance except ordinal
   * ones through its count (0).
   */
  values?: readonly number[];
}

export interface KrippendorffDetail {
  alpha: number;
  level: MeasurementLevel;
  /** items with at least two ratings (the others cannot be paired and drop out) */
  pairableItems: number;
  /** ratings in those items */
  pairableValues: number;
  observedDisagreement: number;
  expectedDisagreement: number;
  /** why alpha is undefined (NaN), or null */
  undefinedReason: string | null;
}

/** Raters' ratings: `raters[r][i]` is rater r's score of item i, null where r did not rate i. */
export type Ratings = readonly (readonly (number | null)[])[];

function checkRatings(fn: string, raters: unknown): number {
  assertArray(fn, 'raters', raters);
  if (raters.length < 2)
    throw new RangeError(`${fn}: raters must hold at least two raters (got ${raters.length})`);
  let items = -1;
  raters.forEach((r, ri) => {
    assertArray(fn, `raters[${ri}]`, r);
    if (items >= 0 && r.length !== items)
      throw new RangeError(
        `${fn}: raters[${ri}] rates ${r.length} items, raters[0] ${items}; every rater needs one entry per item (null when missing)`,
      );
    items = r.length;
    r.forEach((x, i) => {
      if (x === null) return;
      if (typeof x !== 'number')
        throw new TypeError(`${fn}: raters[${ri}][${i}] is not a number or null (${typeof x})`);
      if (!Number.isFinite(x))
        throw new RangeError(`${fn}: raters[${ri}][${i}] is ${x}; ratings must be finite or null`);
    });
  });
  if (items === 0) throw new RangeError(`${fn}: raters rate no items`);
  return items;
}

/** The scale: given (checked for repeats) or the sorted distinct ratings. */
function scaleOf(fn: string, raters: Ratings, values: readonly number[] | undefined): number[] {
  if (values === undefined) {
    const seen = new Set<number>();
    for (const r of raters) for (const x of r) if (x !== null) seen.add(x);
    return [...seen].sort((a, b) => a - b);
  }
  assertArray(fn, 'values', values);
  if (new Set(values).size !== values.length) throw new RangeError(`${fn}: values has repeated entries`);
  values.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new RangeError(`${fn}: values[${i}] must be a finite number`);
  });
  return [...values];
}

/**
 * The coincidence matrix: each item with m >= 2 ratings adds 1 / (m - 1) for every ordered pair of its
 * ratings by different raters. Returns it (k x k, row-major) and the number of pairable items.
 */
function coincidences(fn: string, raters: Ratings, items: number, scale: readonly number[]) {
  const k = scale.length;
  const index = new Map(scale.map((v, i) => [v, i]));
  const o = new Float64Array(k * k);
  const counts = new Float64Array(k);
  let pairable = 0;
  for (let i = 0; i < items; i++) {
    counts.fill(0);
    let m = 0;
    for (let r = 0; r < raters.length; r++) {
      const x = raters[r]?.[i] ?? null;
      if (x === null) continue;
      const c = index.get(x);
      if (c === undefined)
        throw new RangeError(
          `${fn}: raters[${r}][${i}] is ${x}, which is not in values [${scale.join(', ')}]`,
        );
      counts[c] = (counts[c] as number) + 1;
      m++;
    }
    if (m < 2) continue;
    pairable++;
    for (let c = 0; c < k; c++) {
      const nc = counts[c] as number;
      if (nc === 0) continue;
      for (let d = 0; d < k; d++) {
        const pairs = c === d ? nc * (nc - 1) : nc * (counts[d] as number);
        if (pairs > 0) o[c * k + d] = (o[c * k + d] as number) + pairs / (m - 1);
      }
    }
  }
  return { o, pairable };
}

/** The squared distance between categories c and d of the scale at a level (marginals n for ordinal). */
function distance(level: MeasurementLevel, scale: readonly number[], n: Float64Array) {
  return (c: number, d: number): number => {
    if (c === d) return 0;
    if (level === 'nominal') return 1;
    if (level === 'interval') return ((scale[c] as number) - (scale[d] as number)) ** 2;
    const lo = Math.min(c, d);
    const hi = Math.max(c, d);
    let between = 0;
    for (let g = lo; g <= hi; g++) between += n[g] as number;
    return (between - ((n[lo] as number) + (n[hi] as number)) / 2) ** 2;
  };
}

/** Krippendorff's alpha with what it was computed from, and why it is undefined when it is. */
export function krippendorffAlphaDetail(raters: Ratings, opts: KrippendorffOptions = {}): KrippendorffDetail {
  const fn = 'krippendorffAlpha';
  const items = checkRatings(fn, raters);
  const level = opts.level ?? 'ordinal';
  if (level !== 'nominal' && level !== 'ordinal' && level !== 'interval')
    throw new RangeError(`${fn}: level must be 'nominal', 'ordinal' or 'interval', got ${String(level)}`);
  const scale = scaleOf(fn, raters, opts.values);
  const { o, pairable } = coincidences(fn, raters, items, scale);
  return alphaFromCoincidences(o, pairable, level, scale);
}

/**
 * Krippendorff's alpha of two raters from their k x k table (`table[i * k + j]`: items rater a put in
 * category i and rater b in j; the scale 0..k-1): the coincidence matrix of a complete pair is the table
 * plus its transpose (integer counts, so exactly the one `krippendorffAlphaDetail` accumulates item by
 * item), then the same computation: equal to `krippendorffAlpha([a, b], { level, values })` to the bit,
 * in time independent of the number of items.
 */
export function pairAlphaFromTable(table: ArrayLike<number>, k: number, level: MeasurementLevel): number {
  const o = new Float64Array(k * k);
  let pairable = 0;
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      const t = table[i * k + j] as number;
      pairable += t;
      o[i * k + j] = (o[i * k + j] as number) + t;
      o[j * k + i] = (o[j * k + i] as number) + t;
    }
  const scale = Array.from({ length: k }, (_, i) => i);
  return alphaFromCoincidences(o, pairable, level, scale).alpha;
}

/** Alpha from the coincidence matrix `o` (k x k) of `pairable` items, and why it is undefined when it is. */
function alphaFromCoincidences(
  o: Float64Array,
  pairable: number,
  level: MeasurementLevel,
  scale: readonly number[],
): KrippendorffDetail {
  const k = scale.length;
  const n = new Float64Array(k);
  for (let c = 0; c < k; c++) for (let d = 0; d < k; d++) n[c] = (n[c] as number) + (o[c * k + d] as number);
  const total = n.reduce((s, x) => s + x, 0);
  const delta = distance(level, scale, n);
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < k; c++)
    for (let d = 0; d < k; d++) {
      const dist = delta(c, d);
      if (dist === 0) continue;
      observed += (o[c * k + d] as number) * dist;
      expected += (n[c] as number) * (n[d] as number) * dist;
    }
  const detail = { level, pairableItems: pairable, pairableValues: total };
  if (pairable === 0)
    return {
      ...detail,
      alpha: Number.NaN,
      observedDisagreement: Number.NaN,
      expectedDisagreement: Number.NaN,
      undefinedReason: 'no item has two ratings, so no pair of ratings can be compared',
    };
  const observedDisagreement = observed / total;
  const expectedDisagreement = expected / (total * (total - 1));
  if (expected === 0)
    return {
      ...detail,
      alpha: Number.NaN,
      observedDisagreement,
      expectedDisagreement,
      undefinedReason:
        'every paired rating is in one category, so expected disagreement is 0 and alpha is 0/0',
    };
  return {
    ...detail,
    alpha: 1 - ((total - 1) * observed) / expected,
    observedDisagreement,
    expectedDisagreement,
    undefinedReason: null,
  };
}

/**
 * Krippendorff's alpha (as pln-fing-udelar/fast-krippendorff's `alpha` with `value_domain` = `values`):
 * 1 - D_o / D_e over the coincidence matrix of the pairable items. `raters[r][i]` is rater r's rating
 * of item i, null when missing; items with fewer than two ratings drop out. NaN where undefined (see
 * `krippendorffAlphaDetail().undefinedReason`). Throws RangeError/TypeError for fewer than two raters,
 * ragged raters, non-finite ratings, a rating outside `values`, or an unknown level.
 */
export function krippendorffAlpha(raters: Ratings, opts: KrippendorffOptions = {}): number {
  return krippendorffAlphaDetail(raters, opts).alpha;
}

/**
 * Fleiss' kappa (statsmodels' `fleiss_kappa(aggregate_raters(items x raters), method='fleiss')`) for
 * complete data: every item rated by every rater. NaN where undefined (one category holds every rating:
 * chance agreement is 1). Throws RangeError for missing ratings (Fleiss' kappa needs the same number of
 * ratings per item; use `krippendorffAlpha`), fewer than two raters or ragged raters.
 */
export function fleissKappa(raters: Ratings, opts: { values?: readonly number[] } = {}): number {
  const fn = 'fleissKappa';
  const items = checkRatings(fn, raters);
  const m = raters.length;
  const scale = scaleOf(fn, raters, opts.values);
  const index = new Map(scale.map((v, i) => [v, i]));
  const categoryTotals = new Float64Array(scale.length);
  let agreement = 0;
  const counts = new Float64Array(scale.length);
  for (let i = 0; i < items; i++) {
    counts.fill(0);
    for (let r = 0; r < m; r++) {
      const x = raters[r]?.[i] ?? null;
      if (x === null)
        throw new RangeError(
          `${fn}: raters[${r}][${i}] is missing; Fleiss' kappa needs every item rated by every rater (use krippendorffAlpha)`,
        );
      const c = index.get(x);
      if (c === undefined) throw new RangeError(`${fn}: raters[${r}][${i}] is ${x}, which is not in values`);
      counts[c] = (counts[c] as number) + 1;
    }
    let squares = 0;
    for (let c = 0; c < scale.length; c++) {
      squares += (counts[c] as number) ** 2;
      categoryTotals[c] = (categoryTotals[c] as number) + (counts[c] as number);
    }
    agreement += (squares - m) / (m * (m - 1));
  }
  const meanAgreement = agreement / items;
  let chance = 0;
  for (const t of categoryTotals) chance += (t / (items * m)) ** 2;
  if (chance === 1) return Number.NaN;
  return (meanAgreement - chance) / (1 - chance);
}
