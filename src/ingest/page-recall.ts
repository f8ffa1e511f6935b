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

/** Page recall@k on each split of a question set, and on the whole of it. */
export interface SplitRecall {
  dev: PageRecallResult;
  test: PageRecallResult;
  all: PageRecallResult;
}

export async function pageRecallBySplit(
  retriever: Retriever,
  questions: readonly (PageRecallQuestion & { split: 'dev' | 'test' })[],
  opts: { k: number; scope: 'document' | 'corpus' },
): Promise<SplitRecall> {
  const dev = await pageRecallAtK(
    retriever,
    questions.filter((q) => q.split === 'dev'),
    opts,
  );
  const test = await pageRecallAtK(
    retriever,
    questions.filter((q) => q.split === 'test'),
    opts,
  );
  const n = dev.n + test.n;
  const hits = dev.hits + test.hits;
  const all: PageRecallResult = {
    ...opts,
    n,
    hits,
    recall: n === 0 ? Number.NaN : hits / n,
    misses: [...dev.misses, ...test.misses],
  };
  return { dev, test, all };
}

/** A question of a set whose gold is chunk ids (the fixture world), as page recall needs it. */
export interface GoldChunkQuestion {
  id: string;
  text: string;
  category: string;
  gold_chunk_ids: readonly string[];
}

export interface GoldChunkRecall {
  questions: number;
  hits: number;
  rate: number;
  misses: string[];
}

/**
 * Per category, the share of questions with a gold chunk among the top k retrieved for the question's
 * text over the whole index: what the report's "Retrieval" section counts (src/run/case/case.ts
 * `retrieval_hit`). Questions without gold chunks (out-of-domain) are left out.
 */
export async function goldChunkRecallAtK(
  retriever: { retrieve(question: string, opts: { k: number }): Promise<readonly { id: string }[]> },
  questions: readonly GoldChunkQuestion[],
  k: number,
): Promise<Map<string, GoldChunkRecall>> {
  const out = new Map<string, GoldChunkRecall>();
  for (const q of questions) {
    if (q.gold_chunk_ids.length === 0) continue;
    const top = await retriever.retrieve(q.text, { k });
    const slot = out.get(q.category) ?? { questions: 0, hits: 0, rate: 0, misses: [] };
    slot.questions++;
    if (top.some((c) => q.gold_chunk_ids.includes(c.id))) slot.hits++;
    else slot.misses.push(q.id);
    slot.rate = slot.hits / slot.questions;
    out.set(q.category, slot);
  }
  return new Map([...out.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}
