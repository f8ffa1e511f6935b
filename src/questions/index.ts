/**
 * Questions: the schema every question set shares, loading, the validator, and importers for public
 * question sets and a user's own golden set. The public surface of the stage; the modules behind it are private.
 */
export {
  evidencePages,
  type FinanceBenchFigure,
  FinanceBenchQuestion,
  financeBenchDocumentSlug,
  isNotApplicableAnswer,
  loadFinanceBench,
  parseFinanceBenchFigure,
} from './financebench.ts';
export {
  formatGoldenSummary,
  GOLDEN_FORMATS,
  type GoldenFormat,
  type GoldenImport,
  type GoldenSummary,
  goldenFileKind,
  HEADER_ONLY,
  importGolden,
} from './golden.ts';
export { importQuestions } from './import.ts';
export {
  findGoldQuote,
  formatImportSummary,
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportResult,
  type ImportSummary,
} from './import-common.ts';
export { importErc } from './import-erc.ts';
export { importFinanceBench } from './import-financebench.ts';
export {
  loadIndexChunks,
  loadQuestions,
  NO_QUESTIONS,
  normaliseWhitespace,
  parseQuestionLines,
  type QuestionLine,
  readQuestionLines,
} from './load.ts';
export {
  Derivation,
  DerivationOperand,
  Difficulty,
  Distractor,
  DistractorKind,
  derivationProblem,
  ExpectedBehavior,
  GoldQuoteLocation,
  NumericGold,
  NumericUnit,
  QUESTION_CATEGORIES,
  QUESTION_VERSION,
  Question,
  QuestionCategory,
  type QuestionInput,
  QuestionSource,
} from './schema.ts';
export {
  formatCounts,
  formatTraceability,
  type Traceability,
  type ValidateOptions,
  type ValidationReport,
  validateQuestions,
} from './validate.ts';
