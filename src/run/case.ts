/**
 * One evaluation case, as Vitest shows it and the report reads it: a (subject, question, run index)
 * assembled from the completed stores — the subject's answer, the deterministic checks on it, both
 * panel judges' verdicts and the scores. Nothing is called here; the stages (stages.ts) fill the stores.
 * A cell the stages could not complete is an error that says why (the call's error, the budget cap, a
 * batch still running).
 */
import { z } from 'zod';
import { CheckResults, runChecks } from '../checks/index.ts';
import { JudgeOutcome } from '../judging/verdict.ts';
import { type ModelPrices, uncachedCostUsd } from '../providers/catalogue.ts';
import { addUsage, COMPLETE, StopInfo, Usage, ZERO_USAGE } from '../providers/types.ts';
import { CaseScores, caseScores } from '../scoring/index.ts';
import { RgeError } from '../util/errors.ts';
import { isJudgeable } from './cells.ts';
import type { RunSession } from './open.ts';
import type { RunState } from './stages.ts';
import type { SubjectCell } from './work.ts';

export const CaseRow = z.strictObject({
  question_id: z.string(),
  category: z.string(),
  expected_behavior: z.string(),
  /** what a reader of the case needs beside the answer (absent in rows written before rge recorded it) */
  question: z
    .strictObject({ text: z.string(), gold_answer: z.string(), gold_quotes: z.array(z.string()) })
    .optional(),
  subject_id: z.string(),
  model: z.string(),
  family: z.string(),
  run_index: z.number().int().min(0),
  /** sha256 of the exact subject request (system, messages, model, temperature) */
  prompt_hash: z.string(),
  subject_prompt_hash: z.string(),
  judge_prompt_hash: z.string(),
  /** the answer's identity in the cell store */
  answer_key: z.string(),
  retrieved_ids: z.array(z.string()),
  /** the question's gold chunks (none for out-of-domain questions) */
  gold_chunk_ids: z.array(z.string()),
  /** present when the question's gold is not traced to a source here (`gold_source` untraced) */
  gold_untraced: z.literal(true).optional(),
  /** whether a gold chunk was in the retrieved top-k; null without gold chunks */
  retrieval_hit: z.boolean().nullable(),
  answer: z.string(),
  /**
   * why the subject's reply ended; a reply that did not end on its own (cut at the output limit, a
   * refusal, a safety stop) is not judged: the case is unscored (absent in rows written before rge
   * recorded it: complete)
   */
  answer_stop: StopInfo.optional(),
  /** the subject call's tokens */
  usage: Usage,
  /** the judge calls' tokens, all attempts */
  judge_usage: Usage,
  latency_ms: z.number().min(0),
  /** subject and judge calls */
  cost_usd: z.number().min(0),
  /** what the same calls would have cost without prompt caching */
  uncached_cost_usd: z.number().min(0),
  batch: z.boolean(),
  verdicts: z.array(JudgeOutcome),
  scores: CaseScores,
  checks: CheckResults,
});
export type CaseRow = z.infer<typeof CaseRow>;

/** Why a cell has no row: the stage's error for it, or a generic hint. */
function missing(state: RunState | null, cell: SubjectCell, what: string): RgeError {
  const reason =
    state?.errors[cell.id] ??
    Object.entries(state?.errors ?? {}).find(([k]) => k.startsWith(`${cell.id}/`))?.[1] ??
    state?.stopped ??
    'the run stopped before it was computed; run the suite again to resume';
  return new RgeError(`${cell.id}: no ${what}: ${reason}`);
}

/** The case row of a cell from the stores; throws when its answer or a verdict is missing. */
export function caseRow(run: RunSession, cell: SubjectCell, state: RunState | null = null): CaseRow {
  const answer = run.answers(cell.subject).get(cell.key);
  if (!answer) throw missing(state, cell, 'answer');
  const verdicts: JudgeOutcome[] = [];
  let judgeUsage = ZERO_USAGE;
  let judgeCost = 0;
  let judgeUncached = 0;
  for (const { judge, key } of isJudgeable(answer) ? run.work.verdictCells(cell, answer) : []) {
    const record = run.verdicts(judge).get(key);
    if (!record) throw missing(state, cell, `verdict of judge ${judge.id}`);
    verdicts.push(record.outcome);
    judgeUsage = addUsage(judgeUsage, record.usage);
    judgeCost += record.outcome.costUsd;
    judgeUncached += uncached(judge.priced.prices, record.usage, record.batch);
  }
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
    judge_prompt_hash: run.plan.judgePrompt.hash,
    answer_key: answer.key,
    retrieved_ids: answer.retrieved_ids,
    question: {
      text: cell.question.text,
      gold_answer: cell.question.gold_answer,
      gold_quotes: [...cell.question.gold_quotes],
    },
    gold_chunk_ids: cell.question.gold_chunk_ids,
    ...(cell.question.gold_source?.kind === 'untraced' ? { gold_untraced: true as const } : {}),
    retrieval_hit:
      cell.question.gold_chunk_ids.length === 0
        ? null
        : cell.chunks.some((c) => cell.question.gold_chunk_ids.includes(c.id)),
    answer: answer.text,
    answer_stop: answer.stop ?? COMPLETE,
    usage: answer.usage,
    judge_usage: judgeUsage,
    latency_ms: answer.latency_ms,
    cost_usd: answer.cost_usd + judgeCost,
    uncached_cost_usd: uncached(cell.subject.priced.prices, answer.usage, answer.batch) + judgeUncached,
    batch: answer.batch,
    verdicts,
    scores: caseScores(verdicts, {
      grounding: weights.grounding,
      correctness: weights.correctness,
      calibration: weights.calibration,
    }),
    checks: runChecks({
      question: cell.question,
      answer: answer.text,
      chunks: cell.chunks,
      latencyMs: answer.batch ? null : answer.latency_ms,
      latencyBudgetMs: run.plan.config.latency_budget_ms,
    }),
  };
}

function uncached(prices: ModelPrices, usage: Usage, batch: boolean): number {
  return uncachedCostUsd(usage, prices, { batch });
}
