/**
 * Quantities in text: the figures an answer states and a chunk holds, parsed with their unit and scale
 * so that "Rs 9,00,122.00 crore", "Rs 900,122 crore" and "Rs 9.00 lakh crore" compare equal.
 *
 * What is a quantity: a number written with Indian (9,00,122.00) or western (900,122.00) grouping, with
 * an optional sign or accounting parentheses ("(2,724)" is -2724), a currency marker before or after
 * (Rs, Rs., INR, ₹, $, US$, USD, rupees, dollars), a scale word (crore 1e7, lakh/lac 1e5, "lakh crore"
 * 1e12, million/mn 1e6, billion/bn 1e9, thousand 1e3) and a unit (%, per cent, percent, tCO2e,
 * per share, per equity share).
 *
 * What is not: digits inside words and ids (FY24, Q4, tCO2e, One97, chunk ids), citation markers such as
 * [reliance-FY24-1a2b3c4d], fiscal-year spans (2023-24, FY 2023-24), dates (31 March 2024, March 31,
 * 2024, 31/03/2024), bare years (a four-digit integer 1900-2100 with no unit or scale), list numbering
 * and section numbers at the start of a line ("1. ", "(2) ", "12.1 Basis"), and "Scope 1 and 2".
 *
 * Pure functions; no I/O.
 */
import { citationPattern } from './citation.ts';

export type QuantityUnit = 'INR' | 'USD' | '%' | 'tCO2e' | 'per-share';

export interface Quantity {
  /** the text as written, from the currency marker or sign to the last unit word */
  raw: string;
  /** in base units: rupees for INR and per-share, dollars for USD, plain for %, tCO2e and counts */
  value: number;
  unit: QuantityUnit | null;
  /** the scale word's multiplier (crore 1e7, ...); 1 when there is none */
  scale: number;
  /** offsets into the text: text.slice(start, end) === raw */
  start: number;
  end: number;
}

/**
 * The units of a question's numeric gold (src/questions/schema.ts validates them as NumericUnit);
 * 'text' for a figure whose unit is not one of these.
 */
export const GOLD_UNITS = [
  'INR crore',
  'INR per share',
  '%',
  'tCO2e',
  'count',
  'USD million',
  'text',
] as const;
export type GoldUnit = (typeof GOLD_UNITS)[number];

export interface GoldFigure {
  value: number;
  unit: GoldUnit | string;
  /** relative tolerance: |answer - value| <= tolerance * |value| */
  tolerance: number;
}

const MONTHS =
  '(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\\.?';

