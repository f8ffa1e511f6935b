/**
 * Human validation of the judges (methodology 5.3-5.5): the validation sample, the labelling and review
 * sessions and their server, and the readers the report joins to a run's case rows by `answer_key`.
 */
export { type CaseView, type ContestedCaseView, caseView, reviewView } from './case-view.ts';
export {
  answerParts,
  bestLine,
  type ChunkSegment,
  citedChunkIds,
  goldSpans,
  markChunk,
  markSupport,
  reflow,
  sentenceSpans,
} from './evidence.ts';
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
