/**
 * Ingest: PDFs -> pages -> chunks -> embeddings -> index. Orchestrates the corpus and retrieval stages.
 *
 * A document that cannot be read (missing, corrupt, encrypted, text-less) is reported with its file
 * name and skipped; the others still ingest. Extracted pages are cached by the PDF's sha256 and the
 * extractor settings, embeddings by (embedder, chunk id), so re-ingesting an unchanged corpus only
 * re-chunks and rewrites the index.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CHUNK_TOKENS, type ChunkOptions, chunkDocument, OVERLAP_TOKENS } from '../corpus/chunk.ts';
import { COMPANIES_FILE, loadCompanyMap } from '../corpus/companies.ts';
import { documentIdentity } from '../corpus/naming.ts';
import { type ExtractedDocument, extractMany } from '../corpus/pdf.ts';
import { type Chunk, PageText, type SourceDocument } from '../corpus/schema.ts';
import { pinnedPdfSha256 } from '../corpus/sources.ts';
import { chunkerId, EXTRACTOR_VERSION } from '../corpus/version.ts';
import {
  buildIndex,
  type EmbedderName,
  type EmbedderOptions,
  type IndexProvenance,
} from '../retrieval/index.ts';
import { errorMessage, RgeError, UsageError } from '../util/errors.ts';
import { sha256File, writeFileAtomic } from '../util/fs.ts';

export { EXTRACTOR_VERSION };

export interface IngestDocument {
  path: string;
  company: string;
  /** the company's display name, when a company map gave one */
  companyName?: string;
  fy: string | null;
  source: string;
  /** the pinned sha256, verified before ingest when present */
  sha256?: string | null;
}

export type TablesMode = 'auto' | 'always' | 'never';

export interface IngestOptions {
  indexDir: string;
  embedder: EmbedderName;
  /** options for the embedder (for hybrid: the dense model and the fusion parameters) */
  embedderOptions?: EmbedderOptions;
  cacheDir: string;
  tables?: TablesMode;
  concurrency?: number;
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
}

/** The documents of a sources.yaml whose PDFs sit in `pdfDir`. */
export function documentsFromSources(docs: readonly SourceDocument[], pdfDir: string): IngestDocument[] {
  return docs.map((d) => ({
    path: join(pdfDir, d.file),
    company: d.company,
    fy: d.fy,
    source: d.file,
    // a ZIP download is pinned by its own sha256; the PDF taken out of it by pdf_sha256
    sha256: pinnedPdfSha256(d),
  }));
}

/**
 * Every PDF of a folder (sorted by name). Company and fiscal year from a company map (`companies`, a
 * CSV or YAML file; else the folder's companies.yaml when there is one), and for a file it does not
 * name, company = file name stem, fiscal year from the name. A map entry for a file that is not in the
 * folder is an error naming its line (a misspelt name would otherwise fall back silently).
 */
export async function documentsFromFolder(
  dir: string,
  opts: { companies?: string } = {},
): Promise<IngestDocument[]> {
  if (!existsSync(dir)) throw new UsageError('no such folder', { file: dir });
  const names = (await readdir(dir)).filter((n) => n.toLowerCase().endsWith('.pdf')).sort();
  if (names.length === 0) throw new RgeError(`no PDF files in ${dir}`);
  const mapFile = opts.companies ?? join(dir, COMPANIES_FILE);
  const companies =
    opts.companies !== undefined || existsSync(mapFile) ? await loadCompanyMap(mapFile) : null;
  if (companies) {
    const present = new Set(names);
    for (const [file, entry] of companies)
      if (!present.has(file))
        throw new RgeError(`${file} is not a PDF in ${dir}`, { file: mapFile, line: entry.line });
  }
  return names.map((n) => {
    const identity = documentIdentity(n);
    const entry = companies?.get(n);
    if (!entry) return { path: resolve(dir, n), ...identity };
    return {
      path: resolve(dir, n),
      source: identity.source,
      company: entry.company,
      ...(entry.name ? { companyName: entry.name } : {}),
      fy: entry.fy ?? identity.fy,
    };
  });
}

function pageCachePath(cacheDir: string, hash: string, tables: TablesMode): string {
  return join(cacheDir, 'pages', `${hash}-v${EXTRACTOR_VERSION}-${tables}.json`);
}

