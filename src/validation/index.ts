/**
 * Validation of the judges against people (methodology 5.3-5.5). Human validation: the validation
 * sample drawn from a run's completed responses, the labelling and review sessions and their server, and
 * the readers the report joins to a run's case rows by `answer_key`. Public labelled sets: one reader
 * per format into judge cases, the agreement of a judge's verdicts with the people's labels (kappa with
 * a bootstrap interval), the runner that judges a set's items, and the tables `rge judge agree` prints.
 * The audit (`audit.ts`) and the report's section (`summary.ts`) are imported by path.
 */

export {
  KAPPA_CONFIDENCE,
  KAPPA_INTERVAL_METHOD,
  KAPPA_RESAMPLES,
  type KappaInterval,
  kappaInterval,
} from '../stats/index.ts';
export {
  AGREEMENT_SEED_RULE,
  type AgreementOptions,
  type AgreementReport,
  agreement,
  agreementBySubset,
  agreementSeed,
  POOLED,
  subsetsOf,
} from './agreement.ts';
export {
  formatAgreement,
  formatAgreementTable,
  formatKappa,
  subsetLabel,
} from './agreement-table.ts';
export { attributionBenchItems } from './attributionbench.ts';
export { type CaseView, type ContestedCaseView, caseView, reviewView } from './case-view.ts';
export {
  compareJudges,
  compareSeed,
  formatComparison,
  type JudgeComparison,
  type MeasureComparison,
} from './compare.ts';
export {
  AGREEMENT_FORMATS,
  type AgreementFormat,
  type AgreementItem,
  deterministicSample,
  FORMAT_DIMENSION,
  FORMAT_LABELS,
  FORMAT_SUBSET,
  UNNAMED_SUBSET,
  verdictLabel,
} from './datasets.ts';
export {
  financeBenchItems,
  financeBenchMode,
} from './financebench.ts';
export {
  type JudgeItemsOptions,
  judgeItems,
} from './judge-items.ts';
export {
  appendRecord,
  judgeOutcomesHash,
  labelsFile,
  latestSampleFile,
  loadSample,
  readLabels,
  readLabelsFile,
  readReviews,
  reviewsFile,
  setAsideTornTail,
  tornFile,
} from './labels.ts';
export {
  type CompletedResponse,
  completedResponses,
  type ResponseCell,
  type ResponseRow,
  type StoredCell,
  validationItem,
} from './responses.ts';
export { type Rubric, type RubricLevel, rubricFromPrompt } from './rubric.ts';
export {
  saladDocsFileName,
  saladItems,
  saladSetting,
  saladSupported,
} from './salad.ts';
export {
  drawValidationSample,
  largestRemainder,
  sampleId,
  stratumQuotas,
  VALIDATION_SIZE,
  VALIDATION_STRATA,
} from './sample.ts';
export {
  CaseChunk,
  ContestedReview,
  HumanLabel,
  HumanScore,
  LabelSubmission,
  PersonName,
  ReviewOutcome,
  ReviewSubmission,
  ValidationItem,
  ValidationSample,
} from './schema.ts';
export { startValidationServer, type ValidationServer } from './server.ts';
export {
  type ContestedItem,
  labelSession,
  reviewSession,
  SubmissionError,
  type ValidationSession,
} from './sessions.ts';
