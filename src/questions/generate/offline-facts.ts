/**
 * What the offline generator writes questions from: facts of a chunk, found by rule. A table row with
 * one figure (or a figure under a column header), a sentence stating one figure, and a definition
 * ("X is a ...", "X means ..."). Each keeps its line or sentence verbatim as the gold quote and a label
 * (what the figure is, in the document's words). Pure and deterministic.
 */
import { basename, extname } from 'node:path';
import { extractQuantities, type Quantity } from '../../analysis/numbers.ts';
import { sentences } from '../../analysis/sentences.ts';
import type { Chunk } from '../../corpus/schema.ts';
import type { NumericUnit } from '../schema.ts';

export interface FigureFact {
  kind: 'row' | 'sentence';
  chunk: Chunk;
  /** the line or sentence, as the chunk prints it */
  quote: string;
  /** what the figure is, e.g. "Team plan price per user per month" */
  label: string;
  figure: Quantity;
}

export interface DefinitionFact {
  kind: 'definition';
  chunk: Chunk;
  quote: string;
  term: string;
}

export type Fact = FigureFact | DefinitionFact;

const MIN_SENTENCE = 30;
const MAX_SENTENCE = 320;
const MAX_LABEL_WORDS = 9;

/** "the pricing document" for pricing.md; "the Reliance Industries AR FY24 document" for its PDF. */
export function documentName(source: string): string {
  const stem = basename(source, extname(source)).replace(/[-_]+/g, ' ').trim();
  return `the ${stem || source} document`;
}

/** A figure in a numeric gold's unit, when it has one of them. */
export function goldOf(q: Quantity): { value: number; unit: NumericUnit } | null {
  if (q.unit === '%') return { value: q.value, unit: '%' };
  if (q.unit === 'INR' && q.scale === 1e7) return { value: q.value / 1e7, unit: 'INR crore' };
  if (q.unit === 'USD' && q.scale === 1e6) return { value: q.value / 1e6, unit: 'USD million' };
  if (q.unit === 'per-share') return { value: q.value, unit: 'INR per share' };
  if (q.unit === 'tCO2e') return { value: q.value, unit: 'tCO2e' };
  if (q.unit === null && q.scale === 1) return { value: q.value, unit: 'count' };
  return null;
}

