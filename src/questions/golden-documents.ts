/**
 * A golden set's gold quotes located in the user's documents: each row that names a source document
 * (a PDF, or a text or markdown file, in the folder given to `--documents`) has each of its quotes
 * looked for in that document's pages as rge extracts them for an index (corpus/workers.ts), by
 * `pagesPrinting` (evidence-page.ts: case, whitespace and punctuation aside, tolerant of words
 * hyphenated across lines and of a quote running onto the next page). A quote is recorded where it is
 * found (`GoldQuoteLocation`: document, page, resolved); one not printed there, or not on the page the
 * row names, is an error naming the quote and the nearest page. Without a documents folder the quotes
 * are kept as given, unresolved.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { extractMany } from '../corpus/workers.ts';
import type { JsonlIssue } from '../util/jsonl.ts';
import { locateEvidence, type PageText, pagesPrinting } from './evidence-page.ts';
import type { QuoteSource } from './golden-question.ts';
import { shortQuote } from './load.ts';
import type { GoldQuoteLocation } from './schema.ts';

/** Extensions read as text: the whole file is one page, recorded with page null. */
export const TEXT_DOCUMENT_EXTENSIONS = ['.txt', '.md', '.markdown', '.text'] as const;

/** A document's pages, or why it cannot be read. */
type ReadDocument = { kind: 'pdf' | 'text'; pages: PageText[] } | { error: string };

/** The gold quotes of one row, and the document (and pages) the row names for them. */
export interface QuotesToLocate {
  line: number;
  quotes: readonly string[];
  source: QuoteSource;
}

export interface QuoteLocations {
  /** by the row's line: one location per gold quote */
  locations: Map<number, GoldQuoteLocation[]>;
  issues: JsonlIssue[];
}

/** Where a named document is, or why it is not usable (outside the folder, not there, not a kind rge reads). */
function documentPath(dir: string, name: string): { path: string; kind: 'pdf' | 'text' } | { error: string } {
  const path = resolve(dir, name);
  const rel = relative(dir, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    return { error: `${name} is not a file inside the documents folder` };
  const ext = extname(path).toLowerCase();
  const kind =
    ext === '.pdf' ? 'pdf' : (TEXT_DOCUMENT_EXTENSIONS as readonly string[]).includes(ext) ? 'text' : null;
  if (kind === null)
    return {
      error: `${name} is not a PDF or a text file (${['.pdf', ...TEXT_DOCUMENT_EXTENSIONS].join(', ')})`,
    };
  if (!existsSync(path) || !statSync(path).isFile())
    return { error: `no document ${name} in the documents folder` };
  return { path, kind };
}

/** Each named document's pages: PDFs extracted together on the corpus workers, text files read whole. */
async function readDocuments(dir: string, names: readonly string[]): Promise<Map<string, ReadDocument>> {
  const docs = new Map<string, ReadDocument>();
  const pdfs: { name: string; path: string }[] = [];
  for (const name of names) {
    const where = documentPath(dir, name);
    if ('error' in where) docs.set(name, where);
    else if (where.kind === 'pdf') pdfs.push({ name, path: where.path });
    else docs.set(name, { kind: 'text', pages: [{ page: 1, text: await readFile(where.path, 'utf8') }] });
  }
  const extracted = await extractMany(pdfs.map((p) => p.path));
  pdfs.forEach(({ name }, i) => {
    const r = extracted[i];
    if (r?.result) docs.set(name, { kind: 'pdf', pages: r.result.pages });
    else docs.set(name, { error: `${name}: ${r?.error?.detail ?? 'not extracted'}` });
  });
  return docs;
}

/** The closest page to a quote no page prints, for the error: `(closest: page 3, overlap 0.62)`. */
function closest(quote: string, doc: { kind: 'pdf' | 'text'; pages: PageText[] }): string {
  const near = locateEvidence(quote, doc.pages);
  const best = near.page === null ? near.candidates[0] : { page: near.page, score: near.score };
  if (!best) return '';
  const overlap = `overlap ${best.score.toFixed(2)}`;
  return doc.kind === 'pdf' ? ` (closest: page ${best.page}, ${overlap})` : ` (${overlap})`;
}

/** One quote in its document: where it is printed, or the problem. */
function locateQuote(
  quote: string,
  given: number | null,
  name: string,
  doc: { kind: 'pdf' | 'text'; pages: PageText[] },
): GoldQuoteLocation | string {
  const found = pagesPrinting(quote, doc.pages);
  if (found.length === 0) return `quote "${shortQuote(quote)}" is not in ${name}${closest(quote, doc)}`;
  if (doc.kind === 'text') return { document: name, page: null, resolved: true };
  if (given === null) return { document: name, page: found[0] as number, resolved: true };
  if (found.includes(given)) return { document: name, page: given, resolved: true };
  return `quote "${shortQuote(quote)}" is not on page ${given} of ${name}: it is on page ${found.join(', ')} (pages count from 1, the PDF's first)`;
}

/** A row's quotes in its document, or its problems; a text file named with a page is one. */
function locateRow(
  item: QuotesToLocate,
  doc: ReadDocument,
): { locations: GoldQuoteLocation[] } | { issues: JsonlIssue[] } {
  const { line, source } = item;
  if ('error' in doc) return { issues: [{ line, field: 'source', message: doc.error }] };
  if (doc.kind === 'text' && source.pages.some((p) => p !== null))
    return {
      issues: [{ line, field: 'page', message: `${source.document} is a text file, which has no pages` }],
    };
  const locations: GoldQuoteLocation[] = [];
  const issues: JsonlIssue[] = [];
  item.quotes.forEach((quote, i) => {
    const l = locateQuote(quote, source.pages[i] ?? null, source.document, doc);
    if (typeof l === 'string') issues.push({ line, field: `gold_quotes.${i}`, message: l });
    else locations.push(l);
  });
  return issues.length > 0 ? { issues } : { locations };
}

/**
 * Each row's gold quotes located in the document it names, in `dir`; with no folder (null), kept as
 * given: unresolved, on the page the row names if any.
 */
export async function locateGoldQuotes(
  items: readonly QuotesToLocate[],
  dir: string | null,
): Promise<QuoteLocations> {
  const locations = new Map<number, GoldQuoteLocation[]>();
  const issues: JsonlIssue[] = [];
  if (dir === null) {
    for (const { line, source } of items)
      locations.set(
        line,
        source.pages.map((page) => ({ document: source.document, page, resolved: false })),
      );
    return { locations, issues };
  }
  const docs = await readDocuments(dir, [...new Set(items.map((i) => i.source.document))]);
  for (const item of items) {
    const located = locateRow(item, docs.get(item.source.document) as ReadDocument);
    if ('issues' in located) issues.push(...located.issues);
    else locations.set(item.line, located.locations);
  }
  return { locations, issues };
}
