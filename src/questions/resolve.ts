/**
 * Gold chunk ids from gold quotes: a question's gold chunks are the indexed chunks whose text contains
 * one of its gold quotes (whitespace-normalised, case-sensitive), among the chunks of its companies and
 * fiscal years. Ids are never typed by hand; re-run this whenever chunking or extraction changes.
 */
import type { Chunk } from '../corpus/schema.ts';

export interface ResolvableQuestion {
  id: string;
  category: string;
  companies: readonly string[];
  fiscal_years: readonly string[];
  gold_quotes: readonly string[];
}

export interface Resolution {
  id: string;
  goldChunkIds: string[];
  /** quotes found in no chunk (the question then cannot be resolved) */
  unresolvedQuotes: string[];
}

export const normaliseSpace = (s: string) => s.replace(/\s+/g, ' ').trim();

export function resolveGoldChunks(
  questions: readonly ResolvableQuestion[],
  chunks: readonly Chunk[],
): Resolution[] {
  const normalised = chunks.map((c) => ({ chunk: c, text: normaliseSpace(c.text) }));
  return questions.map((q) => {
    if (q.category === 'out-of-domain') return { id: q.id, goldChunkIds: [], unresolvedQuotes: [] };
    const scoped = normalised.filter(
      ({ chunk }) =>
        (q.companies.length === 0 || q.companies.includes(chunk.company)) &&
        (q.fiscal_years.length === 0 || chunk.fy === null || q.fiscal_years.includes(chunk.fy)),
    );
    const ids = new Set<string>();
    const unresolvedQuotes: string[] = [];
    for (const quote of q.gold_quotes) {
      const needle = normaliseSpace(quote);
      const hits = scoped.filter((c) => c.text.includes(needle)).map((c) => c.chunk.id);
      if (hits.length === 0) unresolvedQuotes.push(quote);
      for (const id of hits) ids.add(id);
    }
    return { id: q.id, goldChunkIds: [...ids].sort(), unresolvedQuotes };
  });
}
