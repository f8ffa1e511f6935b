/**
 * A readable excerpt of a retrieved chunk for `rge retrieve`: whitespace collapsed, the window of about
 * `width` characters holding the most of the question's words (distinct words first, then
 * occurrences), cut at word boundaries with "…" where text was left out, and the question's words
 * marked. Words match case-insensitively, and a word of 4+ letters matches its longer forms
 * ("branch" marks "branches"). Function words (RETRIEVAL_STOP_WORDS) are never marked.
 */
import { RETRIEVAL_STOP_WORDS } from '../analysis/tokens.ts';

export interface ExcerptOptions {
  /** the window's length in characters (default 300) */
  width?: number;
  /** how a matched word is shown (default `**word**`) */
  mark?: (word: string) => string;
}

export const markdownMark = (word: string): string => `**${word}**`;
export const ansiBoldMark = (word: string): string => `\u001b[1m${word}\u001b[22m`;

const WORD = /[\p{L}\p{N}]+(?:[.,'’][\p{L}\p{N}]+)*%?/gu;

/** The question's words worth marking: lowercase, no function words, no single letters. */
export function queryTerms(question: string): string[] {
  const terms = new Set<string>();
  for (const m of question.toLowerCase().matchAll(WORD)) {
    const w = m[0].replace(/%$/, '');
    if (w.length < 2 || RETRIEVAL_STOP_WORDS.has(w)) continue;
    terms.add(w);
  }
  return [...terms];
}

/** The query term a word of the text matches, or null. */
function matchTerm(word: string, terms: readonly string[]): string | null {
  const w = word.toLowerCase().replace(/%$/, '');
  for (const t of terms) {
    if (w === t) return t;
    const [short, long] = w.length < t.length ? [w, t] : [t, w];
    if (short.length >= 4 && long.startsWith(short) && long.length - short.length <= 3) return t;
  }
  return null;
}

interface Hit {
  start: number;
  end: number;
  term: string;
}

export function excerpt(text: string, question: string, opts: ExcerptOptions = {}): string {
  const width = opts.width ?? 300;
  const mark = opts.mark ?? markdownMark;
  const flat = text.replace(/\s+/g, ' ').trim();
  const terms = queryTerms(question);
  const hits: Hit[] = [];
  for (const m of flat.matchAll(WORD)) {
    const term = matchTerm(m[0], terms);
    if (term) hits.push({ start: m.index, end: m.index + m[0].length, term });
  }
  // the window: from a little before some hit, the one whose next `width` characters hold the most
  let from = 0;
  if (flat.length > width && hits.length > 0) {
    let best = { distinct: -1, count: -1, at: 0 };
    for (const first of hits) {
      const at = Math.max(0, Math.min(first.start - Math.floor(width / 6), flat.length - width));
      const inside = hits.filter((h) => h.start >= at && h.end <= at + width);
      const distinct = new Set(inside.map((h) => h.term)).size;
      if (distinct > best.distinct || (distinct === best.distinct && inside.length > best.count))
        best = { distinct, count: inside.length, at };
    }
    from = best.at;
  }
  let to = Math.min(flat.length, from + width);
  // cut at word boundaries
  if (from > 0) {
    const space = flat.indexOf(' ', from);
    from = space === -1 || space >= to ? from : space + 1;
  }
  if (to < flat.length) {
    const space = flat.lastIndexOf(' ', to);
    to = space > from ? space : to;
  }
  let out = '';
  let at = from;
  for (const h of hits) {
    if (h.start < from || h.end > to) continue;
    out += flat.slice(at, h.start) + mark(flat.slice(h.start, h.end));
    at = h.end;
  }
  out += flat.slice(at, to);
  return `${from > 0 ? '…' : ''}${out}${to < flat.length ? '…' : ''}`;
}
