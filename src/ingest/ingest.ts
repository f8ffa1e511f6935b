/**
 * Ingest: documents (PDFs; Markdown, HTML and text files) -> pages -> chunks -> embeddings -> index. Orchestrates the corpus and retrieval stages.
 *
 * A document that cannot be read (missing, corrupt, encrypted, text-less) is reported with its file
 * name and skipped; the others still ingest. Extracted pages are cached by the PDF's sha256 and the
 * extractor settings (a text document's by its sha256 and the readers' version, page-cache.ts), embeddings by (embedder, chunk id), so re-ingesting an unchanged corpus only
 * re-chunks and rewrites the index.
 *
 * Which documents an ingest reads (a sources.yaml's, a folder's PDFs) is documents.ts's.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChunkOptions, DocumentMeta } from '../corpus/chunk.ts';
import { CHUNK_TOKENS, OVERLAP_TOKENS } from '../corpus/chunk-size.ts';
import { readTextDocument } from '../corpus/formats/index.ts';
import type { Chunk, PageText } from '../corpus/schema.ts';
import { chunkerId, EXTRACTOR_VERSION } from '../corpus/version.ts';
import { CorpusWorkers, type ExtractManyResult, extractEach } from '../corpus/workers.ts';
import {
  type BuildIndexResult,
  buildIndex,
  type EmbedderName,
  type EmbedderOptions,
  type IndexProvenance,
} from '../retrieval/index.ts';
import { errorMessage } from '../util/errors.ts';
import { sha256, sha256File } from '../util/fs.ts';
import type { IngestDocument } from './documents.ts';
import { pageCachePath, readPageCache, writePageCache } from './page-cache.ts';

export { EXTRACTOR_VERSION };

export type TablesMode = 'auto' | 'always' | 'never';

export interface IngestOptions {
  indexDir: string;
  embedder: EmbedderName;
  /** options for the embedder (for hybrid: the dense model and the fusion parameters) */
  embedderOptions?: EmbedderOptions;
  cacheDir: string;
  tables?: TablesMode;
  /** worker threads for extraction and chunking (default: the machine's available parallelism) */
  concurrency?: number;
  /** pages a worker extracts in one job (default corpus/workers.ts RANGE_PAGES) */
  rangePages?: number;
  chunking?: ChunkOptions;
  onStage?: (stage: 'extract' | 'chunk' | 'embed', done: number, total: number, label?: string) => void;
}

export interface DocumentReport {
  source: string;
  company: string;
  companyName?: string;
  fy: string | null;
  status: 'ok' | 'failed';
  /** the sha256 of the PDF read (null when it was missing) */
  sha256: string | null;
  pages: number;
  tablePages: number;
  chunks: number;
  fromCache: boolean;
  error?: string;
}

export interface IngestReport {
  documents: DocumentReport[];
  failed: number;
  chunks: number;
  duplicateChunks: number;
  index: { dir: string; checksum: string; embedder: string; embedded: number; cached: number } | null;
  timings: IngestTimings;
}

/** Where an ingest's time went, in milliseconds. */
export interface IngestTimings {
  /** pdf.js text and plain text, summed over the worker threads (thread time, not wall) */
  parseMs: number;
  /** layout reconstruction on the pages that may be tables, summed over the worker threads */
  layoutMs: number;
  /** chunking, summed over the threads that chunked */
  chunkMs: number;
  /** wall time from the start to the last document chunked (all extraction, then all chunking) */
  extractWallMs: number;
  /** wall time of the embedder over the passages not in the cache */
  embedMs: number;
  /** wall time of building the index less the embedding: cache reads and writes, index files */
  writeMs: number;
  /** worker threads used for extraction and chunking (0: all in this thread) */
  threads: number;
}

interface Prepared {
  doc: IngestDocument;
  /** the sha256 of the PDF read */
  sha256?: string;
  pages: number;
  tablePages: number;
  chunks: Chunk[];
  fromCache: boolean;
  error?: string;
}

/**
 * Below this many cached pages in all, a corpus whose pages all come from the cache is chunked in
 * this thread: starting worker threads (about half a second of CPU each) would cost more than it saves.
 */
export const CHUNK_IN_THREAD_PAGES = 400;

/** Metadata of a document for the chunker: the fields only (the rest stays out of the worker's message). */
function chunkMeta(doc: IngestDocument): DocumentMeta {
  return { company: doc.company, fy: doc.fy, source: doc.source };
}

/** The documents before extraction: each one's sha256, the pages its page cache holds, those left to extract. */
interface ExtractionPlan {
  hashes: (string | null)[];
  /** pages from the page cache, by document index */
  cached: Map<number, PageText[]>;
  /** indices of the documents to extract */
  toExtract: number[];
}

