/**
 * What a finished case leaves in Vitest's task metadata, kept small so that a run of a hundred thousand
 * cases is cheap to hold in Vitest's state and to carry from the workers (issue 41):
 * - rge's own (`caseMeta`): the cell and four scores; the row is in the results store;
 * - vitest-evals' (`trimEvalMeta`): in full for the first FULL_EVAL_CASES cases of each eval file (the
 *   answer, the transcript, the retrieval span, every judge's rationale and evidence: what its report UI
 *   shows), then only the answer, the usage and the scores. Every case's full record is its row in the
 *   results store, data/results/<subject>_<run_id>.jsonl (the answer, the verdicts with their rationales
 *   and evidence, the checks); the trimmed case says so in its artifacts (`full_record`).
 */
import type { TaskMeta } from 'vitest';
import type { CaseRow } from '../run/case/case.ts';
import type { SubjectCell } from '../run/session/index.ts';
import { resultsFile } from '../store/rows.ts';
import type { RgeCaseFailure, RgeCaseMeta, RgeRunInfo } from './meta.ts';
import type { Shared } from './shared-values.ts';

/** Cases per eval file whose vitest-evals metadata is kept whole (the fixture run's 1,200 all are). */
export const FULL_EVAL_CASES = 500;

export function caseMeta(row: CaseRow, reused: boolean): RgeCaseMeta {
  const s = row.scores;
  return {
    subject_id: row.subject_id,
    question_id: row.question_id,
    run_index: row.run_index,
    prompt_hash: row.prompt_hash,
    category: row.category,
    reused,
    scores: {
      correctness: s.correctness,
      grounding: s.grounding,
      calibration: s.calibration,
      gfs: s.gfsPrimary,
    },
  };
}

/** A case that failed without a row: its cell, and whether the subject's own failure was why. */
export function caseFailure(cell: SubjectCell, bySubject: boolean): RgeCaseFailure {
  return {
    subject_id: cell.subject.id,
    question_id: cell.question.id,
    run_index: cell.runIndex,
    category: cell.question.category,
    by: bySubject ? 'subject' : 'run',
    ...(cell.question.gold_source?.kind === 'untraced' ? { gold_untraced: true as const } : {}),
  };
}

/**
 * The `n`th case of an eval file past FULL_EVAL_CASES keeps of vitest-evals' metadata what its terminal
 * reporter and report UI need to list it (the answer, usage, timings, each score and whether GFS gates),
 * and points to its full record.
 */
export function trimEvalMeta(task: { meta: TaskMeta }, n: number, run: RgeRunInfo, shared: Shared): void {
  const { harness, eval: scored, rge } = task.meta;
  if (n <= FULL_EVAL_CASES || !harness || !rge) return;
  const full = resultsFile(run.resultsDir, rge.subject_id, run.runId);
  const r = harness.run;
  task.meta.harness = {
    name: harness.name,
    run: {
      output: r.output,
      session: { events: [], metadata: { trimmed: true } },
      usage: r.usage,
      ...(r.timings ? { timings: r.timings } : {}),
      artifacts: { ...(r.artifacts ?? {}), full_record: full },
      errors: r.errors,
    },
  };
  if (scored)
    task.meta.eval = {
      scores: scored.scores.map((s) => ({
        name: s.name,
        score: s.score,
        ...(s.name === 'GFS' && s.metadata ? { metadata: { gated: s.metadata.gated ?? null } } : {}),
      })),
      avgScore: scored.avgScore,
      thresholdFailed: scored.thresholdFailed ?? false,
    };
  shareCaseMeta(task.meta, shared);
}

/** Whether a case's vitest-evals metadata is the trimmed one (`trimEvalMeta`). */
function isTrimmed(meta: TaskMeta): boolean {
  const session = meta.harness?.run.session as { metadata?: Record<string, unknown> } | undefined;
  return session?.metadata?.trimmed === true;
}

/** `o` with the string fields `keys` it has replaced by their shared instance (its key order kept). */
function sharedStrings<T extends object>(o: T, keys: readonly (keyof T)[], s: Shared): T {
  const out = { ...o };
  for (const k of keys) {
    const v = out[k];
    if (typeof v === 'string') out[k] = s.of(v) as T[keyof T];
  }
  return out;
}

/** `o` with its `metadata` record, if any, shared. */
function sharedMetadata<T extends { metadata?: object | undefined }>(o: T, s: Shared): T {
  return o.metadata ? { ...o, metadata: s.record(o.metadata) } : o;
}

/**
 * A case's metadata with what it has in common with other cases shared (in place; equal values, so what
 * any reader sees is unchanged): rge's cell names and scores, and a trimmed case's vitest-evals metadata
 * (its score lines, names, usage's provider and model). A case whose metadata is whole is left as it is.
 */
export function shareCaseMeta(meta: TaskMeta, s: Shared): void {
  const rge = meta.rge;
  if (rge)
    meta.rge = {
      ...sharedStrings(rge, ['subject_id', 'question_id', 'prompt_hash', 'category'], s),
      scores: s.record(rge.scores),
    };
  if (meta.rgeFailure)
    meta.rgeFailure = sharedStrings(meta.rgeFailure, ['subject_id', 'question_id', 'category'], s);
  const harness = meta.harness;
  if (!harness || !isTrimmed(meta)) return;
  const r = harness.run;
  meta.harness = {
    name: s.of(harness.name),
    run: {
      ...r,
      ...(typeof r.output === 'string' ? { output: s.of(r.output) } : {}),
      ...(r.session ? { session: s.record(r.session) } : {}),
      usage: sharedMetadata(sharedStrings(r.usage, ['provider', 'model'], s), s),
      ...(r.timings ? { timings: sharedMetadata(r.timings, s) } : {}),
      ...(r.artifacts ? { artifacts: sharedStrings(r.artifacts, ['reply_model', 'full_record'], s) } : {}),
      ...(r.errors.length === 0 ? { errors: s.record(r.errors) } : {}),
    },
  };
  if (meta.eval) meta.eval = s.record(meta.eval);
}