async function readPageCache(path: string): Promise<PageText[] | null> {
  if (!existsSync(path)) return null;
  try {
    return PageText.array().parse(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return null; // a damaged cache entry is re-extracted, not trusted
  }
}

interface Extracted {
  doc: IngestDocument;
  /** the sha256 of the PDF read */
  sha256?: string;
  pages?: PageText[];
  fromCache: boolean;
  error?: string;
}

async function extractAll(
  docs: readonly IngestDocument[],
  opts: Pick<IngestOptions, 'cacheDir' | 'tables' | 'concurrency' | 'onStage'>,
): Promise<Extracted[]> {
  const tables = opts.tables ?? 'auto';
  const results: Extracted[] = docs.map((doc) => ({ doc, fromCache: false }));
  const hashes: (string | null)[] = [];
  const toExtract: number[] = [];
  let done = 0;
  for (const [i, doc] of docs.entries()) {
    const slot = results[i] as Extracted;
    if (!existsSync(doc.path)) {
      slot.error = `${doc.path}: file not found${doc.sha256 !== undefined ? ' (run `rge corpus fetch` first)' : ''}`;
      hashes.push(null);
      opts.onStage?.('extract', ++done, docs.length, doc.source);
      continue;
    }
    const hash = await sha256File(doc.path);
    hashes.push(hash);
    slot.sha256 = hash;
    if (doc.sha256 && doc.sha256 !== hash) {
      slot.error = `${doc.path}: sha256 ${hash} does not match the pinned ${doc.sha256}; refusing to ingest it`;
      opts.onStage?.('extract', ++done, docs.length, doc.source);
      continue;
    }
    const cached = await readPageCache(pageCachePath(opts.cacheDir, hash, tables));
    if (cached) {
      slot.pages = cached;
      slot.fromCache = true;
      opts.onStage?.('extract', ++done, docs.length, doc.source);
      continue;
    }
    toExtract.push(i);
  }
  const extracted = await extractMany(
    toExtract.map((i) => (docs[i] as IngestDocument).path),
    {
      tables,
      ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
      onDocument: () => opts.onStage?.('extract', ++done, docs.length),
    },
  );
  for (const [j, r] of extracted.entries()) {
    const i = toExtract[j] as number;
    const slot = results[i] as Extracted;
    if (r.error || !r.result) {
      slot.error = r.error ? errorMessage(r.error) : `${slot.doc.path}: extraction failed`;
      continue;
    }
    slot.pages = (r.result as ExtractedDocument).pages;
    await writeFileAtomic(
      pageCachePath(opts.cacheDir, hashes[i] as string, tables),
      JSON.stringify(slot.pages),
    );
  }
  return results;
}

/** Chunks every extracted document; a chunk id already taken by an earlier document is dropped. */
export function chunkAll(
  extracted: readonly { doc: IngestDocument; pages?: PageText[] }[],
  chunking?: ChunkOptions,
): { byDocument: Chunk[][]; chunks: Chunk[]; duplicates: number } {
  const seen = new Set<string>();
  const chunks: Chunk[] = [];
  let duplicates = 0;
  const byDocument = extracted.map(({ doc, pages }) => {
    if (!pages) return [];
    const own = chunkDocument(pages, doc, chunking).filter((c) => {
      if (seen.has(c.id)) {
        duplicates++;
        return false;
      }
      seen.add(c.id);
      return true;
    });
    chunks.push(...own);
    return own;
  });
  return { byDocument, chunks, duplicates };
}

export interface PreparedCorpus {
  documents: DocumentReport[];
  failed: number;
  /** the chunks of every document, in document order; empty for a failed document */
  byDocument: Chunk[][];
  chunks: Chunk[];
  duplicateChunks: number;
}

/** Extracts (or loads cached pages) and chunks every document; no embedding. */
export async function prepareCorpus(
  docs: readonly IngestDocument[],
  opts: Pick<IngestOptions, 'cacheDir' | 'tables' | 'concurrency' | 'chunking' | 'onStage'>,
): Promise<PreparedCorpus> {
  const extracted = await extractAll(docs, opts);
  const { byDocument, chunks, duplicates } = chunkAll(extracted, opts.chunking);
  opts.onStage?.('chunk', chunks.length, chunks.length);
  const documents: DocumentReport[] = extracted.map((e, i) => ({
    source: e.doc.source,
    company: e.doc.company,
    ...(e.doc.companyName ? { companyName: e.doc.companyName } : {}),
    fy: e.doc.fy,
    status: e.pages ? 'ok' : 'failed',
    sha256: e.sha256 ?? null,
    pages: e.pages?.length ?? 0,
    tablePages: e.pages?.filter((p) => p.method === 'table').length ?? 0,
    chunks: byDocument[i]?.length ?? 0,
    fromCache: e.fromCache,
    ...(e.error ? { error: e.error } : {}),
  }));
  const failed = documents.filter((d) => d.status === 'failed').length;
  return { documents, failed, byDocument, chunks, duplicateChunks: duplicates };
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

export async function ingest(docs: readonly IngestDocument[], opts: IngestOptions): Promise<IngestReport> {
  const { documents, failed, chunks, duplicateChunks } = await prepareCorpus(docs, opts);
  if (chunks.length === 0) return { documents, failed, chunks: 0, duplicateChunks, index: null };
  const built = await buildIndex(chunks, {
    dir: opts.indexDir,
    provenance: ingestProvenance(documents, opts),
    embedder: opts.embedder,
    ...(opts.embedderOptions ? { embedderOptions: opts.embedderOptions } : {}),
    cacheDir: join(opts.cacheDir, 'embeddings'),
    onProgress: (done, total) => opts.onStage?.('embed', done, total),
  });
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
  };
}
