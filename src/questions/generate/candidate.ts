/**
 * A generated candidate question: what a generator (the offline extractive one, or a model of the
 * registry) proposes, before verification (verify/) decides whether it is kept. Field names are
 * snake_case as a model writes them in its JSON reply; the types are inferred from the schemas.
 *
 * A candidate names its evidence as quotes of documents (the file as the documents folder names it,
 * and the exact text), never as chunk ids: verification finds each quote in its document, locates it to
 * a page or section and a character span, and resolves it to the chunks of the index.
 */
import { z } from 'zod';
import { identityHash } from '../../util/canonical.ts';
import { DistractorKind, ExpectedBehavior, GeneratorRef, NumericGold, QuestionCategory } from '../schema.ts';

export { GeneratorRef };

/** A gold quote as a generator gives it: the document it is printed in and its text. */
export const CandidateQuote = z.strictObject({
  /** the document's path inside the documents folder, as the index's chunks name it (`Chunk.source`) */
  document: z.string().min(1),
  /** the passage, verbatim (whitespace, hyphenation, ligatures and quote marks aside) */
  text: z.string().min(1),
});
export type CandidateQuote = z.infer<typeof CandidateQuote>;

/**
 * One candidate as a generator writes it. `false_premise` is an adversarial question's planted claim
 * (what the question assumes and the quotes contradict); `absent_terms` are the facts an out-of-domain
 * question asks about, which no retrieved chunk may hold.
 */
export const CandidateBody = z.strictObject({
  category: QuestionCategory,
  text: z.string().min(1),
  gold_answer: z.string().min(1),
  gold_quotes: z.array(CandidateQuote),
  expected_behavior: ExpectedBehavior,
  /** figures the answer states; a multihop figure computed from quoted ones records its derivation */
  numeric_gold: z.array(NumericGold).default([]),
  /** adversarial: the false claim the question makes, contradicted by a gold quote */
  false_premise: z.string().min(1).optional(),
  /** adversarial: which trap it plants */
  distractor_kind: DistractorKind.optional(),
  /** out-of-domain: the facts asked about that the documents do not hold */
  absent_terms: z.array(z.string().min(1)).optional(),
});
export type CandidateBody = z.infer<typeof CandidateBody>;
export type CandidateBodyInput = z.input<typeof CandidateBody>;

/** A candidate with its identity and where it came from. */
export const Candidate = z.strictObject({
  /** content-addressed: `cand-` and 12 hex digits of the hash of the body and its source chunks */
  id: z.string().regex(/^cand-[0-9a-f]{12}$/),
  body: CandidateBody,
  generator: GeneratorRef,
  /** the document the generator was shown (`Chunk.source`); coverage and language are counted by it */
  document: z.string().min(1),
  /** the chunks the generator was shown (the cell's identity); empty for out-of-domain templates */
  source_chunk_ids: z.array(z.string().min(1)),
});
export type Candidate = z.infer<typeof Candidate>;

/** The checks of verification, in order; a rejection names the first one a candidate fails. */
export const VERIFY_CHECKS = [
  'schema',
  'quote-found',
  'quote-in-chunks',
  'answer-supported',
  'no-leak',
  'multihop-chunks',
  'premise-or-absence',
  'language',
  'near-duplicate',
  'coverage',
  'judge',
] as const;
export type VerifyCheck = (typeof VERIFY_CHECKS)[number];

/**
 * Why a candidate was rejected: the check, a reason code (stable, counted in the generation report) and
 * a message a person can act on (naming the candidate's quote or the duplicate it repeats).
 */
export const REJECTION_REASONS = {
  malformed: 'schema',
  'quote-not-found': 'quote-found',
  'quote-not-in-index': 'quote-in-chunks',
  'quote-across-chunks': 'quote-in-chunks',
  'figure-not-in-quotes': 'answer-supported',
  'derivation-unsupported': 'answer-supported',
  'no-gold-quote': 'answer-supported',
  'answer-leaked': 'no-leak',
  'multihop-one-chunk': 'multihop-chunks',
  'premise-not-contradicted': 'premise-or-absence',
  'out-of-domain-answerable': 'premise-or-absence',
  'near-duplicate': 'near-duplicate',
  'over-share': 'coverage',
  surplus: 'coverage',
  'wrong-language': 'language',
  'judge-rejected': 'judge',
} as const satisfies Record<string, VerifyCheck>;
export type RejectionReason = keyof typeof REJECTION_REASONS;

export const Rejection = z.strictObject({
  candidate: z.string().min(1),
  reason: z.enum(Object.keys(REJECTION_REASONS) as [RejectionReason, ...RejectionReason[]]),
  message: z.string().min(1),
});
export type Rejection = z.infer<typeof Rejection>;

/** A candidate's id: `cand-` and the first 12 hex digits of the sha256 of its body and source chunks. */
export function candidateId(body: CandidateBody, sourceChunkIds: readonly string[]): string {
  return `cand-${identityHash({ body, source_chunk_ids: sourceChunkIds }).slice(0, 12)}`;
}
