/**
 * Where a text prints a gold figure, in any of the forms an Indian annual report prints it: "₹ 26,710.56
 * crore", a bare "26,710.56" in a table headed "(₹ in crore)", "26,71,056.00" in a table "₹ in lakh",
 * "267,105.6 million", "0.27 lakh crore", Indian (9,00,122.50) or western (900,122.50) grouping, "(2,724.10)"
 * or "-2,724.10" for a negative, with or without a Rs / Rs. / INR / ₹ marker.
 *
 * The numbers are read by extractQuantities (numbers.ts), so what it refuses is refused here too: digits
 * inside words and ids, fiscal-year spans (2023-24), dates (31 March 2024), bare years, list numbering.
 *
 * A printed number n with d decimals at scale s (how many printed units make one crore) matches a value V
 * in crore when |n - V*s| <= 0.5 * 10^-d (+1e-9): the printed number is the value rounded to what it
 * shows. A printed number with fewer than two significant digits ("1", "0.02") never matches.
 *
 * Pure functions; no I/O.
 */
import { groupDigits } from './inr.ts';
import { extractQuantities, type Quantity } from './numbers.ts';

export type FigureScale =
  | 'crore'
  | 'lakh'
  | 'million'
  | 'billion'
  | 'thousand'
  | 'rupees'
  | 'lakh crore'
  | 'plain';

export interface FigureHit {
  /** offsets into the text: text.slice(start, end) === raw */
  start: number;
  end: number;
  raw: string;
  scale: FigureScale;
  /**
   * how the scale was read: a scale word beside the number, the unit a table states in the same text
   * ("(₹ in crore)", "Rs. in Lakhs", "₹ million"), or none stated (crore assumed). A figure in a unit
   * other than 'INR crore' is read as a plain number: scale 'plain', via 'assumed'.
   */
  via: 'scale-word' | 'stated-unit' | 'assumed';
}

type RupeeScale = Exclude<FigureScale, 'plain'>;

/** How many printed units make one crore. */
const PER_CRORE: Readonly<Record<FigureScale, number>> = {
  crore: 1,
  lakh: 100,
  million: 10,
  billion: 0.01,
  thousand: 1e4,
  rupees: 1e7,
  'lakh crore': 1e-5,
  plain: 1,
};

/** extractQuantities' scale multiplier (rupees per printed unit) -> the scale's name. */
const BY_MULTIPLIER: ReadonlyMap<number, RupeeScale> = new Map([
  [1e7, 'crore'],
  [1e5, 'lakh'],
  [1e6, 'million'],
  [1e9, 'billion'],
  [1e3, 'thousand'],
  [1e12, 'lakh crore'],
]);

const SCALE_WORD = String.raw`lakhs?\s+crores?|lac\s+crores?|crores?|lakhs?|lacs?|millions?|mn|billions?|bn|thousands?`;

/**
 * A unit a table or note states: "(₹ in crore)", "₹ crore", "Rs. in Lakhs", "(₹in lakhs)", "in ₹ million",
 * "(Amount in ₹ crore)", "Rs in Crores", "Indian Rupee in crore"; and rupees as such: "(Amount in ₹)",
 * "(in Rs.)".
 */
const STATED_UNIT = new RegExp(
  String.raw`(?<![A-Za-z])(?<lead>(?:amounts?\s+in|\(\s*in)\s*)?(?:₹|Rs\.|(?:Rs|INR|Rupees?)(?![A-Za-z]))` +
    String.raw`(?:\s*(?:in\s+)?(?<word>${SCALE_WORD})(?![A-Za-z])|(?!\s*[-−(]?\d))`,
  'gi',
);

function scaleOfWord(word: string): RupeeScale {
  const w = word.toLowerCase();
  if (/\s/.test(w)) return 'lakh crore';
  if (w.startsWith('cr')) return 'crore';
  if (w.startsWith('la')) return 'lakh';
  if (w.startsWith('m')) return 'million';
  if (w.startsWith('b')) return 'billion';
  return 'thousand';
}

/** The units the text states, in order of first appearance; none when it states none. */
export function statedScales(text: string): RupeeScale[] {
  const out: RupeeScale[] = [];
  for (const m of text.matchAll(STATED_UNIT)) {
    const word = m.groups?.word;
    const scale = word ? scaleOfWord(word) : m.groups?.lead ? 'rupees' : null;
    if (scale && !out.includes(scale)) out.push(scale);
  }
  return out;
}

interface Printed {
  /** the printed number, signed, scale not applied */
  n: number;
  decimals: number;
  significant: number;
}

function printedNumber(q: Quantity): Printed | null {
  const core = /\d[\d,]*(?:\.\d+)?/.exec(q.raw)?.[0];
  if (core === undefined) return null;
  const digits = core.replace(/,/g, '');
  const magnitude = Number(digits);
  return {
    n: q.value < 0 ? -magnitude : magnitude,
    decimals: digits.split('.')[1]?.length ?? 0,
    significant: digits.replace('.', '').replace(/^0+/, '').length,
  };
}

/** Whether n, printed with `decimals` decimals, is `target` rounded. */
const roundsTo = (p: Printed, target: number): boolean =>
  Math.abs(p.n - target) <= 0.5 * 10 ** -p.decimals + 1e-9;

