/** Checks an index folder: recomputes the checksum from what is stored and compares it with the manifest. */
import { resolve } from 'node:path';
import { sha256 } from '../util/fs.ts';
import type { Bm25Stats } from './bm25.ts';
import { hybridChecksum, hybridPartIds } from './hybrid.ts';
import { BM25, CHUNKS, denseChecksum, lexicalChecksum, VECTRA } from './manifest.ts';
import { idsMatch, loadIndexFolder } from './store.ts';

export interface VerifyResult {
  ok: boolean;
  stored: string;
  actual: string;
  problems: string[];
}

/** Recomputes the checksum from the stored vectors (or postings) and compares it with the manifest's. */
export async function verifyIndex(dir: string): Promise<VerifyResult> {
  const abs = resolve(dir);
  const loaded = await loadIndexFolder(abs);
  const { manifest } = loaded;
  const problems: string[] = [];
  let actual: string;
  if (loaded.dense && loaded.lexical) {
    const { ids, matrix, dims } = loaded.dense;
    const vectors = ids.map((_, r) => matrix.subarray(r * dims, (r + 1) * dims));
    const parts = hybridPartIds(manifest.embedder.id);
    actual = parts
      ? hybridChecksum(
          manifest.embedder.id,
          denseChecksum(parts.dense, ids, vectors),
          lexicalChecksum(parts.lexical, loaded.lexical),
        )
      : '';
    if (!parts) problems.push(`embedder id ${manifest.embedder.id} does not name its two halves`);
    if (!idsMatch(ids, loaded.chunks) || !idsMatch(loaded.lexical.ids, loaded.chunks))
      problems.push(`the vectors or postings do not match the chunks in ${CHUNKS}`);
  } else if (loaded.dense) {
    const { ids, matrix, dims } = loaded.dense;
    const vectors = ids.map((_, r) => matrix.subarray(r * dims, (r + 1) * dims));
    actual = denseChecksum(manifest.embedder.id, ids, vectors);
    if (!idsMatch(ids, loaded.chunks))
      problems.push(`the vectors in ${VECTRA} do not match the chunks in ${CHUNKS}`);
  } else {
    const stats = loaded.lexical as Bm25Stats;
    actual = lexicalChecksum(manifest.embedder.id, stats);
    if (!idsMatch(stats.ids, loaded.chunks))
      problems.push(`the postings in ${BM25} do not match the chunks in ${CHUNKS}`);
  }
  if (actual !== manifest.checksum)
    problems.push(`checksum mismatch: manifest ${manifest.checksum}, recomputed ${actual}`);
  if (sha256(loaded.chunksJson) !== manifest.chunksSha256)
    problems.push(`${CHUNKS} changed since the index was built`);
  return { ok: problems.length === 0, stored: manifest.checksum, actual, problems };
}