/** A Markdown, HTML or text document's page by its reader (corpus/formats), its page cache written; or why not. */
async function readTextPages(
  doc: IngestDocument,
  hash: string,
  cacheFile: string,
): Promise<PageText[] | { error: string }> {
  try {
    const bytes = await readFile(doc.path);
    if (sha256(bytes) !== hash) return { error: `${doc.path}: changed while it was read` };
    const page = readTextDocument(doc.kind as Exclude<IngestDocument['kind'], 'pdf' | undefined>, bytes);
    if (page.text.trim() === '') return { error: `${doc.path}: no text (an empty ${doc.kind} file?)` };
    await writePageCache(cacheFile, [page]);
    return [page];
  } catch (err) {
    return { error: `${doc.path}: cannot be read as ${doc.kind}: ${errorMessage(err)}` };
  }
}

/**
 * Hashes each document and reads its page cache (a text document's pages are read here, a PDF's
 * extracted later on the workers; pages in hand are taken as they are); a missing file, or one whose sha256 is not the pinned
 * one, is an error of its slot. `extracted` is told of each document done here (in the cache, or failed).
 */
async function planExtraction(
  docs: readonly IngestDocument[],
  results: readonly Prepared[],
  cacheDir: string,
  tables: TablesMode,
  extracted: (source: string) => void,
): Promise<ExtractionPlan> {
  const hashes: (string | null)[] = [];
  const cached = new Map<number, PageText[]>();
  const toExtract: number[] = [];
  for (const [i, doc] of docs.entries()) {
    const slot = results[i] as Prepared;
    if (doc.pages !== undefined) {
      // read already (source-documents.ts): its pages in hand, its sha256 the one they were read from
      hashes.push(doc.sha256 ?? null);
      if (doc.sha256) slot.sha256 = doc.sha256;
      cached.set(i, doc.pages);
      extracted(doc.source);
      continue;
    }
    if (!existsSync(doc.path)) {
      slot.error = `${doc.path}: file not found${doc.sha256 !== undefined ? ' (run `rge corpus fetch` first)' : ''}`;
      hashes.push(null);
      extracted(doc.source);
      continue;
    }
    const hash = await sha256File(doc.path);
    hashes.push(hash);
    slot.sha256 = hash;
    if (doc.sha256 && doc.sha256 !== hash) {
      slot.error = `${doc.path}: sha256 ${hash} does not match the pinned ${doc.sha256}; refusing to ingest it`;
      extracted(doc.source);
      continue;
    }
    const kind = doc.kind ?? 'pdf';
    const pages = await readPageCache(pageCachePath(cacheDir, hash, kind, tables));
    if (pages) {
      cached.set(i, pages);
      slot.fromCache = true;
      extracted(doc.source);
      continue;
    }
    if (kind === 'pdf') {
      toExtract.push(i);
      continue;
    }
    const read = await readTextPages(doc, hash, pageCachePath(cacheDir, hash, kind, tables));
    if (Array.isArray(read)) cached.set(i, read);
    else slot.error = read.error;
    extracted(doc.source);
  }
  return { hashes, cached, toExtract };
}

/** The worker threads, or null when nothing is to extract and the cached pages are few (chunked here). */
function corpusWorkers(
  plan: ExtractionPlan,
  opts: Pick<IngestOptions, 'concurrency' | 'rangePages'>,
): CorpusWorkers | null {
  let cachedPages = 0;
  for (const pages of plan.cached.values()) cachedPages += pages.length;
  const inThread = plan.toExtract.length === 0 && cachedPages < CHUNK_IN_THREAD_PAGES;
  return inThread
    ? null
    : new CorpusWorkers({
        ...(opts.concurrency ? { size: opts.concurrency } : {}),
        ...(opts.rangePages ? { rangePages: opts.rangePages } : {}),
      });
}

function countPages(slot: Prepared, pages: readonly PageText[]): void {
  slot.pages = pages.length;
  slot.tablePages = pages.filter((p) => p.method === 'table').length;
}

/**
 * A document's extraction, in: its page cache written (while others extract) and its page counts kept;
 * its pages are then dropped here, and its chunking thread reads them back from that file (`chunkFrom`).
 */
