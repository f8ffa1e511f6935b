/**
 * Text tools shared by the offline baseline subjects: splitting a chunk into candidate sentences, the
 * content words and numbers of a question or sentence, the period words (fiscal year, quarter,
 * standalone/consolidated, interim/final) and approximate token counts. Plain string rules, no model.
 */
import { sentences } from '../../analysis/sentences.ts';
import { contentWords, stem } from '../../analysis/tokens.ts';
import type { ContextChunk, ModelRequest } from '../types.ts';

/** A sentence of a chunk, whitespace-normalised (PDF line breaks become spaces). */
export interface Sentence {
  chunkId: string;
  /** position of the chunk in the context (0 = top-ranked) */
  chunkRank: number;
  /** position of the sentence within its chunk */
  position: number;
  text: string;
}

const TABLE_ROW = /\s\|\s/;
/** "6. DIVIDENDS", "12.1 Basis of preparation", "5A. MANAGEMENT DISCUSSION AND ANALYSIS" */
const NUMBERED_HEADING = /^\d+[A-Z]?(?:\.\d+)*\.?\s+[A-Z][A-Za-z'’&(),\- ]*$/;

function isHeadingLine(line: string): boolean {
  if (line.length > 80 || /[.,;:]$/.test(line)) return false;
  if (NUMBERED_HEADING.test(line)) return true;
  const letters = line.replace(/[^A-Za-z]/g, '');
  // an all-capitals line (a report title) or a title line such as "Annual Report 2022-23"
  return (
    (letters.length >= 4 && letters === letters.toUpperCase()) || /^Annual Report \d{4}-\d{2}$/.test(line)
  );
}

/**
 * The candidate sentences of a chunk. Table rows and headings are not sentences (an answer quoting a
 * bare table row has no subject or period); consecutive prose lines are joined before splitting, since
 * PDF lines wrap mid-sentence.
 */
export function chunkSentences(chunk: ContextChunk, chunkRank: number): Sentence[] {
  const out: Sentence[] = [];
  let prose: string[] = [];
  const flush = () => {
    if (prose.length === 0) return;
    for (const text of sentences(prose.join(' ').replace(/\s+/g, ' ')))
      if (/[A-Za-z]{2}/.test(text)) out.push({ chunkId: chunk.id, chunkRank, position: out.length, text });
    prose = [];
  };
  for (const raw of chunk.text.split('\n')) {
    const line = raw.trim();
    if (line === '' || TABLE_ROW.test(line) || isHeadingLine(line)) flush();
    else prose.push(line);
  }
  flush();
  return out;
}

/** Function words and question words that say nothing about what is asked. */
const GENERIC = new Set(
  (
    'a an and are as at be been being but by did do does for from had has have how i if in into is it its of on ' +
    'or our s so than that the their them then there these they this those to was we were what when where which ' +
    'who whom why will with would you your much many according annual report reports reported limited company ' +
    'ltd end year years during give given state stated total per figure its itself ' +
    // period words are matched as periods (fiscalYears, quarterOf), not as content
    'ended ending quarter quarterly first second third fourth fiscal full january february march april may june july august ' +
    'september october november december'
  ).split(' '),
);

/** Unit abbreviations and the words a question spells them out in. */
const UNIT_WORDS: Record<string, readonly string[]> = {
  tco2e: ['tonne', 'co2', 'equivalent'],
  usd: ['dollar'],
  eps: ['earning', 'share'],
};

/**
 * The baseline's words: the shared content words (src/analysis/tokens.ts) with the baseline's own
 * stop-list (function words, question words and period words, which are matched as periods instead),
 * no numbers (figures are matched as figures), light stemming, fiscal-year and quarter labels dropped,
 * and unit abbreviations spelled out as a question writes them.
 */
export function baselineWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of contentWords(text, { stopWords: GENERIC, numbers: false, stemming: 'light' })) {
    if (/^fy\d{2}$/.test(word) || /^q[1-4]$/.test(word)) continue;
    out.add(word);
    for (const spelled of UNIT_WORDS[word] ?? []) out.add(stem(spelled));
  }
  return out;
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

/**
 * Splits "X (not Y)" and "not Y" out of a question: the negated words name what the answer must NOT
 * be ("standalone (not consolidated)", "in rupees (not US dollars)").
 */
export function negatedWords(question: string): { positive: string; negated: Set<string> } {
  const negated = new Set<string>();
  const positive = question.replace(/\(?\bnot\s+((?:[A-Za-z]+\s?){1,2})\)?/g, (_all, words: string) => {
    for (const w of baselineWords(words)) negated.add(w);
    return ' ';
  });
  return { positive, negated };
}

/** Approximate tokens: characters / 4 (no tokenizer; good enough for an offline baseline's usage). */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The approximate input tokens of a request: system and every message. */
export function requestTokens(request: ModelRequest): number {
  return approxTokens(request.system + request.messages.map((m) => m.content).join('\n'));
}
