/**
 * Logged questions as candidates for the golden set (issue 56): each logged trace's question, with the
 * application's answer as the proposed gold answer and, as gold quotes, the sentences of the contexts it
 * retrieved that print the answer's figures (else the one sharing most of its words), found in the
 * user's own documents. The candidates then go through the same verification as generated ones (quotes
 * found and resolved to chunks, the answer's figures in the quotes, no leak, ...) and the same review:
 * a logged answer is what the application said, not the truth, until a person accepts it.
 */
import { stripCitations } from '../../analysis/claims.ts';
import { extractQuantities, samePrinted } from '../../analysis/numbers.ts';
import { isRefusal } from '../../analysis/refusal.ts';
import { sentences } from '../../analysis/sentences.ts';
import { contentWords } from '../../analysis/tokens.ts';
import { type Candidate, CandidateBody, candidateId } from '../../questions/generate/candidate.ts';
import type { QuoteIndex } from '../../questions/generate/verify/quote-index.ts';
import type { GeneratorRef } from '../../questions/schema.ts';
import type { TraceCase } from '../../traces/case.ts';

/** A logged trace that gives no candidate, and why. */
export interface TraceLeftOut {
  trace_id: string;
  message: string;
}

/** At most this many quotes a candidate: the sentences that print the answer's figures. */
const MAX_QUOTES = 3;
/** A sentence sharing at least this share of the answer's content words supports a worded answer. */
const MIN_OVERLAP = 0.5;

function overlap(answer: readonly string[], sentence: string): number {
  if (answer.length === 0) return 0;
  const held = new Set(contentWords(sentence));
  return answer.filter((w) => held.has(w)).length / answer.length;
}

/** The context sentences that support the answer: those printing its figures, else the closest in words. */
export function supportingSentences(answer: string, contexts: readonly { text: string }[]): string[] {
  const all = contexts.flatMap((c) => sentences(c.text));
  const figures = extractQuantities(answer);
  if (figures.length > 0) {
    const chosen: string[] = [];
    for (const f of figures) {
      if (chosen.some((s) => extractQuantities(s).some((q) => samePrinted(f, q)))) continue;
      const hit = all.find((s) => extractQuantities(s).some((q) => samePrinted(f, q)));
      if (hit && chosen.length < MAX_QUOTES) chosen.push(hit);
    }
    return chosen;
  }
  const words = [...new Set(contentWords(answer))];
  const best = all
    .map((s) => ({ s, o: overlap(words, s) }))
    .filter((x) => x.o >= MIN_OVERLAP)
    .sort((a, b) => b.o - a.o)[0];
  return best ? [best.s] : [];
}

/** The candidate a logged trace gives, or why it gives none. */
function candidateOf(c: TraceCase, quotes: QuoteIndex, ref: GeneratorRef): Candidate | TraceLeftOut {
  const leftOut = (message: string) => ({ trace_id: c.trace_id, message });
  const answer = stripCitations(c.answer.answer).trim();
  if (answer === '') return leftOut('the logged answer is empty');
  if (isRefusal(answer))
    return leftOut(
      'the application declined: a declined question becomes an out-of-domain candidate only with the facts it asks about, which a trace does not say',
    );
  const found = supportingSentences(answer, c.answer.contexts);
  if (found.length === 0)
    return leftOut(
      'no sentence of the retrieved contexts supports the logged answer (its figures, or half of its words)',
    );
  const located = found.map((text) => ({ text, document: quotes.documentOf(text) }));
  const missing = located.find((q) => q.document === null);
  if (missing)
    return leftOut(
      `the retrieved passage "${missing.text.slice(0, 60)}" is not in the documents (another version of them?)`,
    );
  const body = CandidateBody.parse({
    category: located.length > 1 ? 'grounded-multihop' : 'grounded-direct',
    text: c.question,
    gold_answer: answer,
    gold_quotes: located.map((q) => ({ document: q.document as string, text: q.text })),
    expected_behavior: 'answer',
  });
  const sourceIds = c.answer.contexts.map((x) => x.id);
  return {
    id: candidateId(body, sourceIds),
    body,
    generator: ref,
    document: located[0]?.document as string,
    source_chunk_ids: sourceIds,
  };
}

/** The candidates of logged traces, in file order, and the traces that give none with the reason. */
export function traceCandidates(
  cases: readonly TraceCase[],
  quotes: QuoteIndex,
  ref: GeneratorRef,
): { candidates: Candidate[]; leftOut: TraceLeftOut[] } {
  const candidates: Candidate[] = [];
  const leftOut: TraceLeftOut[] = [];
  for (const c of cases) {
    const r = candidateOf(c, quotes, ref);
    if ('message' in r) leftOut.push(r);
    else candidates.push(r);
  }
  return { candidates, leftOut };
}
