/**
 * Evidence marks for the labelling page: which retrieved chunks the answer cites (its `[chunk-id]`
 * markers), and inside each cited chunk the sentences that share a figure, or most of its content
 * words, with some sentence of the answer. They guide the eye; they are not a judgement. Pure.
 *
 * A chunk is cut into sentences on its original text so that the marks cover it exactly: a line that is
 * a table row (it holds "|") is one unit; other lines run on until one ends a sentence (PDF lines wrap
 * mid-sentence) and each run is split into sentences. A figure is shared when both sentences state the
 * same quantity (same unit, within 1%), or the same number as written where one side is a bare number
 * (a table cell), and it is distinctive (it has a unit or scale, three digits or a decimal: not a list
 * number). Most content words: more than half (and at least two) of the answer
 * sentence's distinct content words occur in the chunk sentence.
 */
import {
  citationMarkers,
  contentWords,
  extractQuantities,
  type Quantity,
  sameQuantity,
  sentences,
  stripCitations,
  withinRelative,
} from '../analysis/index.ts';

/** Why a chunk sentence is marked. */
export type SupportReason = 'figure' | 'words';

/** A run of a chunk's text; the segments of a chunk concatenate to its text. */
export interface ChunkSegment {
  text: string;
  reason: SupportReason | null;
}

/** A part of the answer: text, or a citation of a chunk id. */
export interface AnswerPart {
  text: string;
  cite: string | null;
}

/** The retrieved chunk ids the answer cites, in retrieval order. */
export function citedChunkIds(answer: string, chunkIds: readonly string[]): string[] {
  const cited = new Set(citationMarkers(answer));
  return chunkIds.filter((id) => cited.has(id));
}

/** The answer split at its citation markers, each cited id a part of its own (bracket text kept). */
export function answerParts(answer: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let from = 0;
  for (const m of answer.matchAll(/\[[^[\]\n]*\](?!\()/g)) {
    const ids = citationMarkers(m[0]);
    if (ids.length === 0) continue;
    if (m.index > from) parts.push({ text: answer.slice(from, m.index), cite: null });
    parts.push(...ids.map((id) => ({ text: `[${id}]`, cite: id })));
    from = m.index + m[0].length;
  }
  if (from < answer.length) parts.push({ text: answer.slice(from), cite: null });
  return parts;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** [start, end) spans of a chunk's sentences in its original text. */
export function sentenceSpans(text: string): [number, number][] {
  const units: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) units.push(...sentences(run.join('\n')));
    run = [];
  };
  for (const line of text.split('\n')) {
    if (line.includes('|')) {
      flush();
      if (line.trim()) units.push(line.trim());
      continue;
    }
    run.push(line);
    if (/[.!?:]["')\]]*\s*$/.test(line)) flush();
  }
  flush();
  const spans: [number, number][] = [];
  let cursor = 0;
  for (const unit of units) {
    const words = unit.split(/\s+/).filter(Boolean).map(escapeRegExp);
    if (words.length === 0) continue;
    const re = new RegExp(words.join('\\s+'), 'g');
    re.lastIndex = cursor;
    const m = re.exec(text);
    if (!m) continue;
    spans.push([m.index, m.index + m[0].length]);
    cursor = m.index + m[0].length;
  }
  return spans;
}

const distinctive = (q: Quantity) => q.unit !== null || q.scale !== 1 || /\d{3}|\d\.\d/.test(q.raw);

/** The same figure, or the same number as written (a table cell "1,05,932.35" in a table of crores). */
function sameFigure(a: Quantity, b: Quantity): boolean {
  if (sameQuantity(a, b)) return true;
  const bare = (q: Quantity) => q.unit === null && q.scale === 1;
  if (!bare(a) && !bare(b)) return false;
  return withinRelative(a.value / a.scale, b.value / b.scale, 0.01);
}

interface AnswerSentence {
  figures: Quantity[];
  words: Set<string>;
}

function supportReason(sentence: string, answer: readonly AnswerSentence[]): SupportReason | null {
  const figures = extractQuantities(sentence).filter(distinctive);
  if (answer.some((a) => a.figures.some((f) => figures.some((g) => sameFigure(f, g))))) return 'figure';
  const words = new Set(contentWords(sentence));
  for (const a of answer) {
    let shared = 0;
    for (const w of a.words) if (words.has(w)) shared += 1;
    if (shared >= 2 && shared * 2 > a.words.size) return 'words';
  }
  return null;
}

/** A chunk's text as segments, the sentences that support some answer sentence marked with why. */
export function markSupport(chunkText: string, answer: string): ChunkSegment[] {
  const answerSentences: AnswerSentence[] = sentences(stripCitations(answer), { lines: true }).map((s) => ({
    figures: extractQuantities(s).filter(distinctive),
    words: new Set(contentWords(s)),
  }));
  const segments: ChunkSegment[] = [];
  let from = 0;
  for (const [start, end] of sentenceSpans(chunkText)) {
    const reason = supportReason(chunkText.slice(start, end), answerSentences);
    if (reason === null) continue;
    if (start > from) segments.push({ text: chunkText.slice(from, start), reason: null });
    segments.push({ text: chunkText.slice(start, end), reason });
    from = end;
  }
  if (from < chunkText.length) segments.push({ text: chunkText.slice(from), reason: null });
  return segments;
}
