/**
 * The periods a text speaks of: fiscal years, quarters, and the words that pick one of two statements
 * of the same figure (standalone/consolidated, interim/final). Plain string rules; pure.
 */

/** Fiscal years a text refers to: FY23, "2022-23", "31 March 2023", "the year ended 31 March 2023". */
export function fiscalYears(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\bFY\s?'?(\d{2})\b/gi)) out.add(`FY${m[1]}`);
  for (const m of text.matchAll(/\b20(\d{2})-(\d{2})\b/g)) out.add(`FY${m[2]}`);
  for (const m of text.matchAll(/\b31 March 20(\d{2})\b/g)) out.add(`FY${m[1]}`);
  return out;
}

const QUARTER_WORDS: [RegExp, number][] = [
  [/\b(?:Q1|first quarter|April to June|30 June)\b/i, 1],
  [/\b(?:Q2|second quarter|July to September|30 September)\b/i, 2],
  [/\b(?:Q3|third quarter|October to December|31 December)\b/i, 3],
  [/\b(?:Q4|fourth quarter|January to March|quarter ended 31 March)\b/i, 4],
];

/** The quarter a text is about: 1-4, 0 for "quarter" without a number, null for none. */
export function quarterOf(text: string): number | null {
  for (const [re, q] of QUARTER_WORDS) if (re.test(text)) return q;
  return /\bquarter(?:ly)?\b/i.test(text) ? 0 : null;
}

/** Words that pick one of two statements of the same figure; each pair is exclusive. */
export const EXCLUSIVE_PAIRS: readonly (readonly [string, string])[] = [
  ['standalone', 'consolidated'],
  ['interim', 'final'],
];
