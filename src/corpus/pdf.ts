/**
 * PDF pages to text. Each page is read once through pdf.js (via pdf-parse) and yields two texts: the
 * plain text layer exactly as pdf-parse's `getText` builds it, and a layout reconstruction for tables
 * (see `layout.ts`). Which one a page keeps depends on `tables`: 'never' keeps the plain text, 'always'
 * the layout, 'auto' the layout on table-heavy pages only (`isTableHeavy`). Failures are `PdfError`s.
 */
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PDFParse } from 'pdf-parse';
import { bundledModule } from '../util/bundle.ts';
import { errorMessage, RgeError } from '../util/errors.ts';
import { repairGlyphs, SUSPECT_GLYPH } from './glyphs.ts';
import { isTableHeavy, layoutPage, type PdfTextItem, renderLayout, tableSignal } from './layout.ts';
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

// pdf-parse builds the plain text inside a private method from one page's text content; it is called
// here with that content so that a page is parsed once for both texts. Pinned to pdf-parse 2.4.5; the
// tests compare the result with the public `getText`.
interface PdfPage {
  getViewport(params: { scale: number }): { transform: number[] };
  getTextContent(params?: object): Promise<{ items: unknown[] }>;
  /** loads the page's fonts into `commonObjs` (text content alone does not) */
  getOperatorList(): Promise<unknown>;
  commonObjs: { get(id: string): unknown };
  cleanup(): unknown;
}
interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
}
interface PdfParseInternals {
  load(): Promise<PdfDocument>;
  getPageText(
    page: Pick<PdfPage, 'getViewport' | 'getTextContent'>,
    params: object,
    total: number,
  ): Promise<string>;
}

function internals(parser: PDFParse): PdfParseInternals {
  const p = parser as unknown as Partial<PdfParseInternals>;
  if (typeof p.load !== 'function' || typeof p.getPageText !== 'function') {
    throw new RgeError('pdf-parse has changed: PDFParse.load/getPageText are gone; pin pdf-parse to 2.4.5');
  }
  return p as PdfParseInternals;
}

