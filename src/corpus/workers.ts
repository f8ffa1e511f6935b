/**
 * The corpus stage on every core: a pool of worker threads (pdf-worker.ts) that extract page ranges
 * of PDFs, fed from one queue, and a pool of chunking threads (chunk-worker.ts) that an ingest uses
 * once extraction is over and the extraction threads have exited (`closeExtraction`). Only the
 * chunking threads load the tokenizer (about 15 MB resident, and a merge cache that grows with the
 * vocabulary), and the two pools' memory never adds up (docs/adr/0019, amendment).
 *
 * A document is extracted in ranges of at most `rangePages` pages: its first range tells its page
 * count, and its other ranges then go to the front of the queue, so the pages of the documents under
 * way are finished before another document is opened (memory stays bounded by the pool's size, not by
 * the corpus), and one long report is spread over every thread instead of keeping one busy while the
 * others idle. A worker keeps the PDF it extracted open for its next range of the same file, and the
 * pool gives a free worker a range of the file it has open before the queue's order (the job's key):
 * a document is opened about once a worker instead of once a range (each open costs about 12 ms of a
 * 300-page report), and a worker holds one document at a time. Output is assembled by page number
 * and document order, never by completion order: the same pages, chunks and ids for any pool size
 * (test/ingest/workers.test.ts builds an index with 1 and with 3 threads and compares checksums).
 */
import { stat } from 'node:fs/promises';
import type { ResourceLimits } from 'node:worker_threads';
import { RgeError } from '../util/errors.ts';
import { WorkerPool } from '../util/worker-pool.ts';
import type { ChunkOptions, DocumentMeta } from './chunk.ts';
import type { ExtractedPages, ExtractTimings } from './pdf.ts';
import {
  assertHasText,
  type ExtractedDocument,
  type ExtractOptions,
  PdfError,
  type PdfErrorKind,
  type TableMode,
} from './pdf-document.ts';
import type { Chunk, PageText } from './schema.ts';

/**
 * Pages a worker extracts in one job. When this was chosen each job opened the PDF afresh, and pdf.js's
 * per-document caches (a font's glyphs by string above all) started cold (now a worker keeps the
 * document open for its next range of the same file): 128 pages a job extracted the synthetic corpus on
 * two threads in about 12% less wall time than 48 (fastest of three interleaved runs, twice), the real
 * filings of ../shared in about 6% less. The price is memory: a range's pages and fonts stay cached
 * until it closes, and the cold ingest of the synthetic corpus peaked about 30 MB higher (499-525
 * against 465-491 MB, three runs each; docs/adr/0019).
 */
export const RANGE_PAGES = 128;

/**
 * The V8 heap limits of a chunking thread, and the old generation of an extraction thread's
 * (EXTRACT_HEAP; docs/adr/0019, amendments of 2026-12-03). Not a ceiling that is ever near (a worker
 * lives at 25-50 MB) but how far its heap grows between full collections: with Node's default limit
 * (about 4 GB here) V8 lets an old generation grow to 4x its live size, below 2 GB it scales that
 * factor from 1.3 to 2 (heap-controller.cc): 2,047 MB gives 2. A 6 MB young generation (2 MB
 * semi-spaces, against 16); for extraction it was later measured to cost time (EXTRACT_HEAP). The cold
 * ingest of the synthetic corpus peaked at 311-317 MB with these against 394-429 MB with the young
 * limit alone (three interleaved runs each); 1,024 MB (a factor of 1.6) gave 288-326 MB but cost the
 * real filings' extraction about 30% more CPU in one bench run (22.6 against 17.2 CPU-s), so it was
 * not taken.
 */
export const WORKER_HEAP: ResourceLimits = { maxOldGenerationSizeMb: 2047, maxYoungGenerationSizeMb: 6 };