/** Spans that hold digits but no quantity; replaced by spaces (offsets stay valid). */
const MASKS: readonly RegExp[] = [
  // citation markers: [reliance-FY24-1a2b3c4d], [a-1, b-2], [1], [report.pdf#p10-1]
  citationPattern(),
  // fiscal years written with a space or a four-digit year: FY 24, FY2023-24, FY 2023-24
  /\bFY\s?\d{2,4}(?:\s?[-–/]\s?\d{2,4})?\b/gi,
  // year spans: 2023-24, 2023–2024, 2023/24
  /\b(?:19|20)\d{2}\s?[-–/]\s?\d{2,4}\b/g,
  // dates: 31 March 2024, 31st of March, 2024, March 31, 2024, March 2024, 31 March
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTHS}(?:,?\\s+\\d{4})?\\b`, 'g'),
  new RegExp(`\\b${MONTHS}\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b`, 'g'),
  new RegExp(`\\b${MONTHS},?\\s+\\d{4}\\b`, 'g'),
  // numeric dates: 31/03/2024, 31-03-2024, 31.03.2024
  /\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b/g,
  // list numbering at the start of a line: "1. ", "2) ", "(3) ", "5A. ", "- 1. "
  /^[ \t]*(?:[-*•][ \t]+)?\(?\d{1,2}[A-Za-z]?[.)](?=[ \t])/gm,
  // section numbers at the start of a line: "12.1 Basis of preparation"
  /^[ \t]*\d{1,2}(?:\.\d{1,2})+(?=[ \t]+[A-Z])/gm,
  // "Scope 1 and 2", "Scope 1, 2 and 3", "scope 3"
  /\bscope\s+\d(?:\s*(?:,|and|&|\+|\/)\s*\d)*\b/gi,
];

function mask(text: string): string {
  let out = text;
  for (const re of MASKS) {
    out = out.replace(re, (m) => ' '.repeat(m.length));
  }
  return out;
}

/** western 1,234,567.89 | Indian 12,34,567.89 | plain 1234567.89 */
const NUMBER = /(?:\d{1,3}(?:,\d{3})+(?!,?\d)|\d{1,2}(?:,\d{2})+,\d{3}(?!,?\d)|\d+)(?:\.\d+)?/g;

const CURRENCY_BEFORE = /(?:(?<![A-Za-z])(?:Rs\.?|INR|USD|US\$)|₹|\$)\s*$/;
const SCALE_AFTER =
  /^\s*(lakh\s+crores?|lakhs?\s+crores?|lac\s+crores?|crores?|cr\b\.?|lakhs?|lacs?\b|millions?|mn\b|billions?|bn\b|thousands?)(?![A-Za-z])/i;
const PERCENT_AFTER = /^\s*(%|per\s?cent\b|percent\b|pc\b)/i;
const TCO2E_AFTER = /^\s*(tCO2e|tCO2|tonnes?\s+(?:of\s+)?CO2(?:\s*e(?:quivalent)?)?|t\s?CO2e)(?![A-Za-z])/i;
const CURRENCY_AFTER = /^\s*(INR|rupees|USD|US\s+dollars?|dollars)(?![A-Za-z])/i;
const PER_SHARE_AFTER = /^\s*per\s+(?:equity\s+|ordinary\s+)?share\b/i;

function scaleOf(word: string): number {
  const w = word.toLowerCase().replace(/\s+/g, ' ');
  if (/^(lakhs?|lac) crores?$/.test(w)) return 1e12;
  if (w.startsWith('crore') || w.startsWith('cr')) return 1e7;
  if (w.startsWith('lakh') || w.startsWith('lac')) return 1e5;
  if (w.startsWith('million') || w === 'mn') return 1e6;
  if (w.startsWith('billion') || w === 'bn') return 1e9;
  if (w.startsWith('thousand')) return 1e3;
  return 1;
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** Where a quantity runs in the masked text, and what was read around its number so far. */
interface Span {
  start: number;
  end: number;
  negative: boolean;
  unit: QuantityUnit | null;
  scale: number;
}

/** Every quantity in the text, in order of appearance. */
export function extractQuantities(text: string): Quantity[] {
  const masked = mask(text);
  const out: Quantity[] = [];
  for (const m of masked.matchAll(NUMBER)) {
    const q = quantityAt(masked, m[0], m.index);
    if (q)
      out.push({
        raw: text.slice(q.start, q.end),
        value: q.value,
        unit: q.unit,
        scale: q.scale,
        start: q.start,
        end: q.end,
      });
  }
  return out;
}

/** The quantity whose number `core` stands at `index` of the masked text, or null when it is none. */
function quantityAt(masked: string, core: string, index: number): (Span & { value: number }) | null {
  if (!standsAlone(masked, index, index + core.length)) return null;
  const magnitude = Number(core.replace(/,/g, ''));
  if (!Number.isFinite(magnitude)) return null;
  const span: Span = { start: index, end: index + core.length, negative: false, unit: null, scale: 1 };
  readSignAndCurrency(masked, span);
  readScaleAndUnit(masked, span);
  if (!readAccountingParentheses(masked, core, index, span)) return null;
  if (isBareYear(core, magnitude, span)) return null;
  return { ...span, value: (span.negative ? -magnitude : magnitude) * span.scale };
}

/**
 * Whether the number is not part of a word or id (FY24, One97, tCO2e, 1a2b...) or the tail of a
 * decimal; a word right after it may only be a scale or a percent.
 */
function standsAlone(masked: string, start: number, end: number): boolean {
  const prev = masked[start - 1];
  if (isWordChar(prev) || prev === '.') return false;
  if (prev === '-' && isWordChar(masked[start - 2])) return false;
  const next = masked[end];
  return !(
    isWordChar(next) &&
    !SCALE_AFTER.test(masked.slice(end)) &&
    !PERCENT_AFTER.test(masked.slice(end))
  );
}

const isMinus = (c: string | undefined) => c === '-' || c === '−';

/** A sign before the number ("-1.20", "−1.20"), and a currency marker before it (possibly before the sign: "Rs -999.99", "-Rs 5"). */
function readSignAndCurrency(masked: string, span: Span): void {
  if (isMinus(masked[span.start - 1]) && !isWordChar(masked[span.start - 2])) {
    span.negative = true;
    span.start -= 1;
  }
  const before = CURRENCY_BEFORE.exec(masked.slice(Math.max(0, span.start - 8), span.start));
  if (!before) return;
  span.unit = /^(USD|US\$|\$)/.test(before[0]) ? 'USD' : 'INR';
  span.start -= before[0].length;
  if (!span.negative && isMinus(masked[span.start - 1]) && !isWordChar(masked[span.start - 2])) {
    span.negative = true;
    span.start -= 1;
  }
}

/** A scale word after the number, then a unit (percent, tCO2e or a currency), then "per share". */
function readScaleAndUnit(masked: string, span: Span): void {
  let tail = masked.slice(span.end);
  const sc = SCALE_AFTER.exec(tail);
  if (sc) {
    span.scale = scaleOf(sc[1] ?? '');
    span.end += sc[0].length;
    tail = masked.slice(span.end);
  }
  const pct = PERCENT_AFTER.exec(tail);
  const tco = pct ? null : TCO2E_AFTER.exec(tail);
  const cur = pct || tco ? null : CURRENCY_AFTER.exec(tail);
  if (pct) {
    span.unit = '%';
    span.end += pct[0].length;
  } else if (tco) {
    span.unit = 'tCO2e';
    span.end += tco[0].length;
  } else if (cur) {
    span.unit = /^(INR|rupees)$/i.test(cur[1] ?? '') ? 'INR' : 'USD';
    span.end += cur[0].length;
  }
  tail = masked.slice(span.end);
  const ps = span.unit === '%' || span.unit === 'tCO2e' ? null : PER_SHARE_AFTER.exec(tail);
  if (ps && (span.unit === 'INR' || span.unit === null)) {
    span.unit = 'per-share';
    span.end += ps[0].length;
  }
}

/**
 * Accounting parentheses around a plain number: "(2,724)" is negative. False for "(1)", which is list
 * numbering, not a quantity.
 */
function readAccountingParentheses(masked: string, core: string, index: number, span: Span): boolean {
  if (span.negative || span.unit !== null || span.scale !== 1) return true;
  if (masked[index - 1] !== '(' || masked[span.end] !== ')') return true;
  if (!(/[,.]/.test(core) || core.length >= 3)) return false;
  span.negative = true;
  span.start = index - 1;
  span.end += 1;
  return true;
}

/** A bare four-digit year: "Rules, 2015", "renamed in 2025". */
function isBareYear(core: string, magnitude: number, span: Span): boolean {
  return (
    span.unit === null &&
    span.scale === 1 &&
    !span.negative &&
    /^\d{4}$/.test(core) &&
    magnitude >= 1900 &&
    magnitude <= 2100
  );
}

/** Whether two units may describe the same figure (a rupee amount per share is still rupees). */
export function unitsCompatible(a: QuantityUnit | null, b: QuantityUnit | null): boolean {
  if (a === b || a === null || b === null) return true;
  const rupees = (u: QuantityUnit) => u === 'INR' || u === 'per-share';
  return rupees(a) && rupees(b);
}

/** |a - b| <= relTol * max(|a|, |b|); exact equality for zero. */
export function withinRelative(a: number, b: number, relTol: number): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= relTol * Math.max(Math.abs(a), Math.abs(b)) + 1e-12;
}

/**
 * Same figure: compatible units and values (in base units, scale applied) within ±relTol relative.
 * A bare number (no unit) matches a unit-bearing one only when the scaled values agree, so the table
 * cell "5,630.02" does not match "Rs 5,630.02 crore", but "12.50" matches "Rs 12.50 per share".
 */
export function sameQuantity(a: Quantity, b: Quantity, relTol = 0.01): boolean {
  return unitsCompatible(a.unit, b.unit) && withinRelative(a.value, b.value, relTol);
}

/** Whether the value, rounded to the decimals the quantity is written with (at least one), is written. */
function roundsTo(q: Quantity, value: number): boolean {
  const decimals = /\d\.(\d+)/.exec(q.raw)?.[1]?.length ?? 0;
  if (decimals === 0 || q.scale !== 1) return false;
  return Number(value.toFixed(decimals)) === Number(q.value.toFixed(decimals));
}

/**
 * Whether a quantity states a numeric gold figure. The gold's unit fixes the base value (INR crore:
 * value x 1e7 rupees; USD million: value x 1e6 dollars; INR per share, %, tCO2e, count: value as is),
 * and the quantity must have a compatible unit. A bare quantity (no unit, no scale word) is read in the
 * gold's own unit, because the question fixes the unit: "7,959.98" states 7,959.98 crore. For 'text'
 * the value is compared as written or in base units. A percentage written with one or more decimals
 * also matches when the gold, rounded to the same decimals, is what is written ("0.4%" for 0.421%),
 * since small percentages are routinely rounded to one decimal.
 */
export function quantityMatchesGold(q: Quantity, gold: GoldFigure): boolean {
  const tol = gold.tolerance;
  const bare = q.unit === null && q.scale === 1;
  const close = (v: number, g: number) =>
    g === 0 ? Math.abs(v) <= Math.max(tol, 1e-9) : Math.abs(v - g) <= tol * Math.abs(g) + 1e-9;
  switch (gold.unit) {
    case 'INR crore':
      if (bare) return close(q.value, gold.value);
      return (q.unit === 'INR' || q.unit === null) && close(q.value, gold.value * 1e7);
    case 'USD million':
      if (bare) return close(q.value, gold.value);
      return (q.unit === 'USD' || q.unit === null) && close(q.value, gold.value * 1e6);
    case 'INR per share':
      return (q.unit === 'per-share' || q.unit === 'INR' || q.unit === null) && close(q.value, gold.value);
    case '%':
      return (q.unit === '%' || bare) && (close(q.value, gold.value) || roundsTo(q, gold.value));
    case 'tCO2e':
      return (q.unit === 'tCO2e' || q.unit === null) && close(q.value, gold.value);
    case 'count':
      return q.unit === null && close(q.value, gold.value);
    default:
      return close(q.value, gold.value) || close(q.value / q.scale, gold.value);
  }
}

/** Figures written in the text ("8,31,239", "3.45", "-479.43"), without commas; years and FY labels excluded. */
export function figures(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![\w.-])-?\d[\d,]*(?:\.\d+)?%?/g)) {
    const v = m[0].replace(/,/g, '');
    if (/^(?:19|20)\d{2}$/.test(v)) continue; // a calendar year
    out.add(v);
  }
  return out;
}

/** Whether a sentence states a figure (a number that is not just a year or the FY label). */
export function hasFigure(text: string): boolean {
  return figures(text).size > 0;
}

/** Base units per unit of a gold figure: 'INR crore' 1e7 rupees, 'USD million' 1e6 dollars, others 1. */
export function goldUnitScale(unit: string): number {
  if (unit === 'INR crore') return 1e7;
  if (unit === 'USD million') return 1e6;
  return 1;
}

/**
 * The quantity's value in a gold figure's unit (quantityMatchesGold's reading: a bare number is read in
 * the gold's own unit), or null when its unit cannot be that one: "Rs 9,14,472.00 crore" is 914472 in
 * 'INR crore', a bare "9,14,472.00" too; "27.0%" is 27 in '%'.
 */
export function inGoldUnit(q: Quantity, unit: string): number | null {
  const bare = q.unit === null && q.scale === 1;
  switch (unit) {
    case 'INR crore':
      if (bare) return q.value;
      return q.unit === 'INR' || q.unit === null ? q.value / 1e7 : null;
    case 'USD million':
      if (bare) return q.value;
      return q.unit === 'USD' || q.unit === null ? q.value / 1e6 : null;
    case 'INR per share':
      return q.unit === 'per-share' || q.unit === 'INR' || q.unit === null ? q.value : null;
    case '%':
      return q.unit === '%' || bare ? q.value : null;
    case 'tCO2e':
      return q.unit === 'tCO2e' || q.unit === null ? q.value : null;
    case 'count':
      return q.unit === null ? q.value : null;
    default:
      return q.value / q.scale;
  }
}

/**
 * Half a unit of the last digit the quantity is written with, in base units: "Rs 9,14,472.00 crore" is
 * known to 0.005 crore, "Rs 9.14 lakh crore" to 0.005 lakh crore, "27.0%" to 0.05. An integer that ends
 * in zeros is a round number ("about Rs 9,15,000 crore", "4,200 people"), read to within 1% (the
 * rubric's tolerance) or half a unit, whichever is wider.
 */
export function printedHalfUnit(q: Quantity): number {
  const digits = /\d[\d,]*(?:\.(\d+))?/.exec(q.raw);
  const decimals = digits?.[1]?.length ?? 0;
  const half = 0.5 * 10 ** -decimals;
  const round = decimals === 0 && /0$/.test(digits?.[0] ?? '');
  return (round ? Math.max(half, 0.01 * Math.abs(q.value / q.scale)) : half) * q.scale;
}

/**
 * Whether a figure printed as a ± da and one printed as b ± db (half a unit of each one's last digit)
 * can be the same value. Two roundings that only touch cannot ("0.06" and "0.07" meet at 0.065, which
 * rounds to one of them); an exact value (db 0) at the edge of a rounding can. A little room either way
 * for floating point.
 */
export function intervalsMeet(a: number, da: number, b: number, db: number): boolean {
  const eps = 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  const distance = Math.abs(a - b);
  return da > 0 && db > 0 ? distance < da + db - eps : distance <= da + db + eps;
}

/**
 * Whether two quantities may be the same figure as printed: compatible units, and values that agree
 * to the precision each is written with ("Rs 9.14 lakh crore" and "Rs 9,14,472.00 crore" do; "Rs
 * 19,446.49 crore" and "Rs 19,476.72 crore", 0.2% apart, do not). A bare table cell ("9,14,472.00"
 * under a crore header) is read before the other's scale word.
 */
export function samePrinted(a: Quantity, b: Quantity): boolean {
  if (!unitsCompatible(a.unit, b.unit)) return false;
  const bareA = a.unit === null && a.scale === 1;
  const bareB = b.unit === null && b.scale === 1;
  if (bareA !== bareB && (bareA ? b.scale : a.scale) !== 1) {
    const [cell, figure] = bareA ? [a, b] : [b, a];
    return intervalsMeet(
      cell.value,
      printedHalfUnit(cell),
      figure.value / figure.scale,
      printedHalfUnit(figure) / figure.scale,
    );
  }
  return intervalsMeet(a.value, printedHalfUnit(a), b.value, printedHalfUnit(b));
}