/** Words of a label: letters in them, at most `max` from the end. */
function cleanLabel(text: string, max = MAX_LABEL_WORDS): string | null {
  const words = text
    .replace(/[()[\]{}:;"“”'‘’*_#|]/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '' && !/^[-–—,.]+$/.test(w));
  const tail = words.slice(-max);
  while (
    tail.length > 0 &&
    /^(?:the|a|an|of|and|is|was|are|were|at|to|for|in|by|with|on|as)$/i.test(tail[0] as string)
  )
    tail.shift();
  const label = tail.join(' ').replace(/[,.]$/, '');
  const letters = label.replace(/[^\p{L}]/gu, '').length;
  return tail.length >= 2 && letters >= 6 ? label : null;
}

/**
 * A table row's facts: with a header row of as many cells, one per figure cell that stands alone,
 * labelled "row label (column header)"; without one, the row's figure when it has only one.
 */
function rowFacts(chunk: Chunk, line: string, header: string[] | null): FigureFact[] {
  const cells = cellsOf(line);
  const figureCells = cells
    .map((c, i) => ({ c, i, qs: extractQuantities(c) }))
    .filter(
      (x) => x.qs.length === 1 && (x.qs[0] as Quantity).raw.length >= x.c.replace(/\s/g, '').length - 2,
    );
  const rowLabel = cells
    .filter((c, i) => !figureCells.some((f) => f.i === i) && /\p{L}{2}/u.test(c))
    .join(' ');
  if (figureCells.length === 0 || rowLabel === '' || CHATTY.test(rowLabel)) return [];
  const out: FigureFact[] = [];
  const columns = header && header.length === cells.length ? header : null;
  for (const f of figureCells) {
    const q = f.qs[0] as Quantity;
    if (!standsAlone(q)) continue;
    const column = columns?.[f.i]?.trim();
    if (figureCells.length > 1 && (!column || !/\p{L}|\d{4}/u.test(column))) continue;
    const label = cleanLabel(column ? `${rowLabel} (${column})` : rowLabel, MAX_LABEL_WORDS + 6);
    if (label)
      out.push({
        kind: 'row',
        chunk,
        quote: line,
        label: column ? `${rowLabel.trim()}, ${column}` : label,
        figure: q,
      });
  }
  return out;
}

/**
 * Whether a figure can carry a question on its own: a unit, a scale word, grouping or decimals. A bare
 * small integer ("2 Independent Directors", "Section 102") is too often a count of the sentence's own
 * words, a list number or a reference.
 */
export function standsAlone(q: Quantity): boolean {
  return q.unit !== null || q.scale !== 1 || /\d,\d|\d\.\d/.test(q.raw);
}

/** Words a spoken or conversational clause starts with: no label of a figure begins with them. */
const CHATTY =
  /^(?:so|and|but|we|i|you|it|this|that|these|those|there|here|yes|no|okay|ok|well|maybe|also|just|like|now|then|because)\b/i;

/** The clause before a figure, back to a clause boundary, as the figure's label. */
function clauseBefore(sentence: string, at: number): string | null {
  const before = sentence.slice(0, at);
  const clauses = before.split(/[;:,()]|\s[-–—]\s/);
  let label = (clauses.pop() ?? '').trim();
  while (label.split(/\s+/).length < 3 && clauses.length > 0)
    label = `${(clauses.pop() ?? '').trim()} ${label}`.trim();
  const clean = cleanLabel(label);
  return clean && !CHATTY.test(clean) && !/^\d/.test(clean) ? clean : null;
}

/** A sentence with one figure that stands alone: the clause before it is the label. */
function sentenceFact(chunk: Chunk, sentence: string): FigureFact | null {
  if (sentence.length < MIN_SENTENCE || sentence.length > MAX_SENTENCE || CELL.test(sentence)) return null;
  const qs = extractQuantities(sentence);
  if (qs.length !== 1) return null;
  const q = qs[0] as Quantity;
  if (!standsAlone(q)) return null;
  const label = clauseBefore(sentence, q.start);
  return label ? { kind: 'sentence', chunk, quote: sentence, label, figure: q } : null;
}

const DEFINITION =
  /^(?:An?\s+|The\s+)?([A-Z][\p{L}\p{N} -]{2,40}?)\s+(?:is|are|means|refers to)\s+(?:an?|the)\s+\p{L}/u;

function definitionFact(chunk: Chunk, sentence: string): DefinitionFact | null {
  if (sentence.length < MIN_SENTENCE || sentence.length > MAX_SENTENCE) return null;
  const m = DEFINITION.exec(sentence);
  if (!m || extractQuantities(sentence).length > 0) return null;
  const term = (m[1] as string).trim();
  return term.split(/\s+/).length <= 5 ? { kind: 'definition', chunk, quote: sentence, term } : null;
}

/** A table row's cells: the layout path separates them with " | ", plain text with tabs. */
const CELL = /\t| \| /;
function cellsOf(line: string): string[] {
  return line.split(CELL).map((c) => c.trim());
}

/** A heading line ("6. DIVIDENDS", "RISK MANAGEMENT"): it ends a run of prose, never opens a sentence. */
const HEADING_LINE = /^(?:\d+(?:\.\d+)*\.?\s+)?[A-Z][A-Z0-9 &,'’()/-]{2,}$/;

/** The facts of a chunk, in the order the chunk prints them. */
export function chunkFacts(chunk: Chunk): Fact[] {
  const out: Fact[] = [];
  let header: string[] | null = null;
  // runs of prose lines between table rows: a sentence never spans a row the chunk prints between
  const blocks: string[][] = [[]];
  for (const line of chunk.text.split('\n')) {
    if (CELL.test(line)) {
      const cells = cellsOf(line);
      const figures = cells.filter((c) => extractQuantities(c).length > 0).length;
      if (figures === 0) header = cells;
      else out.push(...rowFacts(chunk, line.trim(), header));
      blocks.push([]);
    } else if (HEADING_LINE.test(line.trim())) blocks.push([]);
    else (blocks[blocks.length - 1] as string[]).push(line);
  }
  for (const block of blocks)
    for (const s of sentences(block.join('\n'))) {
      const fact = sentenceFact(chunk, s) ?? definitionFact(chunk, s);
      if (fact) out.push(fact);
    }
  return out;
}
