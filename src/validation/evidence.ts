/**
 * Evidence marks for the labelling page: which retrieved chunks the answer cites (its `[chunk-id]`
 * markers), inside each cited chunk the sentences that share a figure, or most of its content words,
 * with some sentence of the answer, and in every chunk the text of the gold quotes. They guide the
 * eye; they are not a judgement. Pure.
 *
 * A chunk is cut into sentences on its original text so that the marks cover it exactly: a line that is
 * a table row (it holds "|") is one unit, and so is a heading line (short, no closing punctuation, in
 * capitals or numbered: "6. DIVIDENDS"); other lines run on until one ends a sentence (PDF lines wrap
 * mid-sentence) and each run is split into sentences.
 *
 * A figure is shared when both sentences state the same quantity (same unit, within 1%), or the same
 * number as written where one side is a bare number (a table cell), equal to the precision the less
 * precise side prints; it must be distinctive (a unit or scale, three digits or a decimal: not a list
 * number). Most content words: more than half (and at least two) of the answer sentence's distinct
 * content words occur in the chunk sentence, unless both state distinctive figures and none is shared
 * (the same words about another figure: another segment, another quarter).
 *
 * For display, `reflow` turns the PDF's soft line breaks (a line that stops mid-sentence and a next one
 * that carries on in lower case) into spaces, one character for one, so every offset still holds.
 */
import {
  citationMarkers,
  contentWords,
  extractQuantities,
  type Quantity,
  sameQuantity,
  sentences,
  stripCitations,
} from '../analysis/index.ts';

/** Why a chunk sentence is marked as supporting the answer. */
export type SupportReason = 'figure' | 'words';

/**
 * A run of a chunk's text; the segments of a chunk concatenate to its (reflowed) text. `reason`: the run
 * supports an answer sentence; `gold`: the run is (part of) a gold quote.
 */
export interface ChunkSegment {
  text: string;
  reason: SupportReason | null;
  gold: boolean;
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

const ENDS_SENTENCE = /[.!?:;]["')\]]*\s*$/;

/** A line that is a table row. */
const isTableRow = (line: string) => line.includes('|');

/** A heading line: short, no closing punctuation, in capitals ("FINANCIAL HIGHLIGHTS") or numbered. */
export function isHeadingLine(line: string): boolean {
  const t = line.trim();
  if (t.length === 0 || t.length > 80 || ENDS_SENTENCE.test(t) || /,$/.test(t)) return false;
  const letters = t.replace(/[^\p{L}]/gu, '');
  if (letters.length >= 2 && letters === letters.toUpperCase()) return true;
  return /^\d{1,2}[A-Z]?\.\s+\p{Lu}/u.test(t) && t.split(/\s+/).length <= 8;
}

/** A regular expression matching `text` word by word, whatever whitespace lies between the words. */
function wordsPattern(text: string): RegExp | null {
  const words = text.split(/\s+/).filter(Boolean).map(escapeRegExp);
  return words.length === 0 ? null : new RegExp(words.join('\\s+'), 'g');
}

/** [start, end) spans of a chunk's sentences in its original text. */
export function sentenceSpans(text: string): [number, number][] {
  const units: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) units.push(...sentences(run.join('\n')));
    run = [];
  };
  for (const line of text.split('\n')) {
    if (isTableRow(line) || isHeadingLine(line)) {
      flush();
      if (line.trim()) units.push(line.trim());
      continue;
    }
    run.push(line);
    if (ENDS_SENTENCE.test(line)) flush();
  }
  flush();
  const spans: [number, number][] = [];
  let cursor = 0;
  for (const unit of units) {
    const re = wordsPattern(unit);
    if (!re) continue;
    re.lastIndex = cursor;
    const m = re.exec(text);
    if (!m) continue;
    spans.push([m.index, m.index + m[0].length]);
    cursor = m.index + m[0].length;
  }
  return spans;
}

/**
 * The chunk's text with its soft line breaks (a wrap in mid-sentence) turned into spaces: a break stays
 * where either line is a table row or a heading, where the line ends a sentence, or where the next line
 * does not carry on (it starts with a capital, or is a numbered item). Same length as the input.
 */
export function reflow(text: string): string {
  const lines = text.split('\n');
  let out = lines[0] ?? '';
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1] as string;
    const next = lines[i] as string;
    const soft =
      prev.trim() !== '' &&
      next.trim() !== '' &&
      !isTableRow(prev) &&
      !isTableRow(next) &&
      !isHeadingLine(prev) &&
      !isHeadingLine(next) &&
      !ENDS_SENTENCE.test(prev) &&
      /^\s*(?:[\p{Ll}(₹$]|Rs\b|\d)/u.test(next) &&
      !/^\s*\d{1,2}[A-Z]?\.\s/.test(next);
    out += (soft ? ' ' : '\n') + next;
  }
  return out;
}

const distinctive = (q: Quantity) => q.unit !== null || q.scale !== 1 || /\d{3}|\d\.\d/.test(q.raw);

