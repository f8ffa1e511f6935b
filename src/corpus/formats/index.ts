/**
 * The kinds of document rge reads from a user's folder, by file extension, and the readers that turn a
 * non-PDF file into one page of text (`PageText`): Markdown (markdown.ts), HTML (html.ts) and plain
 * text, read as it stands. PDFs go through the corpus workers' extraction (corpus/workers.ts).
 */
import { extname } from 'node:path';
import type { PageText } from '../schema.ts';
import { htmlPage } from './html.ts';
import { markdownPage } from './markdown.ts';

export { type DetectedLanguage, detectLanguage, documentLanguage } from './language.ts';

/**
 * The readers' version. Bump it when a reader's output (the page's text or its heading marks) changes:
 * cached pages of text documents are keyed by it (ingest), as PDF pages are by EXTRACTOR_VERSION.
 */
export const READER_VERSION = 1;

export type DocumentKind = 'pdf' | 'markdown' | 'html' | 'text';

/** Each kind's extensions (lower case) and, for a text format, its reader. */
export const DOCUMENT_KINDS = {
  pdf: { extensions: ['.pdf'], read: null },
  markdown: { extensions: ['.md', '.markdown'], read: markdownPage },
  html: { extensions: ['.html', '.htm'], read: htmlPage },
  text: { extensions: ['.txt', '.text'], read: plainTextPage },
} as const satisfies Record<
  DocumentKind,
  { extensions: readonly string[]; read: ((s: string) => PageText) | null }
>;

/** Every extension rge reads, for messages. */
export const DOCUMENT_EXTENSIONS: readonly string[] = Object.values(DOCUMENT_KINDS).flatMap(
  (k) => k.extensions,
);

/** The kind of a file by its extension, or null when rge does not read it. */
export function documentKind(path: string): DocumentKind | null {
  const ext = extname(path).toLowerCase();
  for (const [kind, { extensions }] of Object.entries(DOCUMENT_KINDS))
    if ((extensions as readonly string[]).includes(ext)) return kind as DocumentKind;
  return null;
}

/**
 * A plain-text file as one page, as it stands: line ends normalised, a byte-order mark dropped. It marks
 * no headings, so the chunker looks for them as it does on a PDF page (numbered or capitalised lines).
 */
export function plainTextPage(source: string): PageText {
  return { page: 1, text: source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'), method: 'text' };
}

/** The page of a text document of `kind` from its bytes (UTF-8). */
export function readTextDocument(kind: Exclude<DocumentKind, 'pdf'>, bytes: Uint8Array): PageText {
  return DOCUMENT_KINDS[kind].read(new TextDecoder('utf-8').decode(bytes));
}
