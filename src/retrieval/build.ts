/**
 * Builds an index folder (layout in manifest.ts): embeds the chunks' passages (dense vectors through the
 * embedding cache, or bm25 term statistics, or both for hybrid), writes them with the chunks and the
 * manifest into a sibling folder, and renames that into place.
 */
import { createHash, type Hash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Chunk } from '../corpus/schema.ts';
import { RgeError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { Bm25Builder, bm25ToFile, compareIds } from './bm25.ts';
import { DEFAULT_EMBEDDING_CACHE_DIR, EmbeddingCache } from './cache.ts';
import { createEmbedder } from './create-embedder.ts';
import type { DenseEmbedder, Embedder, EmbedderName, EmbedderOptions, LexicalEmbedder } from './embedder.ts';
import { hybridChecksum } from './hybrid.ts';
import {
  BM25,
  CHUNKS,
  denseChecksum,
  type IndexManifest,
  type IndexProvenance,
  lexicalChecksum,
  MANIFEST,
} from './manifest.ts';

export interface BuildIndexOptions {
  dir: string;
  /** what the chunks were made from (chunking, extraction, documents); recorded in the manifest */
  provenance?: IndexProvenance;
  embedder: Embedder | EmbedderName;
  /** where dense vectors are cached (default .cache/rge/embeddings under the working folder) */
  cacheDir?: string;
  /** options for the embedder when it is given by name */
  embedderOptions?: EmbedderOptions;
  onProgress?: (done: number, total: number) => void;
}

export interface BuildIndexResult {
  checksum: string;
  chunks: number;
  /** passages sent to the model */
  embedded: number;
  /** passages whose vector came from the cache */
  cached: number;
  /** wall milliseconds spent in the embedder (model load included); the rest of the build is I/O */
  embedMs: number;
}

function rgeVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return `rge@${pkg.version ?? 'unknown'}`;
  } catch {
    return 'rge@unknown';
  }
}

/**
 * The text a passage is embedded (and, for bm25, counted) from: a one-line context header naming the
 * document's company and fiscal year and the chunk's heading, then the chunk's text. Chunks of twenty
 * look-alike annual reports differ mostly in whose report they are; without the header a question
 * naming a company retrieves another company's identical section (measured on the fixture set with
 * use-lite: gold chunk in the top 5 for 12 of 45 grounded-direct questions without it). The chunk's own
 * text and id are unchanged.
 *
 * bm25's passage (`lexicalPassageText`) names every heading the chunk's lines fall under, because a
 * chunk often runs from the end of one statement into the next (a balance sheet's last rows, then the
 * statement of earnings). The dense models keep the first alone: a long header of a dozen section
 * titles drowned the company name for use-lite (fixture world, grounded-direct gold in the top 5: 4/45
 * with every heading, 22/45 with the first; docs/adr/0020-offline-retriever.md).
 */
export function passageText(chunk: Chunk): string {
  return withHeader(chunk, chunk.heading ? [chunk.heading] : []);
}

/** bm25's passage: the header names every heading of the chunk (`Chunk.headings`, chunker 3). */
export function lexicalPassageText(chunk: Chunk): string {
  return withHeader(chunk, chunk.headings ?? (chunk.heading ? [chunk.heading] : []));
}

function withHeader(chunk: Chunk, titles: readonly string[]): string {
  const company = chunk.company.replace(/-/g, ' ');
  const header = [company, chunk.fy ?? '', ...titles].filter((s) => s !== '').join(' | ');
  return `${header}\n${chunk.text}`;
}

/** What the representations of a build add up to: the checksum, the embedding counts and time, the dimensions. */
type Representations = Omit<BuildIndexResult, 'chunks'> & { dimensions: number | null };

