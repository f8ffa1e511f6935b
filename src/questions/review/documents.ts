/**
 * The documents a generated question's gold quotes are printed in, read for review: a text, Markdown or
 * HTML file as one page of the text rge's readers make of it (corpus/formats: what the index was built
 * from, which the generator quoted and the span offsets count in),
 * a PDF as its pages as rge extracts them (corpus/workers.ts). And where a quote is in a page's text: by
 * its recorded span when the span still holds it, else by a search with whitespace normalised.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { documentKind, readTextDocument } from '../../corpus/formats/index.ts';
import { extractMany } from '../../corpus/workers.ts';
import { normaliseWhitespace } from '../load.ts';

/** Extensions read as one page of raw text (page null in a quote's location). */
export const REVIEW_TEXT_EXTENSIONS = ['.txt', '.text', '.md', '.markdown', '.html', '.htm'] as const;

/** One page of a document: its 1-based number (null for a text file) and its text. */
export interface ReviewPage {
  page: number | null;
  text: string;
}

/** A document's pages, or why it cannot be read. */
export type ReviewDocument = { pages: ReviewPage[] } | { error: string };

/** Reads named documents of the documents folder; each only once, when first asked for. */
export type DocumentReader = (name: string) => Promise<ReviewDocument>;

/** Where a named document is, or why it is not usable (outside the folder, missing, a kind rge does not read). */
function documentPath(dir: string, name: string): { path: string; pdf: boolean } | { error: string } {
  const path = resolve(dir, name);
  const rel = relative(dir, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    return { error: `${name} is not a file inside the documents folder` };
  const ext = extname(path).toLowerCase();
  const pdf = ext === '.pdf';
  if (!pdf && !(REVIEW_TEXT_EXTENSIONS as readonly string[]).includes(ext))
    return { error: `${name} is not a PDF or a text file (.pdf, ${REVIEW_TEXT_EXTENSIONS.join(', ')})` };
  if (!existsSync(path) || !statSync(path).isFile())
    return { error: `no document ${name} in the documents folder ${dir}` };
  return { path, pdf };
}

/** One document's pages: a PDF extracted (one worker pool per call), a text file read whole. */
export async function readReviewDocument(dir: string, name: string): Promise<ReviewDocument> {
  const where = documentPath(dir, name);
  if ('error' in where) return where;
  if (!where.pdf) {
    const kind = documentKind(where.path);
    if (kind === null || kind === 'pdf') return { error: `${name}: not a kind rge reads` };
    return { pages: [{ page: null, text: readTextDocument(kind, await readFile(where.path)).text }] };
  }
  const [r] = await extractMany([where.path], { concurrency: 1 });
  if (!r?.result) return { error: `${name}: ${r?.error?.detail ?? 'not extracted'}` };
  return { pages: r.result.pages.map((p) => ({ page: p.page, text: p.text })) };
}

/** A reader over a documents folder that keeps what it read (a review shows the same documents again). */
export function documentReader(dir: string): DocumentReader {
  const read = new Map<string, Promise<ReviewDocument>>();
  return (name) => {
    let doc = read.get(name);
    if (!doc) {
      doc = readReviewDocument(dir, name);
      read.set(name, doc);
    }
    return doc;
  };
}

/** A text with its whitespace runs collapsed to one space, and where each kept character was in the original. */
function collapsed(text: string): { text: string; at: number[] } {
  let out = '';
  const at: number[] = [];
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      space = out.length > 0;
      continue;
    }
    if (space) {
      out += ' ';
      at.push(i - 1);
      space = false;
    }
    out += c;
    at.push(i);
  }
  return { text: out, at };
}

/**
 * Where a quote is in a text, as [start, end) offsets of the text: the given span when the text there
 * is the quote (whitespace aside), else the first place a whitespace-normalised search finds it; null
 * when the text does not hold it.
 */
export function findQuote(
  text: string,
  quote: string,
  span?: readonly [number, number],
): [number, number] | null {
  const wanted = normaliseWhitespace(quote);
  if (wanted === '') return null;
  if (span && span[1] <= text.length && normaliseWhitespace(text.slice(span[0], span[1])) === wanted)
    return [span[0], span[1]];
  const hay = collapsed(text);
  const i = hay.text.indexOf(wanted);
  if (i < 0) return null;
  const start = hay.at[i] as number;
  const end = (hay.at[i + wanted.length - 1] as number) + 1;
  return [start, end];
}

/** Where a quote is in a document: the page (the given one first) and the span; null when no page holds it. */
export function findInDocument(
  doc: { pages: readonly ReviewPage[] },
  quote: string,
  hint: { page?: number | null; span?: readonly [number, number] } = {},
): { page: number | null; span: [number, number] } | null {
  const pages = [...doc.pages].sort((a, b) => Number(b.page === hint.page) - Number(a.page === hint.page));
  for (const p of pages) {
    const span = findQuote(p.text, quote, p.page === (hint.page ?? null) ? hint.span : undefined);
    if (span) return { page: p.page, span };
  }
  return null;
}