/**
 * The heap limits of an extraction thread: WORKER_HEAP's old generation, and a 24 MB young generation
 * (8 MB semi-spaces). pdf.js allocates about 500 KB a synthetic page, much of it alive for the whole
 * page, so with 2 MB semi-spaces a thread scavenged every 4 pages or so and copied the page's live
 * objects each time: 1,593 scavenges and 2.25 s of pauses for the 20 synthetic reports on two threads,
 * against 426 and 1.25 s with 24 MB (`--trace-gc-nvp`, one run each). Five interleaved runs each of that
 * extraction: 6.07 s wall (min), 6.99 s (median), 13.1 CPU-s (median) against 6.74, 7.57 and 14.1 s with
 * 6 MB. It costs about 20 MB at the extraction's peak (256-260 against 238-240 MB), which no longer adds
 * to the chunking threads' (an ingest runs them after the extraction threads exit): the cold ingest's
 * peak did not rise (267-273 MB, median of three interleaved runs each; docs/adr/0019, amendment).
 */
export const EXTRACT_HEAP: ResourceLimits = { ...WORKER_HEAP, maxYoungGenerationSizeMb: 24 };

export interface PagesJob {
  path: string;
  first: number;
  last: number;
  tables: TableMode;
}

/** What an extraction thread sends back for one page range (`id` is the pool's). */
export type PagesReply = { id: number } & (
  | { ok: true; result: ExtractedPages }
  | { ok: false; pdfError: { kind: PdfErrorKind; file: string; detail: string } }
  | { ok: false; crash: string }
);

export interface ChunkJob {
  /** the document's pages, or the page cache file (JSON) that holds them */
  pages: PageText[] | string;
  meta: DocumentMeta;
  chunking: ChunkOptions;
}

/** What a chunking thread sends back for one document. */
export type ChunkReply =
  | { id: number; ok: true; chunks: Chunk[]; chunkMs: number }
  | { id: number; ok: false; crash: string };

export interface PoolOptions {
  /** worker threads; default: the machine's available parallelism */
  size?: number;
  /** pages a job extracts (default RANGE_PAGES) */
  rangePages?: number;
}

export class CorpusWorkers {
  /** extraction threads, and as many chunking threads (started with the first chunk job) */
  readonly size: number;
  readonly rangePages: number;
  private readonly pool: WorkerPool<PagesJob, PagesReply>;
  private readonly chunker: WorkerPool<ChunkJob, ChunkReply>;

  constructor(opts: PoolOptions = {}) {
    this.pool = new WorkerPool(new URL('./pdf-worker.ts', import.meta.url), {
      size: opts.size,
      name: 'corpus worker',
      resourceLimits: EXTRACT_HEAP,
    });
    this.chunker = new WorkerPool(new URL('./chunk-worker.ts', import.meta.url), {
      size: this.pool.size,
      name: 'corpus chunking',
      resourceLimits: WORKER_HEAP,
    });
    this.size = this.pool.size;
    this.rangePages = Math.max(1, Math.floor(opts.rangePages ?? RANGE_PAGES));
  }

  /** Extracts a whole document, range by range; rejects with its PdfError when it cannot be read. */
  async extractDocument(
    path: string,
    tables: TableMode,
  ): Promise<ExtractedDocument & { timings: ExtractTimings }> {
    const first = await this.pages({ path, first: 1, last: this.rangePages, tables }, false);
    const jobs: PagesJob[] = [];
    for (let start = this.rangePages + 1; start <= first.result.pageCount; start += this.rangePages) {
      jobs.push({ path, first: start, last: start + this.rangePages - 1, tables });
    }
    // to the front, in page order: this document's pages before another document is opened
    const rest: Promise<PagesSuccess>[] = [];
    for (const job of jobs.reverse()) rest.unshift(this.pages(job, true));
    const parts = [first, ...(await Promise.all(rest))];
    const timings: ExtractTimings = { parseMs: 0, layoutMs: 0 };
    const pages: PageText[] = [];
    for (const part of parts) {
      pages.push(...part.result.pages);
      timings.parseMs += part.result.timings.parseMs;
      timings.layoutMs += part.result.timings.layoutMs;
    }
    const doc = { file: path, pageCount: first.result.pageCount, pages };
    assertHasText(doc);
    return { ...doc, timings };
  }

  /**
   * Chunks one document (chunk.ts's `chunkDocument`) on a chunking thread: its pages, or the page
   * cache file that holds them (read by the thread, so that the pages need not be held here).
   */
  async chunkDocument(
    pages: PageText[] | string,
    meta: DocumentMeta,
    chunking: ChunkOptions = {},
  ): Promise<{ chunks: Chunk[]; chunkMs: number }> {
    const reply = await this.chunker.run({ pages, meta, chunking });
    if (reply.ok) return { chunks: reply.chunks, chunkMs: reply.chunkMs };
    throw new RgeError(`corpus chunking thread failed on ${meta.source}: ${reply.crash}`);
  }

