/**
 * PDF pages to text. Each page is read once through pdf.js (its modern build, pdfjs.ts) and yields two
 * texts: the plain text layer exactly as pdf-parse's `getText` builds it (plain-text.ts), and a layout
 * reconstruction for tables (see `layout.ts`). Which one a page keeps depends on `tables`: 'never'
 * keeps the plain text, 'always' the layout, 'auto' the layout on table-heavy pages only
 * (`isTableHeavy`; the layout is not even built for a page whose items cannot make a table,
 * `mayBeTableHeavy`). Failures are `PdfError`s. Many documents on every core, in page ranges:
 * workers.ts.
 */
import { readFile, stat } from 'node:fs/promises';
import type { PDFDocumentLoadingTask, PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';
import type { TextItem, TextMarkedContent, TextStyle } from 'pdfjs-dist/types/src/display/api.js';
import { errorMessage } from '../util/errors.ts';
import { repairGlyphs, SUSPECT_GLYPH } from './glyphs.ts';
import {
  isTableHeavy,
  layoutPage,
  mayBeTableHeavy,
  type PdfTextItem,
  renderLayout,
  tableSignal,
} from './layout.ts';
import { assertHasText, type ExtractedDocument, type ExtractOptions, PdfError } from './pdf-document.ts';
import { pdfjs, workerPatched } from './pdfjs.ts';
import { plainPageText } from './plain-text.ts';
import type { PageText } from './schema.ts';

/** The pdf.js document options rge reads with (pdf-parse's: errors only on the console). */
function openDocument(data: Uint8Array) {
  return pdfjs.getDocument({ data, verbosity: pdfjs.VerbosityLevel.ERRORS });
}

/** A run of text, not a marked-content boundary (those have no `str`). */
function isTextItem(item: TextItem | TextMarkedContent): item is TextItem {
  return typeof (item as { str?: unknown }).str === 'string';
}

function classify(err: unknown, file: string): PdfError {
  if (err instanceof PdfError) return err;
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') {
    return new PdfError('encrypted', file, 'encrypted PDF (needs a password); rge cannot extract it', err);
  }
  return new PdfError(
    'corrupt',
    file,
    `not a readable PDF (${errorMessage(err)}); the file is damaged or truncated, fetch it again`,
    err,
  );
}

/** A font's PDF name by its load id, from the text styles of rge's patched pdf.js (`rgeFontName`). */
function fontNamesFromStyles(styles: Record<string, TextStyle>): (id: string) => string | null {
  return (id) => {
    const style = styles[id];
    return style && 'rgeFontName' in style && typeof style.rgeFontName === 'string'
      ? style.rgeFontName
      : null;
  };
}

/**
 * A font's PDF name by its load id, from `commonObjs` once the page's operator list is built (unpatched
 * pdf.js); null when the operator list cannot be built.
 */
async function fontNamesFromOperatorList(
  page: PDFPageProxy,
): Promise<((id: string) => string | null) | null> {
  try {
    await page.getOperatorList();
  } catch {
    return null;
  }
  const names = new Map<string, string | null>();
  return (id) => {
    if (!names.has(id)) {
      let name: string | null = null;
      try {
        const font = page.commonObjs.get(id) as { name?: unknown } | undefined;
        if (typeof font?.name === 'string') name = font.name;
      } catch {
        // not loaded: the font stays unknown
      }
      names.set(id, name);
    }
    return names.get(id) ?? null;
  };
}

/**
 * Puts right, in place, the glyphs that the page's fonts are known to misread (the rupee sign read as
 * "`", bullets read as private-use characters; see `glyphs.ts`). pdf.js's text items name their font
 * only by a load id ("g_d0_f8"); rge's patched pdf.js (pdfjs-edits.ts) gives the PDF name
 * ("WXJBYQ+IndianRupee-Regular") in the page's text styles. Unpatched, the name is in `commonObjs`
 * once the page's operator list is built, which costs a page render's parsing (about 5 ms a page on
 * the Indian reports), so only pages holding a suspect character pay it. A font whose name cannot be
 * had is left as it reads.
 */
async function repairPageGlyphs(
  page: PDFPageProxy,
  items: PdfTextItem[],
  styles: Record<string, TextStyle>,
): Promise<void> {
  if (!items.some((i) => SUSPECT_GLYPH.test(i.str))) return;
  const fontName = workerPatched() ? fontNamesFromStyles(styles) : await fontNamesFromOperatorList(page);
  if (!fontName) return;
  for (const item of items) {
    if (item.fontName && SUSPECT_GLYPH.test(item.str))
      item.str = repairGlyphs(item.str, fontName(item.fontName));
  }
}

async function readPdfBytes(path: string): Promise<Uint8Array> {
  try {
    const bytes = await readFile(path);
    // the file's own buffer when it holds nothing else (pdf.js would copy a view of a larger one)
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? new Uint8Array(bytes.buffer)
      : new Uint8Array(bytes);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const what = code === 'ENOENT' ? 'PDF not found' : `PDF cannot be read (${code ?? errorMessage(err)})`;
    throw new PdfError('not-found', path, what, err);
  }
}

/**
 * Frees a closed document's bytes now rather than at the next full collection. The buffer has lived
 * through the whole range, so its object is in V8's old generation and its bytes (external memory, a
 * whole PDF) would wait for a mark-compact: in a corpus worker they piled up to about 55 MB of dead
 * PDFs a thread. Moving them (a transfer) into a new buffer object that nothing references leaves
 * them to the next scavenge, a few milliseconds later. pdf.js's own files transfer the buffer to their
 * parser instead (it is already empty here); the patched copies hand it over (pdfjs-patches.ts).
 */
