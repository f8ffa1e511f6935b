/**
 * An edit on the review page verified again as a generated candidate is (verify/verify.ts checks 1-6
 * and 9): the edited question read back into a candidate, its quotes found and resolved to the chunks
 * of the index the set was generated on, its answer supported, no leak, multihop over two chunks, the
 * premise contradicted or the absence confirmed, its language. Passing, the question is recorded with
 * its quotes as the chunks print them, its gold chunk ids and locations brought up to date, and the
 * checks it passed; failing, the person sees the reason and the question stays pending.
 */
import type { ReverifyResult } from '../review/reverify.ts';
import type { Question, QuestionInput } from '../schema.ts';
import { type Candidate, CandidateBody, candidateId } from './candidate.ts';
import { type DocumentOf, toQuestion } from './to-question.ts';
import type { TopK } from './verify/checks.ts';
import type { QuoteIndex } from './verify/quote-index.ts';
import { type LanguageCheck, verifyOne } from './verify/verify.ts';

export interface ReverifyContext {
  quotes: QuoteIndex;
  retrievers: readonly TopK[];
  language?: LanguageCheck;
  documentOf: DocumentOf;
  indexChecksum: string | null;
}

/** The candidate an edited generated question stands for (its documents from its quote locations). */
export function candidateOfQuestion(q: Question): Candidate | { message: string } {
  const provenance = q.provenance;
  if (!provenance) return { message: `${q.id} is not a generated question (no provenance)` };
  const locations = q.gold_quote_locations ?? [];
  if (q.category !== 'out-of-domain' && locations.length !== q.gold_quotes.length)
    return { message: `${q.id}: each gold quote needs its location (document)` };
  const parsed = CandidateBody.safeParse({
    category: q.category,
    text: q.text,
    gold_answer: q.gold_answer,
    gold_quotes: q.gold_quotes.map((text, i) => ({ document: locations[i]?.document ?? '', text })),
    expected_behavior: q.expected_behavior,
    numeric_gold: q.numeric_gold,
    ...(provenance.false_premise ? { false_premise: provenance.false_premise } : {}),
    ...(q.distractor ? { distractor_kind: q.distractor.kind } : {}),
    ...(q.absent_facts ? { absent_terms: q.absent_facts } : {}),
  });
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return { message: `${first?.path.map(String).join('.') || 'question'}: ${first?.message ?? 'invalid'}` };
  }
  const document = locations[0]?.document ?? q.source?.ref ?? q.id;
  return {
    id: candidateId(parsed.data, []),
    body: parsed.data,
    generator: provenance.generator,
    document,
    source_chunk_ids: [],
  };
}

/** Re-verifies an edited generated question against the index it was generated on. */
export function verificationReverify(ctx: ReverifyContext): (q: Question) => Promise<ReverifyResult> {
  return async (q) => {
    const candidate = candidateOfQuestion(q);
    if ('message' in candidate) return { ok: false, reason: 'schema', message: candidate.message };
    const outcome = await verifyOne(candidate, ctx);
    if ('failed' in outcome)
      return { ok: false, reason: outcome.failed.reason, message: outcome.failed.message };
    const rebuilt: QuestionInput = toQuestion(outcome.ok, q.id, ctx.documentOf, ctx.indexChecksum);
    const provenance = q.provenance ?? rebuilt.provenance;
    return {
      ok: true,
      question: {
        ...q,
        gold_quotes: rebuilt.gold_quotes,
        gold_chunk_ids: rebuilt.gold_chunk_ids,
        ...(rebuilt.gold_quote_locations ? { gold_quote_locations: rebuilt.gold_quote_locations } : {}),
        ...(provenance
          ? { provenance: { ...provenance, checks: outcome.ok.checks, flags: outcome.ok.flags } }
          : {}),
      },
    };
  };
}
