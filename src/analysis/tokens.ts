/**
 * Content words and lexical overlap. Pure functions; no I/O.
 *
 * contentWords: the text lowercased, citation markers removed, split into words and numbers; English
 * stop-words dropped; numbers kept and normalised ("9,00,122.00" and "900,122" both become "900122",
 * "12.50" becomes "12.5"); a light plural fold ("emissions" -> "emission", but not "ss", "us", "is").
 *
 * overlap: token F1 between the two texts' content words, counted as multisets
 * (precision = shared / |a|, recall = shared / |b|, F1 = 2PR / (P + R)); 0 when either side is empty.
 * It is symmetric. coverage(a, b) is the one-sided share of a's distinct content words found in b.
 */
import { stripCitations } from './claims.ts';

/**
 * The one stop-word list, in parts. FUNCTION_WORDS are dropped by every reader of content words;
 * STOP_WORDS (the default of `contentWords`) adds the rest of English function words and the currency
 * and magnitude words of Indian reports; BASELINE_STOP_WORDS (the offline baselines' `baselineWords`)
 * adds instead the words a question asks with and the period words, which the baselines match as
 * periods (`fiscalYears`, `quarterOf`), not as content. The two extensions differ on purpose: each
 * keeps the behaviour its readers were built with.
 */
export const FUNCTION_WORDS: readonly string[] = (
  'a an the and or but so of in on at to for from by with into during than as per is are was were be been ' +
  'being do does did has have had will would may this that these those it its they them their we our you ' +
  'your i which who whom what when where why how there then if according'
).split(' ');

/** What STOP_WORDS adds to FUNCTION_WORDS: more English function words, currency and magnitude words. */
export const STOP_WORDS_EXTENSION: readonly string[] = (
  'nor yet without within onto upon over under about above below between among through before after since ' +
  "until via am done having shall should can could might must it's theirs he him his she her hers us ours " +
  'yours me my mine whose here also not no only just very more most less least such same other another each ' +
  'both all any some own too yes okay ok because while whereas though although however therefore thus ' +
  'hence respectively rs inr crore crores lakh lakhs lac million billion mn bn thousand'
).split(' ');

/**
 * What BASELINE_STOP_WORDS adds to FUNCTION_WORDS: question words ("give", "state", "total"), report
 * words ("annual report", "company", "ltd") and period words (matched as periods instead).
 */
export const BASELINE_STOP_WORDS_EXTENSION: readonly string[] = (
  's much many annual report reports reported limited company ltd end year years give given state stated ' +
  'total figure itself ended ending quarter quarterly first second third fourth fiscal full january ' +
  'february march april june july august september october november december'
).split(' ');

export const STOP_WORDS: ReadonlySet<string> = new Set([...FUNCTION_WORDS, ...STOP_WORDS_EXTENSION]);

/**
 * The lexical retriever's light stop words (bm25 and the excerpts that mark matched words):
 * FUNCTION_WORDS less four a question turns on ("per" share, "during", "may" the month, "according"),
 * plus the third-person pronouns, "such" and a possessive "s". "net", "total", "profit" still count.
 */
export const RETRIEVAL_STOP_WORDS: ReadonlySet<string> = new Set([
  ...FUNCTION_WORDS.filter((w) => !['per', 'during', 'may', 'according'].includes(w)),
  ...['he', 'her', 'his', 'she', 'such', 's'],
]);

export const BASELINE_STOP_WORDS: ReadonlySet<string> = new Set([
  ...FUNCTION_WORDS,
  ...BASELINE_STOP_WORDS_EXTENSION,
]);

function normaliseNumber(token: string): string {
  const n = Number(token.replace(/,/g, ''));
  return Number.isFinite(n) ? String(n) : token;
}

function fold(word: string): string {
  if (word.length > 3 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * A light stemmer (plural -s, -ies, -ed, -ing, final -e), so "employed" meets "employ" and "declare"
 * meets "declared"; stronger than the plural fold, for matching a question's words to a passage's.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

export interface WordOptions {
  /** the words to drop (default STOP_WORDS) */
  stopWords?: ReadonlySet<string>;
  /** keep number tokens, normalised (default true) */
  numbers?: boolean;
  /** 'plural' folds plurals (default); 'light' applies `stem` */
  stemming?: 'plural' | 'light';
}

/**
 * Lowercased content words of the text, in order: citation markers removed, stop-words dropped, numbers
 * kept and normalised unless `numbers: false`, plurals folded (or stemmed with `stemming: 'light'`).
 */
export function contentWords(text: string, opts: WordOptions = {}): string[] {
  const stop = opts.stopWords ?? STOP_WORDS;
  const keepNumbers = opts.numbers ?? true;
  const norm = opts.stemming === 'light' ? stem : fold;
  const words: string[] = [];
  const cleaned = stripCitations(text).toLowerCase();
  for (const m of cleaned.matchAll(/\d[\d,]*(?:\.\d+)?|[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu)) {
    const token = m[0].replace(/,+$/, '');
    if (/^\d/.test(token)) {
      if (keepNumbers) words.push(normaliseNumber(token));
      continue;
    }
    const word = token.replace(/['’]s$/, '');
    if (stop.has(word)) continue;
    words.push(norm(word));
  }
  return words;
}

function counts(words: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of words) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

/** Token F1 of the content words of a and b (multiset counts); 0 when either has no content words. */
export function overlap(a: string, b: string): number {
  const wa = contentWords(a);
  const wb = contentWords(b);
  if (wa.length === 0 || wb.length === 0) return 0;
  const cb = counts(wb);
  let shared = 0;
  for (const [w, n] of counts(wa)) shared += Math.min(n, cb.get(w) ?? 0);
  if (shared === 0) return 0;
  const precision = shared / wa.length;
  const recall = shared / wb.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Share of a's distinct content words that occur in b (1 when a has none). */
export function coverage(a: string, b: string): number {
  const wa = new Set(contentWords(a));
  if (wa.size === 0) return 1;
  const wb = new Set(contentWords(b));
  let found = 0;
  for (const w of wa) if (wb.has(w)) found += 1;
  return found / wa.size;
}

/** Unit abbreviations and the words a question spells them out in. */
const UNIT_WORDS: Record<string, readonly string[]> = {
  tco2e: ['tonne', 'co2', 'equivalent'],
  usd: ['dollar'],
  eps: ['earning', 'share'],
};

/**
 * The offline baselines' words: the content words with BASELINE_STOP_WORDS (function words, question
 * words and period words, which are matched as periods instead), no numbers (figures are matched as
 * figures), light stemming, fiscal-year and quarter labels dropped, and unit abbreviations spelled out
 * as a question writes them.
 */
export function baselineWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of contentWords(text, {
    stopWords: BASELINE_STOP_WORDS,
    numbers: false,
    stemming: 'light',
  })) {
    if (/^fy\d{2}$/.test(word) || /^q[1-4]$/.test(word)) continue;
    out.add(word);
    for (const spelled of UNIT_WORDS[word] ?? []) out.add(stem(spelled));
  }
  return out;
}

/**
 * Splits "X (not Y)" and "not Y" out of a question: the negated words (`baselineWords`) name what the
 * answer must NOT be ("standalone (not consolidated)", "in rupees (not US dollars)").
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
