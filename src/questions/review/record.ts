/**
 * The review file of a generated questions file (`<questions>.review.jsonl`): one record per line,
 * appended as a person decides (`rge questions review`), never rewritten. Three kinds of record:
 * - `order`: the order the page shows the questions in (file order, or a seeded random order), written
 *   once when the review starts, so that a resumed review keeps it and the summary can say whether the
 *   reviewed questions are a random sample;
 * - `decision`: a question accepted as generated, edited (the edited question, re-verified, is kept in
 *   the record) or rejected with a reason;
 * - `undo`: takes back the question's latest decision still standing.
 * Per question, the last decision not undone wins. Field names are snake_case as in the JSON.
 */
import { z } from 'zod';
import { sha256 } from '../../util/fs.ts';
import { Question } from '../schema.ts';

/** Why a person rejects a generated question, in the order the page offers them. */
export const REJECT_REASONS = [
  'wrong-answer',
  'not-answerable',
  'ambiguous',
  'bad-quote',
  'duplicate',
  'other',
] as const;
export const RejectReason = z.enum(REJECT_REASONS);
export type RejectReason = z.infer<typeof RejectReason>;

/** What a person decided about a question. */
export const REVIEW_DECISIONS = ['accepted', 'edited', 'rejected'] as const;
export const ReviewDecisionKind = z.enum(REVIEW_DECISIONS);
export type ReviewDecisionKind = z.infer<typeof ReviewDecisionKind>;

/** The order of a review: the file's, or a seeded shuffle of it (seedrandom on `seed`). */
export const ReviewOrder = z.strictObject({
  kind: z.literal('order'),
  order: z.enum(['file', 'random']),
  /** the shuffle's seed; null in file order */
  seed: z.string().min(1).nullable(),
  at: z.iso.datetime(),
});
export type ReviewOrder = z.infer<typeof ReviewOrder>;

export const ReviewDecision = z
  .strictObject({
    kind: z.literal('decision'),
    question_id: z.string().min(1),
    /** `questionHash` of the question as the file held it when decided: a regenerated question is not this one */
    question_hash: z.string().regex(/^[0-9a-f]{64}$/),
    decision: ReviewDecisionKind,
    /** rejected: why */
    reason: RejectReason.optional(),
    /** the person's words: required with the reason `other`, optional otherwise */
    note: z.string().optional(),
    /** edited: the question as edited and re-verified (provenance.review 'edited') */
    question: Question.optional(),
    at: z.iso.datetime(),
  })
  .superRefine((d, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (d.decision === 'rejected' && d.reason === undefined) issue('reason', 'a rejection needs a reason');
    if (d.decision !== 'rejected' && d.reason !== undefined) issue('reason', `only a rejection has a reason`);
    if (d.reason === 'other' && !d.note?.trim()) issue('note', "the reason 'other' needs a note saying why");
    if (d.decision === 'edited' && d.question === undefined)
      issue('question', 'an edit carries the edited question');
    if (d.decision !== 'edited' && d.question !== undefined)
      issue('question', 'only an edit carries a question');
    if (d.question && d.question.id !== d.question_id)
      issue('question', `the edited question's id ${d.question.id} is not ${d.question_id}`);
  });
export type ReviewDecision = z.infer<typeof ReviewDecision>;

export const ReviewUndo = z.strictObject({
  kind: z.literal('undo'),
  question_id: z.string().min(1),
  at: z.iso.datetime(),
});
export type ReviewUndo = z.infer<typeof ReviewUndo>;

export const ReviewRecord = z.discriminatedUnion('kind', [ReviewOrder, ReviewDecision, ReviewUndo]);
export type ReviewRecord = z.infer<typeof ReviewRecord>;

/** The review file of a questions file: beside it, `<file>.review.jsonl`. */
export const reviewFileOf = (questionsFile: string) => `${questionsFile}.review.jsonl`;

/** sha256 of a question's JSON as parsed (schema field order, defaults filled): what a decision was about. */
export function questionHash(q: Question): string {
  return sha256(JSON.stringify(q));
}
