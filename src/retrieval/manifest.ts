import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type Bm25Stats, compareIds } from './bm25.ts';

/**
 * The persistent index: its folder's layout, its manifest and its checksum. One folder holds:
 * - `manifest.json`: embedder, chunk count, rge version, checksum (written last: no manifest, no index);
 * - `chunks.json`: the indexed chunks, sorted by id;
 * - dense embedders: `index.json`, a vectra LocalIndex (cosine) with one item per chunk;
 * - bm25: `bm25.json`, document lengths and postings;
 * - `query-cache/`: the dense vectors of questions asked of it (written by retrieval, best effort).
 * A build (build.ts) writes a sibling folder and renames it into place, so a crash never leaves a half
 * index that opens as valid. Retrieval (store.ts) runs on an in-memory Float32Array matrix (or the
 * postings) loaded once; verify.ts recomputes the checksum.
 */
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * What an index was built from, so a config that asks for something else (another chunk size, overlap,
 * extraction mode or corpus) is never answered from it: see `indexIdentityDifferences` in
 * `src/run/config/corpus-index.ts`. Absent (null) in indexes built before rge recorded it (format 1).
 */
export const IndexProvenance = z.strictObject({
  chunking: z.strictObject({
    chunkTokens: z.number().int().positive(),
    overlapTokens: z.number().int().min(0),
    /** the chunker and its version (src/corpus/version.ts); absent: version 1 */
    chunker: z.string().optional(),
  }),
  extraction: z.strictObject({
    /** the extractor and its version (cached pages are keyed by it too) */
    extractor: z.string(),
    tables: z.enum(['auto', 'always', 'never']),
  }),
  /** the documents whose chunks are in the index, with the sha256 of the PDF each was read from */
  documents: z.array(
    z.strictObject({
      source: z.string(),
      company: z.string(),
      /** the company's display name, when a company map (companies.yaml, --company-from) gave one */
      companyName: z.string().optional(),
      fy: z.string().nullable(),
      sha256: Sha256,
    }),
  ),
});
export type IndexProvenance = z.infer<typeof IndexProvenance>;

/** Scalar parameters of an embedder that change its output (fusion parameters, a model revision). */
export const EmbedderParameters = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.null()]),
);
export type EmbedderParameters = z.infer<typeof EmbedderParameters>;

export const IndexManifest = z.strictObject({
  format: z.literal('rge-index'),
  /** 1: no provenance; 2: provenance and embedder revision and parameters */
  formatVersion: z.union([z.literal(1), z.literal(2)]),
  embedder: z.strictObject({
    name: z.string(),
    id: z.string(),
    kind: z.enum(['dense', 'lexical', 'hybrid']),
    dimensions: z.number().int().positive().nullable(),
    /** the model's revision (a hub commit or tag) when it was downloaded from a model hub */
    revision: z.string().nullable().default(null),
    parameters: EmbedderParameters.nullable().default(null),
  }),
  corpus: IndexProvenance.nullable().default(null),
  chunks: z.number().int().nonnegative(),
  createdWith: z.string(),
  createdAt: z.iso.datetime(),
  /** sha256 over the embedder id, the sorted chunk ids and their vectors (or term statistics) */
  checksum: Sha256,
  /** sha256 of chunks.json, so that edited chunk text is caught by verifyIndex too */
  chunksSha256: Sha256,
});
export type IndexManifest = z.infer<typeof IndexManifest>;

export const MANIFEST = 'manifest.json';
export const CHUNKS = 'chunks.json';
export const VECTRA = 'index.json';
export const BM25 = 'bm25.json';
/** Dense vectors of the questions asked of this index (see `Index.queryVector`); not part of the checksum. */
export const QUERY_CACHE = 'query-cache';

// ---------------------------------------------------------------------------------------------
// checksum

/** sha256 over the embedder id, then each chunk id (sorted) with the little-endian f32 bytes of its vector. */
export function denseChecksum(
  embedderId: string,
  ids: readonly string[],
  vectors: readonly Float32Array[],
): string {
  const order = ids.map((_, i) => i).sort((a, b) => compareIds(ids[a] as string, ids[b] as string));
  const h = new ChecksumStream();
  h.text(`rge-index-checksum:v1:dense\0${embedderId}\0`);
  h.u32(ids.length);
  for (const i of order) {
    const v = vectors[i] as Float32Array;
    h.text(`${ids[i]}\0`);
    h.u32(v.length);
    for (let j = 0; j < v.length; j++) h.f32(v[j] as number);
  }
  return h.digest();
}

/** sha256 over the embedder id, the chunk ids (sorted) with document lengths, then each term's postings. */
export function lexicalChecksum(embedderId: string, stats: Bm25Stats): string {
  const h = new ChecksumStream();
  h.text(`rge-index-checksum:v1:lexical\0${embedderId}\0`);
  h.u32(stats.ids.length);
  stats.ids.forEach((id, i) => {
    h.text(`${id}\0`);
    h.u32(stats.lengths[i] as number);
  });
  const terms = [...stats.postings.keys()].sort(compareIds);
  h.u32(terms.length);
  for (const t of terms) {
    const list = stats.postings.get(t) as number[];
    h.text(`${t}\0`);
    h.u32(list.length);
    for (const n of list) h.u32(n);
  }
  return h.digest();
}

/**
 * sha256 of a stream of UTF-8 strings, little-endian u32s and f32s, hashed through one 64 KiB buffer:
 * the digest of their concatenation without a Buffer per value (a 6,566-chunk bm25 index has millions
 * of postings numbers; a Buffer each held about 190 MB until the digest).
 */
export class ChecksumStream {
  private readonly hash = createHash('sha256');
  private readonly buf = Buffer.allocUnsafe(1 << 16);
  private used = 0;

  text(s: string): void {
    if (this.used + s.length * 3 > this.buf.length) this.flush();
    if (s.length * 3 > this.buf.length) this.hash.update(s, 'utf8');
    else this.used += this.buf.write(s, this.used, 'utf8');
  }

  u32(n: number): void {
    if (this.used + 4 > this.buf.length) this.flush();
    this.used = this.buf.writeUInt32LE(n, this.used);
  }

  f32(x: number): void {
    if (this.used + 4 > this.buf.length) this.flush();
    this.used = this.buf.writeFloatLE(x, this.used);
  }

  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }

  private flush(): void {
    if (this.used > 0) this.hash.update(this.buf.subarray(0, this.used));
    this.used = 0;
  }
}

/** How an index records bge-m3's weights (`embedder.parameters.weights`), by transformers.js dtype. */
export const BGE_M3_WEIGHTS = { fp32: 'fp32', q8: 'int8', fp16: 'fp16' } as const;

/**
 * The bge-m3 weights an index was built on: its manifest's record, else the dtype its embedder id names
 * (`bge-m3:...:fp32:cls:l2`, alone or inside a hybrid's id), as in indexes built before the record;
 * null when neither says (bge-m3 did not build it).
 */
export function bgeM3WeightsOf(manifest: IndexManifest): string | null {
  const recorded = manifest.embedder.parameters?.weights;
  if (typeof recorded === 'string') return recorded;
  const dtype = /bge-m3:\S*?:(fp32|q8|fp16):cls:l2/.exec(manifest.embedder.id)?.[1] as
    | keyof typeof BGE_M3_WEIGHTS
    | undefined;
  return dtype ? BGE_M3_WEIGHTS[dtype] : null;
}
