/** Scoring: the GFS and the per-case scores of a judge panel. */
export {
  CaseScores,
  CONTEST_THRESHOLD,
  caseScores,
  type DimensionScores,
  GfsWeights,
  gfsEqual,
  gfsPrimary,
  MAX_DIMENSION_SCORE,
  PRIMARY_WEIGHTS,
  withoutCorrectness,
} from './gfs.ts';
