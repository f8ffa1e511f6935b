/**
 * rge's retrieval for a run: the question's top-k chunks of rge's index, once per question, shared by
 * every subject, run index and slice (a user's system retrieves for itself: src/system).
 */
import type { ContextChunk } from '../../providers/types.ts';
import type { Question } from '../../questions/schema.ts';
import type { Index } from '../../retrieval/index.ts';

/** The retrieved chunks as subjects and judges see them. */
export async function retrieveContext(index: Index, question: Question, k: number): Promise<ContextChunk[]> {
  const hits = await index.retrieve(question.text, { k });
  return hits.map((h) => ({
    id: h.id,
    company: h.company,
    fy: h.fy,
    heading: h.heading,
    pages: h.pages,
    text: h.text,
  }));
}

/** Top-k retrieval for a run: once per question, shared by every subject, run index and slice. */
export class RunRetrieval {
  private readonly retrieved = new Map<string, Promise<ContextChunk[]>>();

  constructor(
    private readonly index: Index | null,
    private readonly k: number,
  ) {}

  of(question: Question): Promise<ContextChunk[]> {
    if (!this.index) throw new Error('the index is not built (dry run)');
    let pending = this.retrieved.get(question.id);
    if (!pending) {
      pending = retrieveContext(this.index, question, this.k);
      this.retrieved.set(question.id, pending);
    }
    return pending;
  }
}
