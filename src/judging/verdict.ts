/**
 * The judge verdict: the schema a live judge's JSON reply must follow and the heuristic judges fill.
 * Evidence comes before the score in every dimension (quotes first, then rationale, then the score).
 */
import { z } from 'zod';
import { StopInfo, Usage } from '../providers/types.ts';

export const Score = z.union([z.literal(0), z.literal(1), z.literal(2)]);
export type Score = z.infer<typeof Score>;

export const DimensionVerdict = z.strictObject({
  /** verbatim quotes from the answer or the retrieved chunks that the score rests on */
  evidence: z.array(z.string()),
  rationale: z.string(),
  score: Score,
});
export type DimensionVerdict = z.infer<typeof DimensionVerdict>;

export const JudgeVerdict = z.strictObject({
  correctness: DimensionVerdict,
  grounding: DimensionVerdict,
  calibration: DimensionVerdict,
  /** claims of the answer, verbatim, that no retrieved chunk supports */
  unsupported_claims: z.array(z.string()),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;

export const DIMENSIONS = ['correctness', 'grounding', 'calibration'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/**
 * One judge's outcome for one case. A reply that cannot be parsed after one retry is `unscored` with
 * its raw text: a failure is data, never a zero.
 */
export const JudgeOutcome = z.strictObject({
  judgeId: z.string(),
  family: z.string(),
  status: z.enum(['scored', 'unscored']),
  verdict: JudgeVerdict.nullable(),
  raw: z.string(),
  attempts: z.number().int().min(1),
  error: z.string().nullable(),
  latencyMs: z.number().min(0),
  costUsd: z.number().min(0),
  /** tokens over all attempts (absent in results written before rge recorded them) */
  usage: Usage.optional(),
  /**
   * why the last reply ended; a reply cut at the token limit, refused or stopped by a safety filter is
   * unscored with that reason (absent in results written before rge recorded it, and for complete ones)
   */
  stop: StopInfo.optional(),
});
export type JudgeOutcome = z.infer<typeof JudgeOutcome>;
