/**
 * The retrievers an out-of-domain candidate is checked against (verification check 6): BM25 over the
 * index's chunks, built here in memory (always: a lexical retriever finds the rare term a dense one
 * misses), and the index's own retriever (its embedder: dense, lexical or hybrid) when the index has
 * one. Each gives the top k = 5 chunks for the question, as a run retrieves them.
 */
import type { Chunk } from '../../corpus/schema.ts';
import type { TopK } from '../../questions/generate/verify/checks.ts';
import { bm25Scores, buildBm25Stats, termCounts } from '../../retrieval/bm25.ts';
import { DEFAULT_K, type Index } from '../../retrieval/store.ts';

/** BM25 (k1 1.2, b 0.75) over the chunks' texts, top k. */
export function bm25TopK(chunks: readonly Chunk[], k = DEFAULT_K): TopK {
  const stats = buildBm25Stats(
    chunks.map((c) => c.id),
    chunks.map((c) => termCounts(`${c.heading ?? ''}\n${c.text}`)),
    1.2,
    0.75,
  );
  const byId = new Map(chunks.map((c) => [c.id, c]));
  return {
    name: 'bm25',
    top(question) {
      const scores = bm25Scores(stats, termCounts(question));
      return [...scores.entries()]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, k)
        .map(([doc]) => byId.get(stats.ids[doc] as string) as Chunk);
    },
  };
}

/** The index's own retriever (its manifest's embedder), top k. */
export function indexTopK(index: Index, k = DEFAULT_K): TopK {
  return {
    name: `the index's ${index.manifest.embedder?.name ?? 'retriever'}`,
    top: (question) => index.retrieve(question, { k }),
  };
}
