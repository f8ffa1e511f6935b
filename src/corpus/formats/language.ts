/**
 * The language a text is written in, by eld (the efficient language detector) on its small n-gram
 * database: right on a single question of 8-20 words as well as on a document, deterministic, and about
 * 20,000 short texts a second (docs/adr/0040 has the figures against franc and the other eld sizes).
 *
 * eld reads the first 1,000 characters of what it is given, so a document is judged by pieces of that
 * size spread over the whole of it (`documentPieces`), each piece a vote: a 2,000-page report costs what
 * a few pages cost, and an English preface does not decide the language of a French report.
 */
import { eld } from 'eld/small';

/** What `detectLanguage` says: an ISO 639-1 code, or null when the text says too little to tell. */
export interface DetectedLanguage {
  language: string | null;
  /** eld's own judgement that the answer is not a guess (enough n-grams, a clear lead over the next) */
  reliable: boolean;
}

/** Characters eld reads of a text (it ignores the rest). */
export const DETECTOR_CHARS = 1_000;

/** Pieces of a long document that vote on its language, spread evenly from its start to its end. */
export const DOCUMENT_PIECES = 9;

/** The language of `text` (a question, a paragraph); of a longer text, its first 1,000 characters'. */
export function detectLanguage(text: string): DetectedLanguage {
  if (!/\p{L}/u.test(text)) return { language: null, reliable: false };
  const result = eld.detect(text);
  if (result.language === '') return { language: null, reliable: false };
  return { language: result.language, reliable: result.isReliable() };
}

/**
 * A document's text in pieces for `detectLanguage`: the whole text when it is short, else
 * DOCUMENT_PIECES pieces of about DETECTOR_CHARS taken at even steps through it, each starting at a
 * line's start when one is near (the lines of a page: headings, paragraphs, rows).
 */
export function documentPieces(text: string): string[] {
  if (text.length <= DETECTOR_CHARS) return [text];
  const step = (text.length - DETECTOR_CHARS) / (DOCUMENT_PIECES - 1);
  const pieces: string[] = [];
  for (let i = 0; i < DOCUMENT_PIECES; i++) {
    const at = Math.floor(i * step);
    const lineStart = text.lastIndexOf('\n', at) + 1;
    const start = at - lineStart <= DETECTOR_CHARS / 2 ? lineStart : at;
    pieces.push(text.slice(start, start + DETECTOR_CHARS));
  }
  return pieces;
}

/**
 * The language of a document's pages: the language most of its pieces reliably say (a tie goes to the
 * one said first), reliable when more than half of the pieces say it. A document no piece of which says
 * a language reliably takes its first piece's guess, unreliable.
 */
export function documentLanguage(pages: readonly { text: string }[]): DetectedLanguage {
  const pieces = documentPieces(pages.map((p) => p.text).join('\n')).map(detectLanguage);
  const votes = new Map<string, number>();
  for (const p of pieces)
    if (p.reliable && p.language !== null) votes.set(p.language, (votes.get(p.language) ?? 0) + 1);
  let best: [string, number] | null = null;
  for (const vote of votes) if (best === null || vote[1] > best[1]) best = vote;
  if (best === null) return { language: pieces[0]?.language ?? null, reliable: false };
  return { language: best[0], reliable: best[1] * 2 > pieces.length };
}