function isTextItem(item: unknown): item is PdfTextItem {
  return typeof item === 'object' && item !== null && typeof (item as { str?: unknown }).str === 'string';
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

/**
 * Puts right, in place, the glyphs that the page's fonts are known to misread (the rupee sign read as
 * "`", bullets read as private-use characters; see `glyphs.ts`). pdf.js's text items name their font
 * only by a load id ("g_d0_f8"); the PDF name ("WXJBYQ+IndianRupee-Regular") is in `commonObjs` once the
 * page's operator list is built, which costs a page render's parsing, so only pages holding a suspect
 * character pay it. A font whose name cannot be had is left as it reads.
 */
async function repairPageGlyphs(page: PdfPage, items: PdfTextItem[]): Promise<void> {
  if (!items.some((i) => SUSPECT_GLYPH.test(i.str))) return;
  try {
    await page.getOperatorList();
  } catch {
    return;
  }
  const names = new Map<string, string | null>();
  const fontName = (id: string): string | null => {
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
  for (const item of items) {
    if (item.fontName && SUSPECT_GLYPH.test(item.str))
      item.str = repairGlyphs(item.str, fontName(item.fontName));
  }
}

async function readPdfBytes(path: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const what = code === 'ENOENT' ? 'PDF not found' : `PDF cannot be read (${code ?? errorMessage(err)})`;
    throw new PdfError('not-found', path, what, err);
  }
}

export async function extractPdf(path: string, opts: ExtractOptions = {}): Promise<ExtractedDocument> {
  const tables = opts.tables ?? 'auto';
  const data = await readPdfBytes(path);
  const parser = new PDFParse({ data });
  try {
    const pdf = internals(parser);
    const doc = await pdf.load();
    const pages: PageText[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const items = content.items.filter(isTextItem);
      await repairPageGlyphs(page, items);
      page.cleanup();
      // getPageText rewrites item.str in place (it prefixes cell separators), so it gets copies.
      const copies = { ...content, items: content.items.map((i) => (typeof i === 'object' ? { ...i } : i)) };
      const plain = await pdf.getPageText(
        { getViewport: () => viewport, getTextContent: async () => copies },
        {},
        doc.numPages,
      );
      if (tables === 'never') {
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
    }
    if (!pages.some((p) => p.text.trim() !== '')) {
      throw new PdfError(
        'no-text',
        path,
        `no extractable text on any of its ${doc.numPages} page(s) (a scanned image PDF?); OCR is not supported, so rge cannot extract it`,
      );
    }
    return { file: path, pageCount: doc.numPages, pages };
  } catch (err) {
    throw classify(err, path);
  } finally {
    await parser.destroy().catch(() => {});
  }
}

export interface ExtractManyResult {
  path: string;
  result?: ExtractedDocument;
  error?: PdfError;
}

export interface ExtractManyOptions extends ExtractOptions {
  /** worker threads; default: the machine's available parallelism, at most one per path */
  concurrency?: number;
  /** called as each document finishes (completion order); the returned array is in path order */
  onDocument?: (r: ExtractManyResult) => void;
}

/** What a worker sends back for one job. */
export type WorkerReply =
  | { id: number; ok: true; result: ExtractedDocument }
  | { id: number; ok: false; pdfError: { kind: PdfErrorKind; file: string; detail: string } }
  | { id: number; ok: false; crash: string };

export interface WorkerJob {
  id: number;
  path: string;
  tables: TableMode;
}

/**
 * Extracts many PDFs on a pool of worker threads. A file that fails is a result with `error`, not a
 * rejection; the promise rejects only if a worker itself fails (a bug, not a property of a file).
 */
export async function extractMany(
  paths: readonly string[],
  opts: ExtractManyOptions = {},
): Promise<ExtractManyResult[]> {
  const results: ExtractManyResult[] = new Array(paths.length);
  if (paths.length === 0) return results;
  const wanted = Number.isFinite(opts.concurrency)
    ? Math.floor(opts.concurrency as number)
    : availableParallelism();
  const size = Math.max(1, Math.min(wanted, paths.length));
  const tables = opts.tables ?? 'auto';
  // Largest files first, so that one big report does not start last and leave the other workers idle.
  const sizes = await Promise.all(
    paths.map((p) =>
      stat(p).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  const queue = paths.map((_, i) => i).sort((a, b) => (sizes[b] as number) - (sizes[a] as number) || a - b);
  const workers: Worker[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: size }, async () => {
        const worker = await spawnWorker();
        workers.push(worker);
        while (next < queue.length) {
          const id = queue[next++] as number;
          const path = paths[id] as string;
          const reply = await runJob(worker, { id, path, tables });
          let r: ExtractManyResult;
          if (reply.ok) r = { path, result: reply.result };
          else if ('pdfError' in reply) {
            const e = reply.pdfError;
            r = { path, error: new PdfError(e.kind, e.file, e.detail) };
          } else throw new RgeError(`PDF worker failed on ${path}: ${reply.crash}`);
          results[id] = r;
          opts.onDocument?.(r);
        }
      }),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}

const require = createRequire(import.meta.url);

/**
 * A worker thread for `extractMany`. It runs the bundled worker (src/util/bundle.ts) when that
 * could be built, and otherwise the TypeScript sources: `execArgv: ['--import', 'tsx']` does not reach
 * a worker's entry module on Node 20 (ERR_UNKNOWN_FILE_EXTENSION), so that worker starts from a
 * two-line eval'd script that calls tsx's `register()` in the worker thread and then imports
 * pdf-worker.ts. Both checked under `node bin/rge.mjs`, `tsx` and vitest.
 */
async function spawnWorker(): Promise<Worker> {
  const bundled = await bundledModule(fileURLToPath(new URL('./pdf-worker.ts', import.meta.url)));
  if (bundled) return new Worker(bundled);
  // tsx's ESM API (what bin/rge.mjs uses), by file: an eval'd worker resolves bare names from the cwd.
  const tsxApi = pathToFileURL(
    join(dirname(require.resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  ).href;
  const entry = new URL('./pdf-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true });
}

function runJob(worker: Worker, job: WorkerJob): Promise<WorkerReply> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: WorkerReply) => {
      if (reply.id !== job.id) return;
      cleanup();
      resolve(reply);
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new RgeError(`PDF worker failed on ${job.path}: ${err.message}`, { cause: err }));
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new RgeError(`PDF worker exited (code ${code}) while extracting ${job.path}`));
    };
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(job);
  });
}
