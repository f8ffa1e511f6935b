/**
 * What an extracted PDF is, and how its extraction fails: the types and the error the corpus workers'
 * callers need, apart from pdf.ts so that a process which only hands PDFs to worker threads
 * (workers.ts, ingest) never loads pdf.js itself.
 */
import { RgeError } from '../util/errors.ts';
import type { PageText } from './schema.ts';

export type TableMode = 'auto' | 'always' | 'never';

export interface ExtractOptions {
  tables?: TableMode;
}

export interface ExtractedDocument {
  /** the path as it was given */
  file: string;
  pageCount: number;
  /** every page, 1-indexed and in order; a page without text has text '' */
  pages: PageText[];
}

/**
 * not-found: no readable file at the path. corrupt: not a PDF, or damaged/truncated. encrypted: needs a
 * password. no-text: no page has extractable text (a scanned image PDF; OCR is not supported).
 */
export type PdfErrorKind = 'not-found' | 'corrupt' | 'encrypted' | 'no-text';

export class PdfError extends RgeError {
  readonly kind: PdfErrorKind;

  constructor(kind: PdfErrorKind, file: string, message: string, cause?: unknown) {
    super(message, { file, cause });
    this.name = 'PdfError';
    this.kind = kind;
  }

  /** The message without the leading "file: ", which the constructor adds back. */
  get detail(): string {
    const prefix = `${this.file}: `;
    return this.message.startsWith(prefix) ? this.message.slice(prefix.length) : this.message;
  }
}

/** Throws the 'no-text' PdfError when no page of a whole document has text (a scanned image PDF?). */
export function assertHasText(doc: ExtractedDocument): void {
  if (!doc.pages.some((p) => p.text.trim() !== '')) {
    throw new PdfError(
      'no-text',
      doc.file,
      `no extractable text on any of its ${doc.pageCount} page(s) (a scanned image PDF?); OCR is not supported, so rge cannot extract it`,
    );
  }
}