  /** Stops the extraction threads (their memory goes back before chunking starts); chunking still works. */
  closeExtraction(): Promise<void> {
    return this.pool.close();
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.chunker.close()]);
  }

  private async pages(job: PagesJob, front: boolean): Promise<PagesSuccess> {
    // keyed by file: the thread that has it open takes its next range (pdf-worker.ts keeps it open)
    const reply = await this.pool.run(job, { front, key: job.path });
    if (reply.ok) return reply;
    if ('pdfError' in reply) {
      const e = reply.pdfError;
      throw new PdfError(e.kind, e.file, e.detail);
    }
    throw new RgeError(`corpus worker failed on ${job.path}: ${reply.crash}`);
  }
}

type PagesSuccess = Extract<PagesReply, { ok: true }>;

export interface ExtractManyResult {
  path: string;
  result?: ExtractedDocument;
  error?: PdfError;
  /** where its extraction time went (absent for a failure) */
  timings?: ExtractTimings;
}

export interface ExtractManyOptions extends ExtractOptions {
  /** worker threads; default: the machine's available parallelism */
  concurrency?: number;
  /** pages a worker extracts in one job (default RANGE_PAGES) */
  rangePages?: number;
  /** called as each document finishes (completion order) with its index in `paths`; the returned array is in path order */
  onDocument?: (r: ExtractManyResult, index: number) => void;
}

/**
 * Extracts many PDFs on a pool of worker threads, in page ranges. A file that fails is a result with
 * `error`, not a rejection; the promise rejects only if a worker itself fails (a bug, not a property
 * of a file). Largest files are opened first, so that one big report does not start last.
 */
export async function extractMany(
  paths: readonly string[],
  opts: ExtractManyOptions = {},
): Promise<ExtractManyResult[]> {
  if (paths.length === 0) return [];
  const pool = new CorpusWorkers({
    ...(opts.concurrency !== undefined ? { size: opts.concurrency } : {}),
    ...(opts.rangePages !== undefined ? { rangePages: opts.rangePages } : {}),
  });
  try {
    return await extractWith(pool, paths, opts);
  } finally {
    await pool.close();
  }
}

/** `extractMany` on a pool the caller owns (and closes). */
export async function extractWith(
  pool: CorpusWorkers,
  paths: readonly string[],
  opts: Pick<ExtractManyOptions, 'tables' | 'onDocument'> = {},
): Promise<ExtractManyResult[]> {
  const results: ExtractManyResult[] = new Array(paths.length);
  await extractEach(pool, paths, {
    ...(opts.tables !== undefined ? { tables: opts.tables } : {}),
    onDocument: (r, i) => {
      results[i] = r;
      opts.onDocument?.(r, i);
    },
  });
  return results;
}

/**
 * Extracts each PDF on a pool the caller owns and hands each result to `onDocument` as it finishes,
 * keeping none: a caller that writes and chunks each document as it comes (ingest) holds one
 * document's pages at a time, not the corpus's. Same order of work and failures as `extractMany`.
 */
export async function extractEach(
  pool: CorpusWorkers,
  paths: readonly string[],
  opts: Pick<ExtractManyOptions, 'tables'> & Required<Pick<ExtractManyOptions, 'onDocument'>>,
): Promise<void> {
  const tables = opts.tables ?? 'auto';
  const sizes = await Promise.all(
    paths.map((p) =>
      stat(p).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  const order = paths.map((_, i) => i).sort((a, b) => (sizes[b] as number) - (sizes[a] as number) || a - b);
  await Promise.all(
    order.map(async (i) => {
      const path = paths[i] as string;
      let r: ExtractManyResult;
      try {
        const { timings, ...result } = await pool.extractDocument(path, tables);
        r = { path, result, timings };
      } catch (err) {
        if (!(err instanceof PdfError)) throw err;
        r = { path, error: err };
      }
      opts.onDocument(r, i);
    }),
  );
}
