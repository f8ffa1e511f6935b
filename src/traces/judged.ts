/**
 * A judged logged case (one line of DIR/judged.jsonl, `rge traces judge`): what the judges and the
 * deterministic checks made of a logged trace, with no call to the application. A case is judged on
 * what needs no gold (grounding against the trace's own contexts, calibration, numbers traced, citations
 * resolve, claim faithfulness), and on correctness only where its question matched a golden question
 * (golden.ts), whose gold then applies; otherwise correctness and GFS are null, never 0.
 * The drift gate (`rge traces drift`) reads two windows of these.
 */
import { z } from 'zod';
import type { JudgeInput } from '../providers/types.ts';
import type { Question } from '../questions/schema.ts';
import { contextChunkOf } from '../system/contexts.ts';
import { TraceOrigin } from './case.ts';
import { GoldenMatch } from './golden.ts';
import type { NumberedCase } from './sample.ts';

const Score = z.number().min(0).max(2).nullable();

/** One judge's scores of a case; null scores when it could not be scored (with its error). */
export const TraceJudgeScores = z.strictObject({
  id: z.string(),
  family: z.string(),
  status: z.enum(['scored', 'unscored']),
  grounding: Score,
  calibration: Score,
  /** null when the case has no gold (no golden question matched) */
  correctness: Score,
  error: z.string().nullable(),
});

export const JudgedTraceCase = z.strictObject({
  trace_id: z.string().min(1),
  /** the case's id in its window: trace-00001 for the first case of cases.jsonl */
  question_id: z.string().regex(/^[a-z]+-\d+$/),
  question: z.string(),
  started_at: z.string().nullable(),
  fields: z.record(z.string(), z.string()),
  origin: TraceOrigin,
  /** the golden question whose gold applies, or null (then correctness is not judged) */
  golden: GoldenMatch.nullable(),
  /** the panel's means (0-2; GFS 0-1), null when no judge scored, correctness and GFS null without gold */
  scores: z.strictObject({
    grounding: Score,
    calibration: Score,
    correctness: Score,
    gfs_primary: z.number().min(0).max(1).nullable(),
  }),
  unscored: z.boolean(),
  contested: z.boolean(),
  /** the deterministic checks against the trace's own contexts: pass, fail or not applicable (null) */
  checks: z.strictObject({
    numbers_traced: z.boolean().nullable(),
    citations_resolve: z.boolean().nullable(),
    /** supported claims / claims; null when the answer makes no claim */
    claim_faithfulness: z.number().min(0).max(1).nullable(),
  }),
  judges: z.array(TraceJudgeScores),
});
export type JudgedTraceCase = z.infer<typeof JudgedTraceCase>;

/** The dimensions of a judged case the drift gate can compare. */
export const DRIFT_DIMENSIONS = [
  'grounding',
  'calibration',
  'correctness',
  'gfs_primary',
  'claim_faithfulness',
] as const;
export type DriftDimension = (typeof DRIFT_DIMENSIONS)[number];

/** A judged case's value of a dimension; null when it has none (unscored, no gold, no claim). */
export function dimensionValue(c: JudgedTraceCase, d: DriftDimension): number | null {
  return d === 'claim_faithfulness' ? c.checks.claim_faithfulness : c.scores[d];
}

/**
 * What the judges read of a logged case: its question and answer, its own contexts as the retrieved
 * chunks; with a golden question, that question's category, expected behaviour and gold; without one,
 * a grounded-direct question the application was expected to answer, with no gold.
 */
export function traceJudgeInput(numbered: NumberedCase, golden: Question | null): JudgeInput {
  const { case: c, questionId } = numbered;
  return {
    kind: 'judge',
    questionId,
    question: c.question,
    category: golden?.category ?? 'grounded-direct',
    expectedBehavior: golden?.expected_behavior ?? 'answer',
    goldAnswer: golden?.gold_answer ?? '',
    goldQuotes: golden?.gold_quotes ?? [],
    numericGold: golden?.numeric_gold ?? [],
    chunks: c.answer.contexts.map(contextChunkOf),
    answer: c.answer.answer,
  };
}
