/**
 * What travels in a Vitest task's metadata for one rge case: the stored result row and the run it
 * belongs to. The reporter builds the report from these alone (scores travel in task metadata, not
 * in side files).
 */
import type { CaseRowView } from '../report/views.ts';
import type { RunInfo } from '../run/plan.ts';

/** The run a case belongs to (src/run/plan.ts). */
export type RgeRunInfo = RunInfo;

export interface RgeCaseMeta {
  run: RgeRunInfo;
  row: CaseRowView & Record<string, unknown>;
  reused: boolean;
  /** which thresholds gate the case, or that none does (every case then passes: a record) */
  gating: string;
  /** the process that planned the run (src/vitest/handoff.ts): the same for every case of a run */
  plannedBy: number;
}

declare module 'vitest' {
  interface TaskMeta {
    rge?: RgeCaseMeta;
    /** the run of an rge case, set when the case starts: a case that fails before it has a row still counts in its run's report */
    rgeRun?: RgeRunInfo;
  }
}
