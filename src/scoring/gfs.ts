/**
 * The Grounded Faithfulness Score (GFS) and the per-case scores of a two-judge panel. Pure functions.
 *
 * Dimension scores are on the rubric's 0-2 scale. GFS is on 0-1:
 *   primary = (0.40 grounding + 0.35 correctness + 0.25 calibration) / 2   (the methodology's weights)
 *   equal   = (correctness + grounding + calibration) / 6                  (the robustness check)
 *
 * caseScores: a dimension's score is the mean of the judges that scored; when only some scored the
 * case is `partial` and uses those; when none scored every score is null and the case is `unscored`,
 * never 0 (a failure is data, not a zero). Two scoring judges whose scores differ by more than 1 on a
 * dimension make the case `contested` on that dimension.
 */
import { z } from 'zod';
import { DIMENSIONS, type Dimension, type JudgeOutcome } from '../judging/verdict.ts';

export interface DimensionScores {
  correctness: number;
  grounding: number;
  calibration: number;
}

export type GfsWeights = DimensionScores;

export const GfsWeights = z
  .strictObject({
    correctness: z.number().min(0),
    grounding: z.number().min(0),
    calibration: z.number().min(0),
  })
  .refine((w) => Math.abs(w.correctness + w.grounding + w.calibration - 1) <= 1e-9, {
    message: 'GFS weights must sum to 1',
  });

/** The methodology's weights: grounding 0.40, correctness 0.35, calibration 0.25. */
export const PRIMARY_WEIGHTS: Readonly<GfsWeights> = Object.freeze({
  correctness: 0.35,
  grounding: 0.4,
  calibration: 0.25,
});

/** The top of the rubric's scale. */
export const MAX_DIMENSION_SCORE = 2;

/** The disagreement (in rubric points) beyond which a case is contested. */
export const CONTEST_THRESHOLD = 1;

function checkScores(scores: DimensionScores): void {
  for (const d of DIMENSIONS) {
    const v = scores[d];
    if (!Number.isFinite(v) || v < 0 || v > MAX_DIMENSION_SCORE)
      throw new RangeError(`${d} score must be between 0 and ${MAX_DIMENSION_SCORE}, got ${v}`);
  }
}

/** GFS with weights (default the methodology's, which must sum to 1), on 0-1. */
export function gfsPrimary(scores: DimensionScores, weights: GfsWeights = PRIMARY_WEIGHTS): number {
  checkScores(scores);
  const w = GfsWeights.parse(weights);
  return (
    (w.grounding * scores.grounding +
      w.correctness * scores.correctness +
      w.calibration * scores.calibration) /
    MAX_DIMENSION_SCORE
  );
}

/** GFS with equal weights: (c + g + k) / 6, on 0-1. */
export function gfsEqual(scores: DimensionScores): number {
  checkScores(scores);
  return (scores.correctness + scores.grounding + scores.calibration) / (3 * MAX_DIMENSION_SCORE);
}

const NullableScore = z.number().min(0).max(MAX_DIMENSION_SCORE).nullable();
const NullableGfs = z.number().min(0).max(1).nullable();

export const CaseScores = z.strictObject({
  /** mean of the scoring judges; null when no judge scored */
  correctness: NullableScore,
  grounding: NullableScore,
  calibration: NullableScore,
  gfsPrimary: NullableGfs,
  gfsEqual: NullableGfs,
  /** how many judges scored the case */
  scoredJudges: z.number().int().min(0),
  /** some but not all judges scored: the scores rest on fewer judges */
  partial: z.boolean(),
  /** no judge scored: scores are null, not 0 */
  unscored: z.boolean(),
  /** two scoring judges differ by more than 1 on at least one dimension */
  contested: z.boolean(),
  contestedDimensions: z.array(z.enum(DIMENSIONS)),
});
export type CaseScores = z.infer<typeof CaseScores>;

/** The per-case scores of a judge panel (two judges; any number is handled the same way). */
export function caseScores(
  outcomes: readonly JudgeOutcome[],
  weights: GfsWeights = PRIMARY_WEIGHTS,
): CaseScores {
  const verdicts = outcomes.flatMap((o) => (o.status === 'scored' && o.verdict !== null ? [o.verdict] : []));
  if (verdicts.length === 0) {
    return {
      correctness: null,
      grounding: null,
      calibration: null,
      gfsPrimary: null,
      gfsEqual: null,
      scoredJudges: 0,
      partial: false,
      unscored: true,
      contested: false,
      contestedDimensions: [],
    };
  }
  const mean = (d: Dimension) => verdicts.reduce((sum, v) => sum + v[d].score, 0) / verdicts.length;
  const scores: DimensionScores = {
    correctness: mean('correctness'),
    grounding: mean('grounding'),
    calibration: mean('calibration'),
  };
  const contestedDimensions = DIMENSIONS.filter((d) => {
    const values = verdicts.map((v) => v[d].score);
    return values.length >= 2 && Math.max(...values) - Math.min(...values) > CONTEST_THRESHOLD;
  });
  return {
    ...scores,
    gfsPrimary: gfsPrimary(scores, weights),
    gfsEqual: gfsEqual(scores),
    scoredJudges: verdicts.length,
    partial: verdicts.length < outcomes.length,
    unscored: false,
    contested: contestedDimensions.length > 0,
    contestedDimensions,
  };
}

/**
 * A case's scores with no correctness: a question without gold (a logged trace no golden question
 * matched) is judged on grounding and calibration only. Correctness, and the GFS that weighs it, are
 * null, never 0 (a failure to have gold is not a wrong answer); a contest on correctness is dropped.
 */
export function withoutCorrectness(scores: CaseScores): CaseScores {
  const contestedDimensions = scores.contestedDimensions.filter((d) => d !== 'correctness');
  return {
    ...scores,
    correctness: null,
    gfsPrimary: null,
    gfsEqual: null,
    contested: contestedDimensions.length > 0,
    contestedDimensions,
  };
}
