/**
 * What travels in Vitest's task metadata for an rge run, kept small so that a run of a hundred thousand
 * cases costs little in Vitest's own state (issue 41):
 * - on each case (`rge`): the cell (what its row in the results store is found by), whether it was
 *   reused, and its four scores (for `rge eval run --json`); the row itself is in the results store
 *   (data/results/<subject>_<run_id>.jsonl), where the reporter reads it;
 * - on the case's file (`rgeModule`), once: the run it belongs to, what gates it, and who planned it.
 */
import type { RunInfo } from '../run/plan.ts';

/** The run a case belongs to (src/run/plan.ts). */
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

declare module 'vitest' {
  interface TaskMeta {
    /** a case with a row in the results store */
    rge?: RgeCaseMeta;
    /** on an eval file: the run of its cases (a case that fails before it has a row still counts in it) */
    rgeModule?: RgeModuleMeta;
  }
}
