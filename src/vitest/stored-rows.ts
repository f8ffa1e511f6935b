/**
 * The rows of a run's cases, read for its report from the results store in one pass: each subject's
 * file (data/results/<subject>_<run_id>.jsonl) is read in chunks, each row validated, and the rows of
 * the reported cases kept in their compact form (`compactRow`: what every statistic reads, strings
 * and small records shared), with where the whole row is for the few the report shows in full (`FULL_ROW`). The cases'
 * metadata names the rows; their order is the cases' (files in path order, cases in definition order),
 * so the statistics are those of the rows themselves, reported the old way (issue 41).
 */

import type { JudgeOutcome } from '../judging/verdict.ts';
import type { CaseRowView, StoredRowRef } from '../report/views.ts';
import { FULL_ROW } from '../report/views.ts';
import type { LineAt } from '../store/jsonl.ts';
import { CaseRow, cellKey, readRowAt, resultsFile, scanRows } from '../store/rows.ts';
import type { RgeCaseMeta, RgeRunInfo } from './meta.ts';
import { Shared } from './shared-values.ts';

class RowRef implements StoredRowRef {
  constructor(
    private readonly file: string,
    private readonly at: LineAt,
  ) {}

  read(): CaseRowView {
    return readRowAt(this.file, this.at, CaseRow);
  }
}

type Verdict = NonNullable<JudgeOutcome['verdict']>;

function compactVerdict(v: JudgeOutcome, s: Shared) {
  const d = v.verdict;
  const score = (dim: keyof Omit<Verdict, 'unsupported_claims'>) => ({ score: (d as Verdict)[dim].score });
  return {
    judgeId: s.of(v.judgeId),
    family: s.of(v.family),
    status: v.status,
    verdict: d
      ? s.record({
          correctness: score('correctness'),
          grounding: score('grounding'),
          calibration: score('calibration'),
        })
      : null,
    attempts: v.attempts,
    latencyMs: v.latencyMs,
    costUsd: v.costUsd,
    ...(v.usage ? { usage: v.usage } : {}),
    ...(v.stop ? { stop: s.record(v.stop) } : {}),
  };
}

/** A row as the report's statistics read it: no answer, question, rationale, evidence or check detail. */
export function compactRow(row: CaseRow, s: Shared, ref: StoredRowRef): CaseRowView {
  const checks: Record<string, unknown> = {};
  for (const [name, c] of Object.entries(row.checks)) {
    const { detail: _detail, claims: _claims, ...rest } = c as Record<string, unknown>;
    checks[name] = s.record(rest);
  }
  const evidence: { items: number; found: number; recall: number | null } | undefined = row.evidence
    ? { items: row.evidence.items, found: row.evidence.found, recall: row.evidence.recall }
    : undefined;
  const compact: CaseRowView & Record<string, unknown> = {
    question_id: s.of(row.question_id),
    category: s.of(row.category),
    expected_behavior: s.of(row.expected_behavior),
    ...(row.gold_untraced ? { gold_untraced: true as const } : {}),
    subject_id: s.of(row.subject_id),
    model: s.of(row.model),
    family: s.of(row.family),
    run_index: row.run_index,
    subject_prompt_hash: s.of(row.subject_prompt_hash),
    judge_prompt_hash: s.of(row.judge_prompt_hash),
    answer_key: row.answer_key,
    retrieval_hit: row.retrieval_hit,
    ...(evidence ? { evidence: s.record(evidence) } : {}),
    ...(row.answer_stop ? { answer_stop: s.record(row.answer_stop) } : {}),
    usage: row.usage,
    judge_usage: row.judge_usage,
    latency_ms: row.latency_ms,
    cost_usd: row.cost_usd,
    uncached_cost_usd: row.uncached_cost_usd,
    batch: row.batch,
    verdicts: row.verdicts.map((v) => compactVerdict(v, s)),
    scores: s.record({
      ...row.scores,
      contestedDimensions: row.scores.contestedDimensions.map((d) => s.of(d)),
    }),
    checks: s.record(checks),
  };
  Object.defineProperty(compact, FULL_ROW, { value: ref, enumerable: false });
  return compact;
}

export interface RunRows {
  /** the cases' rows, in the cases' order */
  rows: CaseRowView[];
  /** cases whose row the store does not hold (a store written over, a file removed) */
  missing: RgeCaseMeta[];
}

/** The rows of a run's cases, read from its results store in one pass over each subject's file. */
export function readRunRows(run: RgeRunInfo, cases: readonly RgeCaseMeta[]): RunRows {
  const wanted = new Map<string, CaseRowView | null>();
  const subjects = new Set<string>();
  for (const c of cases) {
    wanted.set(cellKey(c), null);
    subjects.add(c.subject_id);
  }
  const strings = new Shared();
  for (const subject of subjects) {
    const file = resultsFile(run.resultsDir, subject, run.runId);
    scanRows(file, CaseRow, null, (row, at) => {
      const key = cellKey(row);
      if (wanted.get(key) === null) wanted.set(key, compactRow(row, strings, new RowRef(file, at)));
    });
  }
  const rows: CaseRowView[] = [];
  const missing: RgeCaseMeta[] = [];
  for (const c of cases) {
    const row = wanted.get(cellKey(c));
    if (row) rows.push(row);
    else missing.push(c);
  }
  return { rows, missing };
}