async function keepExtracted(
  r: ExtractManyResult,
  slot: Prepared,
  cacheFile: string,
  timings: IngestTimings,
  chunkFrom: (file: string) => void,
): Promise<void> {
  if (r.error || !r.result) {
    slot.error = r.error ? errorMessage(r.error) : `${slot.doc.path}: extraction failed`;
    return;
  }
  timings.parseMs += r.timings?.parseMs ?? 0;
  timings.layoutMs += r.timings?.layoutMs ?? 0;
  const pages = r.result.pages;
  await writePageCache(cacheFile, pages);
  countPages(slot, pages);
  chunkFrom(cacheFile);
}

/** Chunks a document from its pages in hand or its page cache file: on a worker thread, or here without a pool. */
async function chunkInto(
  slot: Prepared,
  source: PageText[] | string,
  pool: CorpusWorkers | null,
  chunking: ChunkOptions | undefined,
  timings: IngestTimings,
): Promise<void> {
  const meta = chunkMeta(slot.doc);
  if (!pool) {
    if (typeof source === 'string')
      throw new Error(`${source}: pages to chunk in this thread must be in hand`);
    // loaded here only: the tokenizer stays out of a process that chunks on its worker threads
    const { chunkDocument } = await import('../corpus/chunk.ts');
    const t0 = performance.now();
    slot.chunks = chunkDocument(source, meta, chunking);
    timings.chunkMs += performance.now() - t0;
    return;
  }
  const chunked = await pool.chunkDocument(source, meta, chunking);
  slot.chunks = chunked.chunks;
  timings.chunkMs += chunked.chunkMs;
}

/**
 * Extracts (or loads the cached pages of) every document and chunks it, on worker threads
 * (corpus/workers.ts): a document's pages are extracted in ranges on every thread and its page cache
 * written as soon as all its pages are in; once every document is extracted, the extraction threads
 * exit and chunking threads chunk the documents, each reading a document's pages from its cache file.
 * The two phases use the cores alike, and their threads' memory never adds up. Results are kept in
 * document order, whatever the completion order.
 */
async function extractAndChunk(
  docs: readonly IngestDocument[],
  opts: Pick<IngestOptions, 'cacheDir' | 'tables' | 'concurrency' | 'rangePages' | 'chunking' | 'onStage'>,
  timings: IngestTimings,
): Promise<Prepared[]> {
  const tables = opts.tables ?? 'auto';
  const results: Prepared[] = docs.map((doc) => ({
    doc,
    pages: 0,
    tablePages: 0,
    chunks: [],
    fromCache: false,
  }));
  let done = 0;
  const plan = await planExtraction(docs, results, opts.cacheDir, tables, (source) =>
    opts.onStage?.('extract', ++done, docs.length, source),
  );
  const pool = corpusWorkers(plan, opts);
  timings.threads = pool?.size ?? 0;
  /** each document's pages for the chunker: in hand (from the cache, read above) or its page cache file */
  const toChunk = new Map<number, PageText[] | string>();
  for (const [i, pages] of plan.cached) {
    countPages(results[i] as Prepared, pages);
    toChunk.set(i, pages);
  }
  const writes: Promise<void>[] = [];
  try {
    if (pool && plan.toExtract.length > 0) {
      await extractEach(
        pool,
        plan.toExtract.map((i) => (docs[i] as IngestDocument).path),
        {
          tables,
          onDocument: (r, j) => {
            const i = plan.toExtract[j] as number;
            opts.onStage?.('extract', ++done, docs.length);
            const cacheFile = pageCachePath(opts.cacheDir, plan.hashes[i] as string, 'pdf', tables);
            const w = keepExtracted(r, results[i] as Prepared, cacheFile, timings, (file) =>
              toChunk.set(i, file),
            );
            w.catch(() => {}); // awaited below with the others; not an unhandled rejection meanwhile
            writes.push(w);
          },
        },
      );
    }
    await Promise.all(writes);
    // extraction, then chunking: the extraction threads have exited before the chunking threads
    // start, so their memory never adds up (docs/adr/0019, amendment)
    await pool?.closeExtraction();
    await Promise.all(
      [...toChunk].map(([i, source]) =>
        chunkInto(results[i] as Prepared, source, pool, opts.chunking, timings),
      ),
    );
  } finally {
    await pool?.close();
  }
  return results;
}

/**
 * Drops, document by document in order, every chunk whose id an earlier chunk already took (the same
 * text in two documents of one company and year).
 */
export function dropDuplicateChunks(byDocument: readonly Chunk[][]): {
  byDocument: Chunk[][];
  chunks: Chunk[];
  duplicates: number;
} {
  const seen = new Set<string>();
  const chunks: Chunk[] = [];
  let duplicates = 0;
  const kept = byDocument.map((own) =>
    own.filter((c) => {
      if (seen.has(c.id)) {
        duplicates++;
        return false;
      }
      seen.add(c.id);
      chunks.push(c);
      return true;
    }),
  );
  return { byDocument: kept, chunks, duplicates };
}

