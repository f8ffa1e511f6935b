/**
 * rag-app's ingestion: the PDFs of a corpus folder become passages. Each page's text (pdf-parse) loses
 * the document's running header and the page number; wrapped lines are joined into paragraphs (a line
 * continues the one before when that one is long and unfinished or when it starts in lowercase), and
 * numbered or capitalised lines are headings. A passage is a section's paragraphs on one page, cut
 * at about PASSAGE_WORDS words, with the section's heading and the document's title kept beside it.
 *
 * Passage ids are `<file stem>#p<page>-<n>` (the n-th passage of the page): `itc-FY24-annual-report#p8-2`.
 */
import { basename, extname } from 'node:path';

/** One retrievable passage: what the retriever indexes and the answerer reads. */
export interface Passage {
  /** `<file stem>#p<page>-<n>` */
  id: string;
  /** the PDF's file name */
  source: string;
  /** 1-based */
  page: number;
  /** the document's title: its running header, else its first line ("ITC Limited | Annual Report 2023-24") */
  title: string;
  /** the heading of the section the passage belongs to ('' before the first heading of a page) */
  heading: string;
  /** its paragraphs and table rows, in order */
  paragraphs: string[];
}

/** A passage is cut when its paragraphs pass this many words. */
export const PASSAGE_WORDS = 30;

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** "2. FINANCIAL HIGHLIGHTS", "12.1 Basis of preparation", "ITC LIMITED": short, and not a sentence or a row. */
function isHeading(line: string): boolean {
  if (line.length > 80 || /[.,;:]$/.test(line) || /\d\.\d/.test(line.replace(/^\d+(?:\.\d+)*/, '')))
    return false;
  const numbered = /^\d+[A-Z]?(?:\.\d+)*\.?\s+[A-Z][A-Za-z]/.test(line);
  const capitals = /[A-Z]{2}/.test(line) && line === line.toUpperCase() && /^[A-Z]/.test(line);
  return numbered || capitals;
}

/** The line most pages start with (the running header), when at least half the pages (and 3) share it. */
function runningHeader(pages: readonly string[][]): string | undefined {
  const counts = new Map<string, number>();
  for (const lines of pages) {
    const first = lines[0];
    if (first) counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  const [line, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  return n >= 3 && n >= pages.length / 2 ? line : undefined;
}

interface Block {
  text: string;
  heading: boolean;
}

/**
 * A page's lines joined into headings and paragraphs (wrapped lines rejoined); `width` is the document's
 * longest line, the measure of a line that was wrapped.
 */
function blocksOf(lines: readonly string[], width: number): Block[] {
  const blocks: Block[] = [];
  let previous = '';
  for (const line of lines) {
    const last = blocks.at(-1);
    const unfinished = previous !== '' && !/[.:;?!]$/.test(previous);
    const wraps = unfinished && (/^[a-z(]/.test(line) || previous.length >= 0.8 * width);
    if (last && !last.heading && wraps) last.text += ` ${line}`;
    else blocks.push({ text: line, heading: isHeading(line) });
    previous = line;
  }
  return blocks;
}

/** A page's passages: a new one at each heading and after PASSAGE_WORDS words. */
function pagePassages(doc: { stem: string; source: string; title: string }, page: number, blocks: Block[]) {
  const passages: Passage[] = [];
  let heading = '';
  let current: string[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const n = passages.length + 1;
    passages.push({ ...doc, id: `${doc.stem}#p${page}-${n}`, page, heading, paragraphs: current });
    current = [];
  };
  for (const block of blocks) {
    if (block.heading) {
      // a heading with nothing under it joins the next one ("12. NOTES ..." then "12.1 Basis ...")
      const bare = current.length === 0 && heading !== '';
      flush();
      heading = bare ? `${heading} / ${block.text}` : block.text;
      continue;
    }
    if (current.length > 0 && words(current.join(' ')) + words(block.text) > PASSAGE_WORDS) flush();
    current.push(block.text);
  }
  flush();
  return passages;
}

/** A document's passages from its pages' text (one string per page, lines separated by newlines). */
export function passagesOf(file: string, pageTexts: readonly string[]): Passage[] {
  const pages = pageTexts.map((t) =>
    t
      .split('\n')
      .map((l) => l.replace(/\s+/g, ' ').trim())
      .filter(Boolean),
  );
  const header = runningHeader(pages);
  const title = header ?? pages[0]?.slice(0, 2).join(' ') ?? file;
  const doc = { stem: basename(file, extname(file)), source: basename(file), title };
  const width = Math.max(1, ...pages.flat().map((l) => l.length));
  return pages.flatMap((lines, i) => {
    const page = i + 1;
    const body = lines.filter((l) => l !== header && l !== String(page));
    return pagePassages(doc, page, blocksOf(body, width));
  });
}
