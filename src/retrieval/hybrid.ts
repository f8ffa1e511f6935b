import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { compareIds } from './bm25.ts';
import type { DenseEmbedder, FusionParameters, HybridEmbedder, LexicalEmbedder } from './embedder.ts';

/**
 * Hybrid retrieval: BM25 and a dense model ranked separately, then fused by weighted reciprocal rank
 * fusion (Cormack, Clarke and Buettcher, SIGIR 2009): a chunk's fused score is the sum over the two
 * rankings of weight / (rrfK + rank), rank counted from 1 within the first `depth` of each list; a chunk
 * absent from a list gets nothing from it. RRF needs no score calibration between BM25 (unbounded) and
 * cosine (-1..1), which is why it is the usual way to fuse the two.
 *
 * The index of a hybrid embedder holds both representations (the postings and the vectors); every
 * fusion parameter is part of the embedder id and of its `parameters`, so the index manifest records
 * them and an index is never queried with other settings than it was built for.
 */
export const DEFAULT_FUSION: Readonly<FusionParameters> = Object.freeze({
  dense: 'use-lite',
  rrfK: 60,
  depth: 50,
  lexicalWeight: 1,
  denseWeight: 1,
});

/** Fills defaults and rejects values RRF cannot use. */
export function fusionParameters(given: Partial<FusionParameters> = {}): FusionParameters {
  const f: FusionParameters = { ...DEFAULT_FUSION, ...definedOnly(given) };
  if (f.dense !== 'use-lite' && f.dense !== 'bge-m3')
    throw new RgeError(`hybrid: dense must be use-lite or bge-m3, got ${String(f.dense)}`, { exitCode: 2 });
  if (!(Number.isFinite(f.rrfK) && f.rrfK >= 0))
    throw new RgeError(`hybrid: rrf k must be a number >= 0, got ${f.rrfK}`, { exitCode: 2 });
  if (!(Number.isInteger(f.depth) && f.depth >= 1))
    throw new RgeError(`hybrid: depth must be a positive integer, got ${f.depth}`, { exitCode: 2 });
  for (const [name, w] of [
    ['lexical weight', f.lexicalWeight],
    ['dense weight', f.denseWeight],
  ] as const) {
    if (!(Number.isFinite(w) && w >= 0))
      throw new RgeError(`hybrid: ${name} must be a number >= 0, got ${w}`, { exitCode: 2 });
  }
  if (f.lexicalWeight + f.denseWeight === 0)
    throw new RgeError('hybrid: the two weights cannot both be 0', { exitCode: 2 });
  return f;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The fusion parameters as an index manifest records them (`embedder.parameters`). */
export function fusionRecord(f: FusionParameters): Record<string, string | number> {
  return {
    fusion: 'rrf',
    dense: f.dense,
    rrfK: f.rrfK,
    depth: f.depth,
    lexicalWeight: f.lexicalWeight,
    denseWeight: f.denseWeight,
  };
}

/** Reads the fusion parameters back from a manifest's `embedder.parameters` (null when absent). */
export function fusionFromRecord(
  record: Readonly<Record<string, string | number | boolean | null>> | null | undefined,
): FusionParameters | null {
  if (record?.fusion !== 'rrf') return null;
  const num = (key: string) => (typeof record[key] === 'number' ? (record[key] as number) : undefined);
  const dense = record.dense;
  return fusionParameters({
    ...(dense === 'use-lite' || dense === 'bge-m3' ? { dense } : {}),
    ...definedOnly({
      rrfK: num('rrfK'),
      depth: num('depth'),
      lexicalWeight: num('lexicalWeight'),
      denseWeight: num('denseWeight'),
    }),
  });
}

export function hybridEmbedderId(lexicalId: string, denseId: string, f: FusionParameters): string {
  return `hybrid:rrf:k=${f.rrfK}:depth=${f.depth}:w=${f.lexicalWeight},${f.denseWeight}:dense=${f.dense}[${lexicalId}|${denseId}]`;
}

/** The fusion parameters, read back from a hybrid embedder id (null when it is not one). */
export function fusionFromId(id: string): FusionParameters | null {
  const m = /^hybrid:rrf:k=([\d.]+):depth=(\d+):w=([\d.]+),([\d.]+):dense=(use-lite|bge-m3)\[/.exec(id);
  if (!m) return null;
  return fusionParameters({
    dense: m[5] as FusionParameters['dense'],
    rrfK: Number(m[1]),
    depth: Number(m[2]),
    lexicalWeight: Number(m[3]),
    denseWeight: Number(m[4]),
  });
}

/** The ids of the two halves, read back from a hybrid embedder id (null when it is not one). */
export function hybridPartIds(id: string): { lexical: string; dense: string } | null {
  const m = /^hybrid:[^[]*\[([^|]+)\|(.+)\]$/.exec(id);
  return m ? { lexical: m[1] as string, dense: m[2] as string } : null;
}

/** The hybrid embedder over its two halves (built by create-embedder.ts) and checked fusion parameters. */
export function createHybridEmbedder(
  lexical: LexicalEmbedder,
  dense: DenseEmbedder,
  fusion: FusionParameters,
): HybridEmbedder {
  const embedder: HybridEmbedder = {
    kind: 'hybrid',
    name: 'hybrid',
    id: hybridEmbedderId(lexical.id, dense.id, fusion),
    batchSize: dense.batchSize,
    dimensions: dense.dimensions,
    lexical,
    dense,
    fusion,
  };
  // what the index manifest records beside the id: the fusion parameters and the dense model's revision
  return Object.assign(embedder, {
    parameters: fusionRecord(fusion),
    revision: (dense as { revision?: string | null }).revision ?? null,
  });
}

/** One ranking to fuse: chunk ids best first, and the weight of the ranking. */
export interface Ranking {
  ids: readonly string[];
  weight: number;
}

/**
 * Weighted reciprocal rank fusion of rankings, each cut to its first `depth` ids: score(d) =
 * sum of weight / (rrfK + rank), rank from 1. Returns [id, score] best first; equal scores by id.
 */
export function reciprocalRankFusion(
  rankings: readonly Ranking[],
  opts: { rrfK: number; depth: number },
): [string, number][] {
  const scores = new Map<string, number>();
  for (const { ids, weight } of rankings) {
    if (weight === 0) continue;
    const seen = new Set<string>();
    let rank = 0;
    for (const id of ids) {
      if (rank >= opts.depth) break;
      if (seen.has(id)) continue; // a ranking names each chunk once; a repeat is ignored
      seen.add(id);
      rank++;
      scores.set(id, (scores.get(id) ?? 0) + weight / (opts.rrfK + rank));
    }
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || compareIds(a[0], b[0]));
}

/** sha256 over the hybrid id and the checksums of its two halves. */
export function hybridChecksum(embedderId: string, denseChecksum: string, lexicalChecksum: string): string {
  return sha256(`rge-index-checksum:v1:hybrid\0${embedderId}\0${denseChecksum}\0${lexicalChecksum}`);
}
