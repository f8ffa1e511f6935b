/**
 * Deterministic checks per response (numbers traced, citations resolve, must_include / must_not_include,
 * refusal accuracy, latency) and claim faithfulness. Pure functions; results follow the zod schemas in
 * schema.ts because they are stored in result rows.
 */
import type { ContextChunk } from '../providers/types.ts';
import type { Question } from '../questions/schema.ts';
import { claimFaithfulness } from './claims.ts';
import {
  citationsResolve,
  latency,
  mustInclude,
  mustNotInclude,
  numbersTraced,
  refusalAccuracy,
} from './deterministic.ts';
import type { AnswerChecks, CheckResult, CheckResults } from './schema.ts';

export { claimFaithfulness, MIN_WORD_COVERAGE } from './claims.ts';
export {
  answerContains,
  citationsResolve,
  figureMatchesNeedle,
  latency,
  MUST_INCLUDE_TOLERANCE,
  MUST_NOT_INCLUDE_TOLERANCE,
  mustInclude,
  mustNotInclude,
  needleQuantity,
  normaliseText,
  numbersTraced,
  refusalAccuracy,
} from './deterministic.ts';
export { evidenceRecall } from './evidence.ts';
export {
  AnswerChecks,
  CHECK_NAMES,
  type CheckName,
  CheckResult,
  CheckResults,
  ClaimFaithfulness,
  ClaimVerdict,
  EvidenceRecall,
} from './schema.ts';
export { type QuantityTrace, TRACE_TOLERANCE, traceQuantities } from './trace.ts';

/**
 * Bump when a check's verdicts may change: stored results record their checks, and this version is
 * part of the run id, so results checked by older rules are not reused; it is part of a stored check
 * record's identity too (store/cells.ts `CheckIdentity`), so a bump computes every answer's checks again. (v2: explained refusals are
 * not uncited claims; v3: a figure that is the question's recorded derivation over the chunks' figures
 * is traced.)
 */
export const CHECKS_VERSION = 'v3';

export interface CheckInput {
  question: Question;
  answer: string;
  chunks: readonly ContextChunk[];
  /** null for an answer from a batch, whose latency is not the model's */
  latencyMs: number | null;
  latencyBudgetMs: number;
}

/** All checks of one response. */
export function runChecks(input: CheckInput): CheckResults {
  return withLatency(answerChecks(input), latencyCheck(input));
}

/**
 * The checks that follow from the answer, the question and the passages alone (every check but latency):
 * what the checks stage stores beside an answer, so a warm case reads them instead (run/stages/answer-checks.ts).
 */
export function answerChecks(input: Pick<CheckInput, 'question' | 'answer' | 'chunks'>): AnswerChecks {
  const { question, answer, chunks } = input;
  return {
    numbersTraced: numbersTraced(answer, chunks, question.numeric_gold),
    citationsResolve: citationsResolve(answer, chunks),
    mustInclude: mustInclude(question, answer),
    mustNotInclude: mustNotInclude(question, answer),
    refusalAccuracy: refusalAccuracy(question, answer),
    claimFaithfulness: claimFaithfulness(answer, chunks, question.numeric_gold),
  };
}

/** The latency check of a response (n/a for a batch's answer, whose latency is not the model's). */
export function latencyCheck(input: Pick<CheckInput, 'latencyMs' | 'latencyBudgetMs'>): CheckResult {
  return input.latencyMs === null
    ? { name: 'latency', passed: null, detail: 'answered in a batch: latency not measured' }
    : latency(input.latencyMs, input.latencyBudgetMs);
}

/** A response's checks from its answer's checks and its latency check, in report order. */
export function withLatency(checks: AnswerChecks, latencyResult: CheckResult): CheckResults {
  return {
    numbersTraced: checks.numbersTraced,
    citationsResolve: checks.citationsResolve,
    mustInclude: checks.mustInclude,
    mustNotInclude: checks.mustNotInclude,
    refusalAccuracy: checks.refusalAccuracy,
    latency: latencyResult,
    claimFaithfulness: checks.claimFaithfulness,
  };
}
