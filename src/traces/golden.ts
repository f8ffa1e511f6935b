/**
 * The golden set's questions a logged question is: a logged trace is judged on correctness only where its
 * question matches a question of the config's golden set, whose gold then applies (issue 56). The rule
 * (`GOLDEN_MATCH_RULE`) is exact equality after whitespace and case normalisation, else a near-duplicate
 * by the question generator's lexical rule (src/questions/generate/verify/duplicates.ts): the Jaccard
 * similarity of the two questions' content-word sets (stop-words dropped, numbers normalised) at least
 * LEXICAL_DUPLICATE (0.8). Questions that differ in a figure, a year or a company differ in a content word
 * and stay apart. The embedding rule of the generator is not used: it also needs the same evidence, which
 * a logged trace does not have.
 */
import { z } from 'zod';
import { jaccard, LEXICAL_DUPLICATE, questionWords } from '../questions/generate/verify/duplicates.ts';
import { normaliseWhitespace } from '../questions/load.ts';
import type { Question } from '../questions/schema.ts';

/** The rule, as the summary and the report state it. */
export const GOLDEN_MATCH_RULE =
  `exact after whitespace and case normalisation, else a near-duplicate by the question generator's lexical rule: ` +
  `Jaccard similarity of content words >= ${LEXICAL_DUPLICATE} (src/questions/generate/verify/duplicates.ts)`;

/** The golden question a logged question matched, and how. */
export const GoldenMatch = z.strictObject({
  question_id: z.string().min(1),
  how: z.enum(['exact', 'lexical']),
  /** 1 for an exact match; the Jaccard similarity of content words for a lexical one */
  similarity: z.number().min(0).max(1),
});
export type GoldenMatch = z.infer<typeof GoldenMatch>;

const exactForm = (text: string) => normaliseWhitespace(text).toLowerCase();

/** A golden set, read once, that logged questions are matched against (`match`). */
export class GoldenSet {
  private readonly exact = new Map<string, Question>();
  private readonly words: { question: Question; words: Set<string> }[];

  constructor(readonly questions: readonly Question[]) {
    for (const q of questions) if (!this.exact.has(exactForm(q.text))) this.exact.set(exactForm(q.text), q);
    this.words = questions.map((question) => ({ question, words: questionWords(question.text) }));
  }

  /**
   * The golden question `text` matches (GOLDEN_MATCH_RULE): the exact one, else the most similar
   * near-duplicate (the first in file order on a tie); null when none.
   */
  match(text: string): { question: Question; match: GoldenMatch } | null {
    const exact = this.exact.get(exactForm(text));
    if (exact) return { question: exact, match: { question_id: exact.id, how: 'exact', similarity: 1 } };
    const words = questionWords(text);
    let best: { question: Question; similarity: number } | null = null;
    for (const g of this.words) {
      const similarity = jaccard(words, g.words);
      if (similarity >= LEXICAL_DUPLICATE && (best === null || similarity > best.similarity))
        best = { question: g.question, similarity };
    }
    return best === null
      ? null
      : {
          question: best.question,
          match: { question_id: best.question.id, how: 'lexical', similarity: best.similarity },
        };
  }
}