/** Digits after the decimal point as printed ("1,234.50" -> 2). */
const decimalsOf = (q: Quantity) => /\.(\d+)/.exec(q.raw)?.[1]?.length ?? 0;

/**
 * The same figure: the same quantity, or the same number as written where one side is a bare number (a
 * table cell "1,05,932.35" in a table of crores), equal to half a unit of the less precise side's last
 * printed digit (so "600.25" is not "600.3", but "1,05,932" is "1,05,932.35" rounded).
 */
function sameFigure(a: Quantity, b: Quantity): boolean {
  if (sameQuantity(a, b)) return true;
  const bare = (q: Quantity) => q.unit === null && q.scale === 1;
  if (!bare(a) && !bare(b)) return false;
  const half = 0.5 * 10 ** -Math.min(decimalsOf(a), decimalsOf(b));
  return Math.abs(a.value / a.scale - b.value / b.scale) <= half + 1e-9;
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
    // the same words about other figures (another segment, another period) are not support
    if (a.figures.length > 0 && figures.length > 0) continue;
    let shared = 0;
    for (const w of a.words) if (words.has(w)) shared += 1;
    if (shared >= 2 && shared * 2 > a.words.size) return 'words';
  }
  return null;
}

function answerSentences(answer: string): AnswerSentence[] {
  return sentences(stripCitations(answer), { lines: true }).map((s) => ({
    figures: extractQuantities(s).filter(distinctive),
    words: new Set(contentWords(s)),
  }));
}

/** [start, end) spans of the chunk sentences that support some answer sentence, with why. */
function supportSpans(
  chunkText: string,
  answer: string,
): { span: [number, number]; reason: SupportReason }[] {
  const said = answerSentences(answer);
  return sentenceSpans(chunkText).flatMap((span) => {
    const reason = supportReason(chunkText.slice(span[0], span[1]), said);
    return reason === null ? [] : [{ span, reason }];
  });
}

/** [start, end) spans where a gold quote occurs in the chunk, word by word (line breaks ignored). */
export function goldSpans(chunkText: string, goldQuotes: readonly string[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const quote of goldQuotes) {
    const re = wordsPattern(quote);
    if (!re) continue;
    for (const m of chunkText.matchAll(re)) spans.push([m.index, m.index + m[0].length]);
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

/**
 * A chunk's text as segments: where an answer is given, the sentences that support some answer sentence
 * marked with why; the gold quotes marked wherever they occur. The segments concatenate to the text,
 * reflowed for display (`reflow`) when asked.
 */
export function markChunk(
  chunkText: string,
  opts: { answer?: string | null; goldQuotes?: readonly string[]; reflow?: boolean },
): ChunkSegment[] {
  const support = opts.answer ? supportSpans(chunkText, opts.answer) : [];
  const gold = goldSpans(chunkText, opts.goldQuotes ?? []);
  const cuts = new Set([0, chunkText.length]);
  for (const { span } of support) for (const x of span) cuts.add(x);
  for (const span of gold) for (const x of span) cuts.add(x);
  const points = [...cuts].sort((a, b) => a - b);
  const shown = opts.reflow ? reflow(chunkText) : chunkText;
  const segments: ChunkSegment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i] as number;
    const to = points[i + 1] as number;
    const reason = support.find(({ span }) => span[0] <= from && to <= span[1])?.reason ?? null;
    const isGold = gold.some(([a, b]) => a <= from && to <= b);
    const last = segments.at(-1);
    if (last && last.reason === reason && last.gold === isGold) last.text += shown.slice(from, to);
    else segments.push({ text: shown.slice(from, to), reason, gold: isGold });
  }
  return segments;
}

/** A chunk's text as segments, the sentences that support some answer sentence marked with why. */
export function markSupport(chunkText: string, answer: string): ChunkSegment[] {
  return markChunk(chunkText, { answer });
}

/**
 * The line a collapsed chunk shows: the first gold quote it holds, else the sentence sharing most
 * content words with the question (the earliest on a tie; heading lines only in a chunk of nothing
 * else), reflowed; null for an empty chunk.
 */
export function bestLine(chunkText: string, question: string, goldQuotes: readonly string[]): string | null {
  const gold = goldSpans(chunkText, goldQuotes)[0];
  let best: [number, number] | undefined = gold;
  if (!best) {
    const wanted = new Set(contentWords(question));
    let most = -1;
    const spans = sentenceSpans(chunkText);
    // a heading line only when the chunk has nothing else (it names the company the question names)
    const sentencesOnly = spans.filter(([a, b]) => !isHeadingLine(chunkText.slice(a, b)));
    for (const span of sentencesOnly.length > 0 ? sentencesOnly : spans) {
      const words = new Set(contentWords(chunkText.slice(span[0], span[1])));
      let shared = 0;
      for (const w of wanted) if (words.has(w)) shared += 1;
      if (shared > most) {
        most = shared;
        best = span;
      }
    }
  }
  if (!best) return null;
  return reflow(chunkText.slice(best[0], best[1])).replace(/\s+/g, ' ').trim();
}