export interface PreparedCorpus {
  documents: DocumentReport[];
  failed: number;
  /** the chunks of every document, in document order; empty for a failed document */
  byDocument: Chunk[][];
  chunks: Chunk[];
  duplicateChunks: number;
  timings: IngestTimings;
}

function emptyTimings(): IngestTimings {
  return { parseMs: 0, layoutMs: 0, chunkMs: 0, extractWallMs: 0, embedMs: 0, writeMs: 0, threads: 0 };
}

/** Extracts (or loads cached pages) and chunks every document; no embedding. */
export async function prepareCorpus(
  docs: readonly IngestDocument[],
  opts: Pick<IngestOptions, 'cacheDir' | 'tables' | 'concurrency' | 'rangePages' | 'chunking' | 'onStage'>,
): Promise<PreparedCorpus> {
  const timings = emptyTimings();
  const t0 = performance.now();
  const prepared = await extractAndChunk(docs, opts, timings);
  timings.extractWallMs = performance.now() - t0;
  const { byDocument, chunks, duplicates } = dropDuplicateChunks(prepared.map((p) => p.chunks));
  opts.onStage?.('chunk', chunks.length, chunks.length);
  const documents: DocumentReport[] = prepared.map((e, i) => ({
    source: e.doc.source,
    company: e.doc.company,
    ...(e.doc.companyName ? { companyName: e.doc.companyName } : {}),
    fy: e.doc.fy,
    status: e.error ? 'failed' : 'ok',
    sha256: e.sha256 ?? null,
    pages: e.pages,
    tablePages: e.tablePages,
    chunks: byDocument[i]?.length ?? 0,
    fromCache: e.fromCache,
    ...(e.error ? { error: e.error } : {}),
  }));
  const failed = documents.filter((d) => d.status === 'failed').length;
  return { documents, failed, byDocument, chunks, duplicateChunks: duplicates, timings };
}

/** What an index built by `ingest` records about its making (see IndexProvenance). */
export function ingestProvenance(
  documents: readonly DocumentReport[],
  opts: Pick<IngestOptions, 'tables' | 'chunking'>,
): IndexProvenance {
  return {
    chunking: {
      chunkTokens: opts.chunking?.maxTokens ?? CHUNK_TOKENS,
      overlapTokens: opts.chunking?.overlapTokens ?? OVERLAP_TOKENS,
      chunker: chunkerId(),
    },
    extraction: { extractor: `rge-extract@${EXTRACTOR_VERSION}`, tables: opts.tables ?? 'auto' },
    documents: documents
      .filter((d) => d.status === 'ok' && d.chunks > 0 && d.sha256 !== null)
      .map((d) => ({
        source: d.source,
        company: d.company,
        ...(d.companyName ? { companyName: d.companyName } : {}),
        fy: d.fy,
        sha256: d.sha256 as string,
      })),
  };
}

/** Embeds and indexes `chunks` into `opts.indexDir`, recording the embed and write time in `timings`. */
export async function indexChunks(
  chunks: Chunk[],
  opts: Pick<IngestOptions, 'indexDir' | 'embedder' | 'embedderOptions' | 'cacheDir' | 'onStage'>,
  timings: IngestTimings,
  provenance?: IndexProvenance,
): Promise<BuildIndexResult> {
  const t0 = performance.now();
  const built = await buildIndex(chunks, {
    dir: opts.indexDir,
    ...(provenance ? { provenance } : {}),
    embedder: opts.embedder,
    ...(opts.embedderOptions ? { embedderOptions: opts.embedderOptions } : {}),
    cacheDir: join(opts.cacheDir, 'embeddings'),
    onProgress: (done, total) => opts.onStage?.('embed', done, total),
  });
  timings.embedMs = built.embedMs;
  timings.writeMs = performance.now() - t0 - built.embedMs;
  return built;
}

export async function ingest(docs: readonly IngestDocument[], opts: IngestOptions): Promise<IngestReport> {
  const { documents, failed, chunks, duplicateChunks, timings } = await prepareCorpus(docs, opts);
  if (chunks.length === 0) return { documents, failed, chunks: 0, duplicateChunks, index: null, timings };
  const built = await indexChunks(chunks, opts, timings, ingestProvenance(documents, opts));
  return {
    documents,
    failed,
    chunks: chunks.length,
    duplicateChunks,
    index: {
      dir: opts.indexDir,
      checksum: built.checksum,
      embedder: opts.embedder,
      embedded: built.embedded,
      cached: built.cached,
    },
    timings,
  };
}
