/**
 * Page recall@k: the share of questions for which at least one of the top-k retrieved chunks covers a
 * gold evidence page. Scope `document` restricts retrieval to the question's own document (FinanceBench's
 * "single store"); `corpus` retrieves over everything indexed ("shared store").
 */
export interface PageRecallQuestion {
  id: string;
  question: string;
  /** the company slug of the question's document, as the index stores it */
  company: string;
  /** 1-indexed gold evidence pages */
  goldPages: readonly number[];
}

export interface RetrievedPages {
  id: string;
  company: string;
  pages: readonly [number, number];
}

export interface Retriever {
  retrieve(question: string, opts: { k: number; company?: string }): Promise<readonly RetrievedPages[]>;
}

export interface PageRecallResult {
  k: number;
  scope: 'document' | 'corpus';
  n: number;
  hits: number;
  recall: number;
  misses: string[];
}

export function coversGoldPage(
  chunk: RetrievedPages,
  company: string,
  goldPages: readonly number[],
): boolean {
  const [first, last] = chunk.pages;
  return chunk.company === company && goldPages.some((p) => p >= first && p <= last);
}

export async function pageRecallAtK(
  retriever: Retriever,
  questions: readonly PageRecallQuestion[],
  opts: { k: number; scope: 'document' | 'corpus' },
): Promise<PageRecallResult> {
  let hits = 0;
  const misses: string[] = [];
  for (const q of questions) {
    const top = await retriever.retrieve(q.question, {
      k: opts.k,
      ...(opts.scope === 'document' ? { company: q.company } : {}),
    });
    if (top.some((c) => coversGoldPage(c, q.company, q.goldPages))) hits++;
    else misses.push(q.id);
  }
  const n = questions.length;
  return { k: opts.k, scope: opts.scope, n, hits, recall: n === 0 ? Number.NaN : hits / n, misses };
}
