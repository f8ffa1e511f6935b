/**
 * One evaluation case, as Vitest shows it and the report reads it: a (subject, question, run index)
 * assembled from the completed stores — the subject's answer, the deterministic checks on it (stored
 * beside it by the checks stage: stages/answer-checks.ts), both panel judges' verdicts and the scores. Nothing is called here; the stages (stages/stages.ts) fill the stores.
 * A cell the stages could not complete is an error that says why (the call's error, the budget cap, a
 * batch still running). The row's schema is the store's (store/rows.ts): it is a published file.
 */
import { latencyCheck, withLatency } from '../../checks/index.ts';
import type { JudgeOutcome } from '../../judging/verdict.ts';
import { type ModelPrices, uncachedCostUsd } from '../../providers/catalogue.ts';
import { addUsage, COMPLETE, type Usage, ZERO_USAGE } from '../../providers/types.ts';
import { hasGold } from '../../questions/schema.ts';
import { caseScores, withoutCorrectness } from '../../scoring/index.ts';
import { type AnswerRecord, isJudgeable } from '../../store/cells.ts';
import type { CaseRow } from '../../store/rows.ts';
import type { RunState } from '../../store/run-state.ts';
import { RgeError } from '../../util/errors.ts';
import type { RunSession } from '../session/open.ts';
import { contextsOf, type SubjectCell } from '../session/work.ts';
import { answerChecksOf } from '../stages/answer-checks.ts';

export { CaseRow } from '../../store/rows.ts';

/** Why a cell has no row: the stage's error for it, or a generic hint. */
function missing(state: RunState | null, cell: SubjectCell, what: string): RgeError {
  const reason =
    state?.errors[cell.id] ??
    Object.entries(state?.errors ?? {}).find(([k]) => k.startsWith(`${cell.id}/`))?.[1] ??
    state?.stopped ??
    'the run stopped before it was computed; run the suite again to resume';
  return new RgeError(`${cell.id}: no ${what}: ${reason}`);
}

/**
 * Whether a cell has no answer because its subject failed to give one (a user's system crashed, timed
 * out, exited non-zero, replied malformed or with an HTTP error, broke the contract: the stages recorded
 * it as the subject's failure), rather than because the run stopped, a judge failed or rge erred.
 */
export function failedBySubject(run: RunSession, cell: SubjectCell, state: RunState | null): boolean {
  if (!state?.subject_failures) return false;
  let failed = subjectFailuresOf.get(state);
  if (!failed) {
    failed = new Set(state.subject_failures);
    subjectFailuresOf.set(state, failed);
  }
  return failed.has(cell.id) && run.answers(cell.subject).get(cell.key) === undefined;
}

/** A run state's `subject_failures` as a set, made once per state (a run may fail many thousand cells). */
const subjectFailuresOf = new WeakMap<RunState, Set<string>>();

/** The panel's verdicts on a stored answer, and what their calls used and cost (none for an unjudged answer). */
function panelOutcome(run: RunSession, cell: SubjectCell, answer: AnswerRecord, state: RunState | null) {
  const verdicts: JudgeOutcome[] = [];
  let usage = ZERO_USAGE;
  let cost = 0;
  let uncachedCost = 0;
  for (const { judge, key } of isJudgeable(answer) ? run.work.verdictCells(cell, answer) : []) {
    const record = run.verdicts(judge).get(key);
    if (!record) throw missing(state, cell, `verdict of judge ${judge.id}`);
    verdicts.push(record.outcome);
    usage = addUsage(usage, record.usage);
    cost += record.outcome.costUsd;
    uncachedCost += uncached(judge.priced.prices, record.usage, record.batch);
  }
  return { verdicts, usage, cost, uncachedCost };
}

/**
 * Whether a gold chunk was in rge's top-k (a model inside rge's pipeline; null for a system, whose
 * passages are its own). How much of the gold evidence the passages hold is with the answer's checks.
 */
function retrievalHit(cell: SubjectCell): boolean | null {
  const gold = cell.question.gold_chunk_ids;
  return gold.length === 0 || cell.ask.kind === 'system'
    ? null
    : cell.chunks.some((c) => gold.includes(c.id));
}

/** The case row of a cell from the stores; throws when its answer or a verdict is missing. */
export function caseRow(run: RunSession, cell: SubjectCell, state: RunState | null = null): CaseRow {
  const answer = run.answers(cell.subject).get(cell.key);
  if (!answer) throw missing(state, cell, 'answer');
  const panel = panelOutcome(run, cell, answer, state);
  const passages = contextsOf(cell, answer);
  // stored beside the answer by the checks stage; computed here only when it is not (stages/answer-checks.ts)
  const checked = answerChecksOf(run, cell, answer, passages);
  const weights = run.plan.config.gfs_weights;
  return {
    question_id: cell.question.id,
    category: cell.question.category,
    expected_behavior: cell.question.expected_behavior,
    subject_id: cell.subject.id,
    model: cell.subject.model,
    family: cell.subject.config.family,
    run_index: cell.runIndex,
    prompt_hash: cell.identity.prompt_hash,
    subject_prompt_hash: run.plan.subjectPrompt.sha256,
    judge_prompt_hash: run.plan.judgePrompt.sha256,
    answer_key: answer.key,
    retrieved_ids: answer.retrieved_ids,
    question: {
      text: cell.question.text,
      gold_answer: cell.question.gold_answer,
      gold_quotes: [...cell.question.gold_quotes],
    },
    gold_chunk_ids: cell.question.gold_chunk_ids,
    ...(cell.question.gold_source?.kind === 'untraced' ? { gold_untraced: true as const } : {}),
    retrieval_hit: retrievalHit(cell),
    evidence: checked.evidence,
    answer: answer.text,
    answer_stop: answer.stop ?? COMPLETE,
    usage: answer.usage,
    judge_usage: panel.usage,
    latency_ms: answer.latency_ms,
    cost_usd: answer.cost_usd + panel.cost,
    uncached_cost_usd: uncached(cell.subject.priced.prices, answer.usage, answer.batch) + panel.uncachedCost,
    batch: answer.batch,
    verdicts: panel.verdicts,
    scores: scoresOf(cell, panel.verdicts, weights),
    checks: withLatency(
      checked.checks,
      latencyCheck({
        latencyMs: answer.batch ? null : answer.latency_ms,
        latencyBudgetMs: run.plan.config.latency_budget_ms,
      }),
    ),
  };
}

/** The panel's scores; without correctness (null, not 0) for a question with no gold (a logged trace). */
function scoresOf(
  cell: SubjectCell,
  verdicts: readonly JudgeOutcome[],
  weights: RunSession['plan']['config']['gfs_weights'],
) {
  const scores = caseScores(verdicts, {
    grounding: weights.grounding,
    correctness: weights.correctness,
    calibration: weights.calibration,
  });
  return hasGold(cell.question) ? scores : withoutCorrectness(scores);
}

function uncached(prices: ModelPrices, usage: Usage, batch: boolean): number {
  return uncachedCostUsd(usage, prices, { batch });
}
