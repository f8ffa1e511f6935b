/**
 * The records of human validation of the judges (methodology 5.3-5.5): the 50-response validation
 * sample, a person's label of one of its responses, and the hand-review of a contested response. Each
 * crosses a file boundary, so each is a zod schema and its type is inferred from it.
 */
import { z } from 'zod';
import { JudgeOutcome } from '../judging/verdict.ts';
import { ExpectedBehavior, QUESTION_CATEGORIES, QuestionCategory } from '../questions/schema.ts';

/** A person's score on one rubric dimension: 0, 1 or 2, as the judges give it. */
export const HumanScore = z.literal([0, 1, 2], { error: 'must be 0, 1 or 2' });
export type HumanScore = z.infer<typeof HumanScore>;

/** Who labels or reviews: a name as it is recorded in the files (one line, no surrounding spaces). */
export const PersonName = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^\S(?:[^\n\r]*\S)?$/, 'must be one line without surrounding spaces');

/** A retrieved chunk as the subject and the judges saw it. */
export const CaseChunk = z.strictObject({
  id: z.string().min(1),
  company: z.string(),
  fy: z.string().nullable(),
  heading: z.string().nullable(),
  pages: z.tuple([z.number().int(), z.number().int()]),
  text: z.string(),
  /** a system's own passage: the document it names (no company; pages [0, 0] when it names none) */
  source: z.string().optional(),
});
export type CaseChunk = z.infer<typeof CaseChunk>;

/** One response of the validation sample: the case a judge saw, the answer, and what the judges said. */
export const ValidationItem = z.strictObject({
  /** `${subject_id}/${question_id}/run ${run_index}` */
  item_id: z.string().min(1),
  /** the answer's identity in the cell store: what labels and reviews join on */
  answer_key: z.string().min(1),
  subject_id: z.string().min(1),
  model: z.string(),
  question_id: z.string().min(1),
  run_index: z.number().int().min(0),
  category: QuestionCategory,
  expected_behavior: ExpectedBehavior,
  question: z.string(),
  gold_answer: z.string(),
  gold_quotes: z.array(z.string()),
  chunks: z.array(CaseChunk),
  answer: z.string(),
  /** the judges' outcomes: never sent to the labelling page before the item is labelled */
  verdicts: z.array(JudgeOutcome),
});
export type ValidationItem = z.infer<typeof ValidationItem>;

const categoryRecord = <T extends z.ZodType>(value: T) =>
  z.object(Object.fromEntries(QUESTION_CATEGORIES.map((c) => [c, value])) as Record<QuestionCategory, T>);

/** The validation sample: what was drawn, from which run, with which seed and allocation. */
export const ValidationSample = z
  .strictObject({
    sample_id: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only'),
    created_at: z.iso.datetime(),
    /** the run config the sample was drawn from, as given */
    config: z.string().min(1),
    run_id: z.string().min(1),
    seed: z.string(),
    /** responses drawn per stratum (question category) and subject */
    allocation: categoryRecord(z.record(z.string(), z.number().int().min(0))),
    items: z.array(ValidationItem).min(1),
  })
  .superRefine((sample, ctx) => {
    const seen = new Set<string>();
    for (const [i, item] of sample.items.entries()) {
      if (seen.has(item.item_id))
        ctx.addIssue({ code: 'custom', path: ['items', i, 'item_id'], message: `duplicate ${item.item_id}` });
      seen.add(item.item_id);
    }
  });
export type ValidationSample = z.infer<typeof ValidationSample>;

/** Which response of the sample a label or review is of: the item and the answer it joins on. */
const itemAnswer = { item_id: z.string().min(1), answer_key: z.string().min(1) };

/** A person's score on each rubric dimension. */
const rubricScores = { correctness: HumanScore, grounding: HumanScore, calibration: HumanScore };

/** One line of `labels-<sample_id>.jsonl`: a person's scores for one response of the sample. */
export const HumanLabel = z.strictObject({
  kind: z.literal('label'),
  sample_id: z.string().min(1),
  ...itemAnswer,
  labeller: PersonName,
  ...rubricScores,
  rationale: z.string().trim().min(1, 'a rationale is required'),
  labelled_at: z.iso.datetime(),
});
export type HumanLabel = z.infer<typeof HumanLabel>;

/** What the labelling page posts for one response; the server adds the rest of the `HumanLabel`. */
export const LabelSubmission = HumanLabel.pick({
  item_id: true,
  correctness: true,
  grounding: true,
  calibration: true,
  rationale: true,
}).strict();
export type LabelSubmission = z.infer<typeof LabelSubmission>;

/** A reviewer's outcome for a contested response, one score per dimension. */
export const ReviewOutcome = z.strictObject(rubricScores);
export type ReviewOutcome = z.infer<typeof ReviewOutcome>;

/** One line of `reviews.jsonl`: the hand-review of a contested response (methodology 5.3). */
export const ContestedReview = z.strictObject({
  kind: z.literal('review'),
  ...itemAnswer,
  reviewer: PersonName,
  outcome: ReviewOutcome,
  note: z.string().trim().min(1, 'a note is required'),
  /** sha256 of the raw judge outputs reviewed (see `judgeOutcomesHash`) */
  judge_outcomes_hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 (64 hex digits)'),
  reviewed_at: z.iso.datetime(),
});
export type ContestedReview = z.infer<typeof ContestedReview>;

/** What the review page posts for one response; the server adds the rest of the `ContestedReview`. */
export const ReviewSubmission = z.strictObject({
  item_id: z.string().min(1),
  outcome: ReviewOutcome,
  note: ContestedReview.shape.note,
});
export type ReviewSubmission = z.infer<typeof ReviewSubmission>;