export async function buildIndex(chunks: Chunk[], opts: BuildIndexOptions): Promise<BuildIndexResult> {
  const dir = resolve(opts.dir);
  const embedder =
    typeof opts.embedder === 'string'
      ? await createEmbedder(opts.embedder, opts.embedderOptions)
      : opts.embedder;
  const sorted = inIdOrder(chunks);
  await assertReplaceable(dir);

  const total = sorted.length;
  opts.onProgress?.(0, total);
  const tmp = join(
    dirname(dir),
    `.${basename(dir)}.building-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  await mkdir(tmp, { recursive: true });
  try {
    const result = await writeRepresentations(tmp, sorted, embedder, opts);
    // JSON.stringify(sorted) + newline, written and hashed in pieces (never one string of the whole corpus)
    const chunksHash = createHash('sha256');
    await writeFileAtomic(join(tmp, CHUNKS), jsonArrayPieces(sorted, chunksHash));
    const manifest: IndexManifest = {
      format: 'rge-index',
      formatVersion: 2,
      embedder: {
        name: embedder.name,
        id: embedder.id,
        kind: embedder.kind,
        dimensions: result.dimensions,
        revision: embedder.revision ?? null,
        parameters: embedder.parameters ?? null,
      },
      corpus: opts.provenance ?? null,
      chunks: total,
      createdWith: rgeVersion(),
      createdAt: new Date().toISOString(),
      checksum: result.checksum,
      chunksSha256: chunksHash.digest('hex'),
    };
    await writeFileAtomic(join(tmp, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await swapInto(tmp, dir);
    return {
      checksum: result.checksum,
      chunks: total,
      embedded: result.embedded,
      cached: result.cached,
      embedMs: result.embedMs,
    };
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** The chunks sorted by id; two chunks with one id are an error. */
function inIdOrder(chunks: readonly Chunk[]): Chunk[] {
  const sorted = [...chunks].sort((a, b) => compareIds(a.id, b.id));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]?.id === sorted[i - 1]?.id) throw new RgeError(`duplicate chunk id ${sorted[i]?.id}`);
  }
  return sorted;
}

/** Dense vectors, bm25 statistics, or for hybrid both side by side with one checksum over the two. */
async function writeRepresentations(
  tmp: string,
  sorted: Chunk[],
  embedder: Embedder,
  opts: BuildIndexOptions,
): Promise<Representations> {
  const cacheDir = () => resolve(opts.cacheDir ?? DEFAULT_EMBEDDING_CACHE_DIR);
  if (embedder.kind === 'dense') return writeDense(tmp, sorted, embedder, cacheDir(), opts);
  if (embedder.kind === 'lexical') return writeLexical(tmp, sorted, embedder, opts);
  const dense = await writeDense(tmp, sorted, embedder.dense, cacheDir(), opts);
  const lexical = await writeLexical(tmp, sorted, embedder.lexical, { ...opts, onProgress: undefined });
  return {
    ...dense,
    checksum: hybridChecksum(embedder.id, dense.checksum, lexical.checksum),
    embedMs: dense.embedMs + lexical.embedMs,
  };
}

/** Refuses to replace a folder that has files but is not an rge index (it may be the user's data). */
async function assertReplaceable(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const entries = await readdir(dir);
  if (entries.length > 0 && !entries.includes(MANIFEST)) {
    throw new RgeError(`${dir} exists and is not an rge index (no ${MANIFEST}); refusing to replace it`);
  }
}

/**
 * Moves the finished build into place. Another process may build the same index at the same moment
 * (the eval suite and a test both building the fixture index on a fresh clone): when its folder lands
 * between our move-aside and our rename, we move it aside too and try again, so the last build wins
 * and neither fails.
 */
async function swapInto(tmp: string, dir: string): Promise<void> {
  const olds: string[] = [];
  for (let attempt = 0; ; attempt++) {
    if (existsSync(dir)) {
      const old = join(
        dirname(dir),
        `.${basename(dir)}.old-${process.pid}-${randomBytes(4).toString('hex')}`,
      );
      await rename(dir, old).then(
        () => olds.push(old),
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err; // the other process moved it first
        },
      );
    }
    try {
      await rename(tmp, dir);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt >= 5) throw err;
    }
  }
  for (const old of olds) await rm(old, { recursive: true, force: true });
}

async function writeDense(
  tmp: string,
  chunks: Chunk[],
  embedder: DenseEmbedder,
  cacheDir: string,
  opts: BuildIndexOptions,
): Promise<{ checksum: string; embedded: number; cached: number; dimensions: number; embedMs: number }> {
  const cache = new EmbeddingCache(cacheDir, embedder.id);
  const vectors = await inParallel(chunks, (c) => cache.get(c.id, passageText(c)));
  const missing = vectors.flatMap((v, i) => (v ? [] : [i]));
  const cached = chunks.length - missing.length;
  opts.onProgress?.(cached, chunks.length);
  let embedMs = 0;
  if (missing.length > 0) {
    await cache.describe();
    const t0 = performance.now();
    const fresh = await embedder.embedPassages(
      missing.map((i) => passageText(chunks[i] as Chunk)),
      (done) => opts.onProgress?.(cached + done, chunks.length),
    );
    embedMs = performance.now() - t0;
    if (fresh.length !== missing.length) {
      throw new RgeError(
        `embedder ${embedder.id} returned ${fresh.length} vectors for ${missing.length} passages`,
      );
    }
    for (const [j, i] of missing.entries()) vectors[i] = fresh[j] as Float32Array;
    await inParallel(missing, (i) =>
      cache.set((chunks[i] as Chunk).id, passageText(chunks[i] as Chunk), vectors[i] as Float32Array),
    );
  }
  const all = vectors as Float32Array[];
  const dimensions = all[0]?.length ?? embedder.dimensions ?? 0;
  for (const [i, v] of all.entries()) {
    if (v.length !== dimensions) {
      throw new RgeError(`chunk ${chunks[i]?.id}: vector has ${v.length} dimensions, expected ${dimensions}`);
    }
  }
  // The LocalIndex module alone, when a dense index is written: vectra's index.js also loads its OpenAI
  // client, web fetcher and HTML tools (about 0.9 s of start-up; bench/startup.bench.ts), and LocalIndex
  // its language model (some 0.2 s), which a lexical index never needs.
  const { LocalIndex } = await import('vectra/lib/LocalIndex.js');
  const store = new LocalIndex(tmp);
  await store.createIndex({ version: 1 });
  await store.batchInsertItems(
    chunks.map((c, i) => ({
      id: c.id,
      vector: Array.from(all[i] as Float32Array),
      metadata: { company: c.company, fy: c.fy ?? '' },
    })),
  );
  const checksum = denseChecksum(
    embedder.id,
    chunks.map((c) => c.id),
    all,
  );
  return { checksum, embedded: missing.length, cached, dimensions, embedMs };
}

/** Maps with at most `limit` calls in flight (cache files are many and small). */
async function inParallel<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, limit = 32): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function writeLexical(
  tmp: string,
  chunks: Chunk[],
  embedder: LexicalEmbedder,
  opts: BuildIndexOptions,
): Promise<{ checksum: string; embedded: number; cached: number; dimensions: null; embedMs: number }> {
  const t0 = performance.now();
  // a batch of passages at a time, in chunk-id order, straight into the postings (Bm25Builder); small
  // batches, so that a batch's term counts die young instead of filling the old generation (measured:
  // peak RSS of the 6,000-page synthetic ingest 483-496 MB with 16, 501-510 MB with 256)
  const builder = new Bm25Builder(
    chunks.map((c) => c.id),
    embedder.k1,
    embedder.b,
  );
  const step = Math.max(1, Math.min(embedder.batchSize, 16));
  for (let from = 0; from < builder.order.length; from += step) {
    const batch = builder.order.slice(from, from + step);
    const counts = await embedder.embedPassages(batch.map((i) => lexicalPassageText(chunks[i] as Chunk)));
    for (const c of counts) builder.add(c);
    opts.onProgress?.(from + batch.length, chunks.length);
  }
  const stats = builder.finish();
  const embedMs = performance.now() - t0;
  await writeFileAtomic(join(tmp, BM25), JSON.stringify(bm25ToFile(stats)));
  return {
    checksum: lexicalChecksum(embedder.id, stats),
    embedded: chunks.length,
    cached: 0,
    dimensions: null,
    embedMs,
  };
}

/**
 * `${JSON.stringify(items)}\n` in pieces of about a megabyte, each added to `hash` as it is handed out:
 * the same bytes and digest as the whole string, without holding it.
 */
export function* jsonArrayPieces(items: readonly unknown[], hash: Hash): Generator<string> {
  let piece = '[';
  for (let i = 0; i < items.length; i++) {
    piece += (i > 0 ? ',' : '') + JSON.stringify(items[i]);
    if (piece.length >= 1 << 20) {
      hash.update(piece);
      yield piece;
      piece = '';
    }
  }
  piece += ']\n';
  hash.update(piece);
  yield piece;
}