export function releaseBytes(data: Uint8Array): void {
  const { buffer } = data;
  if (buffer instanceof ArrayBuffer && buffer.byteLength > 0) structuredClone(buffer, { transfer: [buffer] });
}

/** Where a page's extraction time went, in milliseconds of the thread that extracted it. */
export interface ExtractTimings {
  /** pdf.js: the page's text content, glyph repair and the plain text */
  parseMs: number;
  /** the layout reconstruction and the table signal, on the pages that may need the table path */
  layoutMs: number;
}

export interface PageRangeOptions extends ExtractOptions {
  /** the first page to extract, 1-indexed (default 1) */
  first?: number;
  /** the last page to extract, inclusive (default: the last page; past it: the last page) */
  last?: number;
  /**
   * Leave the document open for this thread's next range of the same file (`closeKeptDocument`):
   * opening costs about 12 ms for a 300-page report (reading it, its xref table, and pdf.js's check of
   * the first and last pages, which fetches every page dictionary). One document a thread is kept; a
   * call for another file, or the same path whose file changed, closes it first.
   */
  keepOpen?: boolean;
}

/** A document open for extraction: its bytes (freed when it closes) and pdf.js's loading task. */
interface OpenDocument {
  path: string;
  /** the file's device, inode, size and times when it was read; null when it is not to be kept */
  identity: string | null;
  data: Uint8Array;
  task: PDFDocumentLoadingTask;
}

/** The document this thread left open (`keepOpen`), if any. */
let keptOpen: OpenDocument | null = null;

async function fileIdentity(path: string): Promise<string | null> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return null;
  }
}

async function closeDocument(open: OpenDocument): Promise<void> {
  // destroys the document too, or stops its loading when it failed
  await open.task.destroy().catch(() => {});
  releaseBytes(open.data);
}

/** The path of the document this thread keeps open (`keepOpen`), or null. */
export function keptDocumentPath(): string | null {
  return keptOpen?.path ?? null;
}

/** Closes the document this thread kept open (`keepOpen`), if there is one. */
export async function closeKeptDocument(): Promise<void> {
  const open = keptOpen;
  keptOpen = null;
  if (open) await closeDocument(open);
}

/** The kept document when it is `path`'s and the file is unchanged (and `keep`); else a new one. */
async function openPdf(path: string, keep: boolean): Promise<OpenDocument> {
  const identity = keep ? await fileIdentity(path) : null;
  const kept = keptOpen;
  keptOpen = null;
  if (kept) {
    if (identity !== null && kept.path === path && kept.identity === identity) return kept;
    await closeDocument(kept);
  }
  const data = await readPdfBytes(path);
  return { path, identity, data, task: openDocument(data) };
}

/** Some pages of a document (see `extractPages`), with the document's page count. */
export interface ExtractedPages extends ExtractedDocument {
  timings: ExtractTimings;
}

/**
 * Extracts pages `first`..`last` of a PDF. A page's text does not depend on which other pages were
 * extracted with it, so a document extracted in ranges (on several threads, `extractMany`) gives the
 * same pages as in one piece. No check for a text-less document: that is the whole document's
 * (`extractPdf`, `assertHasText`).
 */
export async function extractPages(path: string, opts: PageRangeOptions = {}): Promise<ExtractedPages> {
  const tables = opts.tables ?? 'auto';
  const open = await openPdf(path, opts.keepOpen === true);
  const timings: ExtractTimings = { parseMs: 0, layoutMs: 0 };
  let kept = false;
  try {
    const doc: PDFDocumentProxy = await open.task.promise;
    const first = Math.max(1, opts.first ?? 1);
    const last = Math.min(doc.numPages, opts.last ?? doc.numPages);
    const pages: PageText[] = [];
    for (let n = first; n <= last; n++) {
      const t0 = performance.now();
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const items = content.items.filter(isTextItem);
      await repairPageGlyphs(page, items, content.styles);
      page.cleanup();
      const plain = plainPageText(items, viewport.transform);
      const t1 = performance.now();
      timings.parseMs += t1 - t0;
      // the layout only where the page may need it: always, or in 'auto' when it may be table-heavy
      if (tables === 'never' || (tables === 'auto' && !mayBeTableHeavy(items))) {
        pages.push({ page: n, text: plain, method: 'text' });
        continue;
      }
      const layout = layoutPage(items, viewport.transform);
      const useTable = tables === 'always' || isTableHeavy(tableSignal(layout));
      pages.push(
        useTable
          ? { page: n, text: renderLayout(layout), method: 'table' }
          : { page: n, text: plain, method: 'text' },
      );
      timings.layoutMs += performance.now() - t1;
    }
    // kept for the next range unless another call of this thread kept one meanwhile
    if (open.identity !== null && keptOpen === null) {
      keptOpen = open;
      kept = true;
    }
    return { file: path, pageCount: doc.numPages, pages, timings };
  } catch (err) {
    throw classify(err, path);
  } finally {
    if (!kept) await closeDocument(open);
  }
}

export async function extractPdf(path: string, opts: ExtractOptions = {}): Promise<ExtractedDocument> {
  const { timings: _, ...doc } = await extractPages(path, opts);
  assertHasText(doc);
  return doc;
}
