/**
 * What travels in Vitest's task metadata for an rge run, kept small so that a run of a hundred thousand
 * cases costs little in Vitest's own state (issue 41):
 * - on each case (`rge`): the cell (what its row in the results store is found by), whether it was
 *   reused, and its four scores (for `rge eval run --json`); the row itself is in the results store
 *   (data/results/<subject>_<run_id>.jsonl), where the reporter reads it;
 * - on a case that failed without a row (`rgeFailure`): its cell and whose failure it was, so the
 *   report can attribute it (a subject's own failure scores 0 in the ranking and the gate);
 * - on the case's file (`rgeModule`), once: the run it belongs to, what gates it, and who planned it.
 */
import type { RunInfo } from '../run/plan/index.ts';

/** The run a case belongs to (src/run/plan/plan.ts). */
export type RgeRunInfo = RunInfo;

/** The run of an eval file's cases, on the file's metadata (set as its first case starts). */
export interface RgeModuleMeta {
  run: RgeRunInfo;
  /** which thresholds gate the cases, or that none does (every case then passes: a record) */
  gating: string;
  /** the process that planned the run (src/vitest/handoff.ts): the same for every case of a run */
  plannedBy: number;
}

/** One case: its cell (the results store's key of its row) and what `--json` lists of it. */
export interface RgeCaseMeta {
  subject_id: string;
  question_id: string;
  run_index: number;
  /** the subject request's hash: with the three above, the row's key in the results store */
  prompt_hash: string;
  category: string;
  reused: boolean;
  scores: {
    correctness: number | null;
    grounding: number | null;
    calibration: number | null;
    gfs: number | null;
  };
}

/**
 * A case that failed without a row: its cell, and whose failure it was. `subject`: the subject gave no
 * answer, its own failure (a user's system crashed, timed out, exited non-zero, replied malformed or with
 * an HTTP error, broke the contract), which the report scores 0 in the ranking and the gate; `run`:
 * the case could not be completed for another reason (a judge's call failed, the run stopped at the
 * budget cap or on Ctrl-C, a batch has not ended, rge's own error), which the report lists and leaves
 * out. Its message is the test's error.
 */
export interface RgeCaseFailure {
  subject_id: string;
  question_id: string;
  run_index: number;
  category: string;
  by: 'subject' | 'run';
  /** the question's gold is not traced to a source (the GFS table's traced column leaves it out) */
  gold_untraced?: true;
}

declare module 'vitest' {
  interface TaskMeta {
    /** a case with a row in the results store */
    rge?: RgeCaseMeta;
    /** a case that failed without a row: its cell and whose failure it was */
    rgeFailure?: RgeCaseFailure;
    /** on an eval file: the run of its cases (a case that fails before it has a row still counts in it) */
    rgeModule?: RgeModuleMeta;
  }
}
