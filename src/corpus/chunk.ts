/**
 * Chunking: pages of one document -> retrievable chunks of at most 800 cl100k tokens with a 100-token
 * overlap, each with its nearest preceding heading (and every heading its lines fall under), page range
 * and content-addressed id.
 *
 * Chunks are cut at line boundaries (a line is one visual line of the page, or one table row from the
 * layout path), so a table row or a figure is never split between two chunks. Only a single line longer
 * than the chunk size is cut inside, at token boundaries. The overlap is the longest run of whole trailing
 * lines of the previous chunk that fits in `overlapTokens`. See docs/adr/0003-chunking.md.
 */
import { decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { sha1 } from '../util/fs.ts';
import { CHUNK_TOKENS, OVERLAP_TOKENS } from './chunk-size.ts';
import {
  cleanHeading,
  detectFurniture,
  isCapitalised,
  isNumberedHeading,
  isTableLabel,
  opensSection,
  stripFurniture,
} from './headings.ts';
import type { Chunk, PageText } from './schema.ts';

export interface ChunkOptions {
  maxTokens?: number;
  overlapTokens?: number;
}

export interface DocumentMeta {
  company: string;
  /** FY24 etc.; null when unknown (ids then carry FYNA) */
  fy: string | null;
  /** the source file name */
  source: string;
}

export { CHUNK_TOKENS, OVERLAP_TOKENS } from './chunk-size.ts';

interface Line {
  text: string;
  page: number;
  tokens: number;
  heading: string | null;
}

export function chunkId(company: string, fy: string | null, text: string): string {
  return `${company}-${fy ?? 'FYNA'}-${sha1(text).slice(0, 8)}`;
}

/** Token count of a line as it stands in a chunk (followed by a newline). */
function lineTokens(text: string): number {
  return encode(`${text}\n`).length;
}

/** Splits a line longer than `max` tokens into pieces of at most `max` tokens. */
function splitLongLine(text: string, max: number): string[] {
  const tokens = encode(text);
  const pieces: string[] = [];
  for (let i = 0; i < tokens.length; i += max - 1) pieces.push(decode(tokens.slice(i, i + max - 1)).trim());
  return pieces.filter((p) => p !== '');
}

/** A line of a page, its whitespace folded, and whether the page marks it a heading (`PageText.headings`). */
interface PageLine {
  text: string;
  marked: boolean;
}

/**
 * A page's content lines: a page that marks its headings keeps every non-empty line (a Markdown or HTML
 * document has no running headers or page numbers); a PDF page loses its furniture (headings.ts).
 */
function contentLines(page: PageText, lines: string[], furniture: ReadonlySet<string>): PageLine[] {
  const fold = (raw: string) => raw.replace(/[ \t\u00a0]+/g, ' ').trim();
  if (page.headings !== undefined) {
    const marked = new Set(page.headings);
    return lines.map((raw, i) => ({ text: fold(raw), marked: marked.has(i) })).filter((l) => l.text !== '');
  }
  return stripFurniture(lines, furniture)
    .map((raw) => ({ text: fold(raw), marked: false }))
    .filter((l) => l.text !== '');
}

/** Appends a line to `lines`, cut into pieces when it is longer than `maxTokens`. */
function pushLine(
  lines: Line[],
  text: string,
  page: number,
  heading: string | null,
  maxTokens: number,
): void {
  const tokens = lineTokens(text);
  if (tokens <= maxTokens) {
    lines.push({ text, page, tokens, heading });
    return;
  }
  for (const piece of splitLongLine(text, maxTokens)) {
    lines.push({ text: piece, page, tokens: lineTokens(piece), heading });
  }
}

/**
 * The content lines of a document: furniture removed, headings tracked, long lines split. A page that
 * marks its headings (`PageText.headings`, a Markdown or HTML document) has those lines for headings;
 * on the others (PDF pages) headings are found by the heuristics of headings.ts.
 */
export function documentLines(pages: readonly PageText[], maxTokens = CHUNK_TOKENS): Line[] {
  const pageLines = pages.map((p) => p.text.split(/\r?\n/));
  const furniture = detectFurniture(pageLines);
  const lines: Line[] = [];
  let heading: string | null = null;
  let previousWasCapsHeading: boolean = false;
  for (const [i, page] of pages.entries()) {
    const content = contentLines(page, pageLines[i] as string[], furniture);
    for (const [j, { text, marked }] of content.entries()) {
      if (page.headings !== undefined) {
        if (marked) heading = cleanHeading(text);
        pushLine(lines, text, page.page, heading, maxTokens);
        continue;
      }
      const continues: boolean =
        previousWasCapsHeading &&
        isCapitalised(text) &&
        !isNumberedHeading(text) &&
        !isTableLabel(text) && // "LARSEN & TOUBRO LIMITED" then "CIN : L99999MH1946PLC004768"
        text.length <= 90;
      const headingLine: boolean =
        continues || opensSection(text, content[j - 1]?.text ?? null, content[j + 1]?.text ?? null);
      if (headingLine) {
        // A capitalised heading that wraps onto a second line continues, rather than replaces, the first.
        heading = continues && heading ? cleanHeading(`${heading} ${text}`) : cleanHeading(text);
      }
      previousWasCapsHeading = headingLine && isCapitalised(text) && !previousWasCapsHeading;
      pushLine(lines, text, page.page, heading, maxTokens);
    }
  }
  return lines;
}

/**
 * The headings a chunk's lines fall under, in order, each once (from the chunk's `heading` when it has one); a
 * chunk that runs from the end of one section (a balance sheet) into the next (the statement of
 * earnings) carries both titles, so a question about the second can find it.
 */
function sectionHeadings(window: readonly Line[]): string[] {
  return [...new Set(window.map((l) => l.heading).filter((h): h is string => h !== null))];
}

/**
 * Chunks one document. Deterministic: the same pages give the same chunks and ids. Chunks whose text
 * repeats an earlier chunk of the document (same id) are dropped.
 */
export function chunkDocument(
  pages: readonly PageText[],
  meta: DocumentMeta,
  opts: ChunkOptions = {},
): Chunk[] {
  const maxTokens = opts.maxTokens ?? CHUNK_TOKENS;
  const overlapTokens = opts.overlapTokens ?? OVERLAP_TOKENS;
  if (overlapTokens >= maxTokens) throw new Error('overlap must be smaller than the chunk size');
  const lines = documentLines(pages, maxTokens);
  const chunks: Chunk[] = [];
  const seen = new Set<string>();
  let start = 0;
  while (start < lines.length) {
    let end = start;
    let tokens = 0;
    while (end < lines.length && tokens + (lines[end] as Line).tokens <= maxTokens) {
      tokens += (lines[end] as Line).tokens;
      end++;
    }
    const window = lines.slice(start, end);
    const text = window.map((l) => l.text).join('\n');
    const id = chunkId(meta.company, meta.fy, text);
    if (!seen.has(id)) {
      seen.add(id);
      const first = window[0] as Line;
      const last = window[window.length - 1] as Line;
      chunks.push({
        id,
        company: meta.company,
        fy: meta.fy,
        source: meta.source,
        heading: first.heading,
        headings: sectionHeadings(window),
        pages: [first.page, last.page],
        tokens,
        text,
      });
    }
    if (end >= lines.length) break;
    // Step back over whole trailing lines that fit in the overlap, but always move forward.
    let next = end;
    let overlap = 0;
    while (next - 1 > start && overlap + (lines[next - 1] as Line).tokens <= overlapTokens) {
      next--;
      overlap += (lines[next] as Line).tokens;
    }
    start = next;
  }
  return chunks;
}
