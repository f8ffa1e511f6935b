/**
 * Statistics for rge's reports: agreement (Cohen's kappa), paired tests (McNemar), multiple
 * comparisons (Bonferroni, Holm), bootstrap confidence intervals (percentile and BCa; one-sample,
 * paired, clustered), the split of score variance within and between questions, the prediction-powered
 * mean (ppi_py), power and the minimal detectable difference of a clustered mean, bootstrap ranks, and
 * the two-sample permutation test of drift between two windows of logged traffic.
 * Each function follows a named reference (scikit-learn 1.2.1, statsmodels 0.13.5, scipy 1.10.1, numpy
 * 1.24, ppi_py) and is checked against vectors those libraries produced
 * (`test/stats/reference-vectors.json`, `../shared/oracle/ppi.json`). Pure TypeScript; imports nothing
 * else of rge. See docs/adr/0004-statistics.md, 0021 and 0022.
 */

export {
  fleissKappa,
  type KrippendorffDetail,
  type KrippendorffOptions,
  krippendorffAlpha,
  krippendorffAlphaDetail,
  type MeasurementLevel,
  type Ratings,
} from './agreement.ts';
export {
  type BootstrapOptions,
  type BootstrapResult,
  bootstrapCI,
  clusterBootstrapCI,
  pairedBootstrapCI,
} from './bootstrap.ts';
export { binomialHalfCdf, chiSquare1Survival, normalCdf, normalQuantile } from './distributions.ts';
export {
  type DriftMethod,
  type DriftOptions,
  type DriftResult,
  type DriftVerdict,
  driftVerdict,
  permutationDrift,
} from './drift.ts';
export { type BcaIntervalResult, bcaInterval, percentileInterval } from './intervals.ts';
export {
  type AgreementFigure,
  type AgreementMeasure,
  type AlphaIntervalOptions,
  agreementFigures,
  alphaInterval,
  type CohenKappaOptions,
  cohenKappa,
  KAPPA_CONFIDENCE,
  KAPPA_INTERVAL_METHOD,
  KAPPA_MIN_N,
  KAPPA_RESAMPLES,
  type KappaInterval,
  type KappaIntervalOptions,
  kappaInterval,
  ORDINAL_AGREEMENT_MEASURES,
  pairAgreement,
} from './kappa.ts';
export { type McNemarInput, type McNemarOptions, type McNemarResult, mcnemar } from './mcnemar.ts';
export { bonferroni, holm } from './multiple-comparisons.ts';
export {
  type Design,
  designStandardError,
  minimalDetectableDifference,
  type NestedComponents,
  nestedComponents,
  powerAt,
  questionsNeeded,
} from './power.ts';
export { type PpiMeanInput, type PpiMeanResult, ppiMean } from './ppi.ts';
export { type ProportionInterval, wilsonInterval } from './proportion.ts';
export {
  clusterBootstrapRanks,
  clusterResampleMeans,
  type GroupRank,
  type RankRow,
  type RanksResult,
  type ResampleMeans,
} from './ranking.ts';
export { type SignFlipOptions, type SignFlipResult, signFlipTest } from './signflip.ts';
export { incompleteBeta, logGamma, studentTCdf, studentTQuantile } from './student.ts';
export { type VarianceDecomposition, type VarianceRow, varianceDecomposition } from './variance.ts';