/** The quantity's unit is one a figure of this gold unit may be printed with, as a plain number. */
function plainUnitFits(q: Quantity, unit: string): boolean {
  if (q.scale !== 1) return false;
  switch (unit) {
    case 'INR per share':
      return q.unit === null || q.unit === 'INR' || q.unit === 'per-share';
    case '%':
      return q.unit === null || q.unit === '%';
    case 'tCO2e':
      return q.unit === null || q.unit === 'tCO2e';
    default:
      return q.unit === null;
  }
}

/**
 * Every place where `text` prints `value` given in `unit`: 'INR crore' values at any scale (a scale word
 * beside the number, else each unit the text states, else crore); 'INR per share', 'count', '%',
 * 'tCO2e' and any other unit as plain numbers. In order of appearance; one hit per printed number.
 */
export function findPrintedFigure(text: string, value: number, unit: string): FigureHit[] {
  return figureReader(text)(value, unit);
}

/**
 * `findPrintedFigure` for one text and many figures: the text's numbers and stated units are read once,
 * then each (value, unit) is looked up against them. `minSignificant` (default 2) is the fewest
 * significant digits a printed number must have to match: 1 lets "Rs 0.07" match 0.07, where a figure
 * is known to be printed (a derivation's operand), at the risk of a stray "1".
 */
export function figureReader(text: string, minSignificant = 2): (value: number, unit: string) => FigureHit[] {
  let stated: RupeeScale[] | undefined;
  const printed = extractQuantities(text).flatMap((q) => {
    const p = printedNumber(q);
    return p === null || p.significant < minSignificant ? [] : [{ q, p }];
  });
  return (value, unit) => {
    const hits: FigureHit[] = [];
    for (const { q, p } of printed) {
      const hit = (scale: FigureScale, via: FigureHit['via']): FigureHit => ({
        start: q.start,
        end: q.end,
        raw: q.raw,
        scale,
        via,
      });
      if (unit !== 'INR crore') {
        if (plainUnitFits(q, unit) && roundsTo(p, value)) hits.push(hit('plain', 'assumed'));
        continue;
      }
      if (q.unit !== null && q.unit !== 'INR') continue;
      const word = BY_MULTIPLIER.get(q.scale);
      if (word !== undefined) {
        if (roundsTo(p, value * PER_CRORE[word])) hits.push(hit(word, 'scale-word'));
        continue;
      }
      stated ??= statedScales(text);
      const tries: [RupeeScale, FigureHit['via']][] =
        stated.length > 0 ? stated.map((s) => [s, 'stated-unit']) : [['crore', 'assumed']];
      const found = tries.find(([s]) => roundsTo(p, value * PER_CRORE[s]));
      if (found) hits.push(hit(...found));
    }
    return hits;
  };
}

/** The value's own decimals, at most `max`. */
function ownDecimals(value: number, max: number): number {
  const frac = String(Math.abs(value)).split('.')[1] ?? '';
  return Math.min(frac.length, max);
}

/** Indian then western grouping; a negative as "-x", and bare also as "(x)". */
function bothGroupings(value: number, decimals: number, suffix = ''): string[] {
  const fixed = Math.abs(value).toFixed(decimals);
  return [true, false].flatMap((indian) => {
    const g = groupDigits(fixed, indian);
    if (value >= 0) return [g + suffix];
    return suffix ? [`-${g}${suffix}`] : [`-${g}`, `(${g})`];
  });
}

/**
 * Human-readable printed forms of the value, for notes and "nearest candidate" messages, deterministic
 * and without repeats. For 26710.56 'INR crore': ['₹ 26,710.56 crore', '26,710.56', '26,71,056.00 lakh',
 * '2,671,056.00 lakh', '2,67,105.60 million', '267,105.60 million', '267.11 billion']; billions from 100
 * crore and lakh crore from one lakh crore, so that each form keeps three significant digits. Other
 * units: the value as a plain number, Indian then western grouping.
 */
export function printedForms(value: number, unit: string): string[] {
  const forms: string[] = [];
  if (unit === 'INR crore') {
    const crore = bothGroupings(value, ownDecimals(value, 2));
    forms.push(`₹ ${crore[0]} crore`, ...crore);
    for (const s of ['lakh', 'million', 'billion', 'lakh crore'] as const) {
      const x = value * PER_CRORE[s];
      if (Math.abs(x) >= 1) forms.push(...bothGroupings(x, 2, ` ${s}`));
    }
  } else {
    forms.push(...bothGroupings(value, ownDecimals(value, 6)));
  }
  return [...new Set(forms)];
}

/**
 * What a hit prints, in the unit it was looked up in (crore for 'INR crore', the plain number for any
 * other unit): the printed number at its scale, and half a unit of its last printed digit, so that
 * "9,14,472.00" is 914472 ± 0.005 crore and "91,44,720.0 lakh" 914472 ± 0.0005.
 */
export function printedValue(hit: FigureHit): { value: number; halfUnit: number } {
  const core = /\d[\d,]*(?:\.(\d+))?/.exec(hit.raw);
  const magnitude = Number((core?.[0] ?? 'NaN').replace(/,/g, ''));
  const negative = /^\s*[-−(]|[-−]\s*(?:Rs\.?|INR|₹)?\s*\d/.test(hit.raw);
  const per = PER_CRORE[hit.scale];
  return {
    value: ((negative ? -1 : 1) * magnitude) / per,
    halfUnit: (0.5 * 10 ** -(core?.[1]?.length ?? 0)) / per,
  };
}
