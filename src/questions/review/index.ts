/**
 * Review of generated questions by a person (issue 55), before they gate anything: the review file
 * (record.ts, ledger.ts), the review order, the documents the gold quotes are shown in, the injected
 * re-verification of an edit, the session and its local page, the approved golden set, and the summary.
 */
export { type ApprovedSet, approvedQuestions } from './approved.ts';
export {
  type DocumentReader,
  documentReader,
  findInDocument,
  findQuote,
  REVIEW_TEXT_EXTENSIONS,
  type ReviewDocument,
  type ReviewPage,
  readReviewDocument,
} from './documents.ts';
export {
  appendReviewRecord,
  currentDecisions,
  type LedgerDecision,
  type ReviewLedger,
  readReviewLedger,
  readReviewRecords,
  replayReview,
} from './ledger.ts';
export { freshSeed, reviewOrder } from './order.ts';
export {
  questionHash,
  REJECT_REASONS,
  REVIEW_DECISIONS,
  RejectReason,
  ReviewDecision,
  ReviewOrder,
  ReviewRecord,
  ReviewUndo,
  reviewFileOf,
} from './record.ts';
export { quotesInDocuments, type Reverify, type ReverifyResult } from './reverify.ts';
export { startQuestionReviewServer } from './server.ts';
export {
  appliedEdits,
  type QuestionReviewOptions,
  type QuestionReviewSession,
  questionReviewSession,
  ReviewRefusal,
  type ReviewState,
  ReviewSubmission,
} from './session.ts';
export { formatReviewSummary, type ReviewSample, type ReviewSummary, reviewSummary } from './summary.ts';
export { type QuestionView, type QuoteView, questionView, quoteView } from './view.ts';
