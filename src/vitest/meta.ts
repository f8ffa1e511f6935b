/**
 * What travels in a Vitest task's metadata for one rge case: the stored result row and the run it
 * belongs to. The reporter builds the report from these alone (scores travel in task metadata, not
 * in side files).
 */
import type { CaseRowView } from '../report/summary.ts';

export interface RgeRunInfo {
  runId: string;
  seed: string;
  configHash: string;
  indexChecksum: string;
  questionsHash: string;
  reportsDir: string;
  /** the run state file (estimate, stage outcome) */
  stateFile?: string;
  resultsDir?: string;
  mode?: string;
}

export interface RgeCaseMeta {
  run: RgeRunInfo;
  row: CaseRowView & Record<string, unknown>;
  reused: boolean;
}

declare module 'vitest' {
  interface TaskMeta {
    rge?: RgeCaseMeta;
  }
}
