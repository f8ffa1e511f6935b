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
import type { CheckResults } from './schema.ts';

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
export { type EvidenceRecall, evidenceRecall } from './evidence.ts';
export {
  CHECK_NAMES,
  type CheckName,
  CheckResult,
  CheckResults,
  ClaimFaithfulness,
  ClaimVerdict,
} from './schema.ts';
export { type QuantityTrace, TRACE_TOLERANCE, traceQuantities } from './trace.ts';

/**
 * Bump when a check's verdicts may change: stored results record their checks, and this version is
 * part of the run id, so results checked by older rules are not reused. (v2: explained refusals are
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
  const { question, answer, chunks } = input;
  return {
    numbersTraced: numbersTraced(answer, chunks, question.numeric_gold),
    citationsResolve: citationsResolve(answer, chunks),
    mustInclude: mustInclude(question, answer),
    mustNotInclude: mustNotInclude(question, answer),
    refusalAccuracy: refusalAccuracy(question, answer),
    latency:
      input.latencyMs === null
        ? { name: 'latency', passed: null, detail: 'answered in a batch: latency not measured' }
        : latency(input.latencyMs, input.latencyBudgetMs),
    claimFaithfulness: claimFaithfulness(answer, chunks, question.numeric_gold),
  };
}
