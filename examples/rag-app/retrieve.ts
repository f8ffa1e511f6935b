/**
 * rag-app's retriever: Okapi BM25 (k1 1.2, b 0.75) over its passages, each indexed with its document's
 * title and its section's heading, so that a passage that does not name its company or year ("The
 * group employed 4,208 people ...") is still found by them. Built in memory at start (a few
 * milliseconds for a few hundred passages); ties go to the passage that comes first in the corpus.
 */
import type { Passage } from './ingest.ts';
import { terms } from './text.ts';

export interface Retrieved {
  passage: Passage;
  /** its BM25 score for the query */
  score: number;
}

const K1 = 1.2;
const B = 0.75;

/** The text a passage is indexed by: its document's title, its heading and its paragraphs. */
export function indexedText(p: Passage): string {
  return [p.title, p.heading, ...p.paragraphs].join('\n');
}

export class Bm25Index {
  private readonly counts: Map<string, number>[];
  private readonly lengths: number[];
  private readonly averageLength: number;
  private readonly documentFrequency = new Map<string, number>();

  constructor(readonly passages: readonly Passage[]) {
    this.counts = passages.map((p) => {
      const counts = new Map<string, number>();
      for (const t of terms(indexedText(p))) counts.set(t, (counts.get(t) ?? 0) + 1);
      return counts;
    });
    this.lengths = this.counts.map((c) => [...c.values()].reduce((a, b) => a + b, 0));
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, passages.length);
    for (const c of this.counts)
      for (const t of c.keys()) this.documentFrequency.set(t, (this.documentFrequency.get(t) ?? 0) + 1);
  }

  /** How many passages hold the term. */
  frequency(term: string): number {
    return this.documentFrequency.get(term) ?? 0;
  }

  /** BM25's inverse document frequency, ln(1 + (N - df + 0.5) / (df + 0.5)): always above 0. */
  idf(term: string): number {
    const n = this.passages.length;
    const df = this.frequency(term);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** The `k` passages that score best for the query, best first (passages that share no term are left out). */
  search(query: string, k: number): Retrieved[] {
    const queryTerms = [...new Set(terms(query))];
    const scored: Retrieved[] = [];
    for (const [i, counts] of this.counts.entries()) {
      let score = 0;
      const norm = K1 * (1 - B + (B * (this.lengths[i] ?? 0)) / this.averageLength);
      for (const t of queryTerms) {
        const tf = counts.get(t);
        if (tf) score += (this.idf(t) * tf * (K1 + 1)) / (tf + norm);
      }
      const passage = this.passages[i];
      if (passage && score > 0) scored.push({ passage, score });
    }
    // a stable sort: equal scores keep the corpus order
    return scored.sort((a, b) => b.score - a.score).slice(0, k);
  }
}
