/**
 * How the replies of a run ended, per model: the subjects' answers and the judges' verdict replies
 * counted by stop kind (complete, truncated at the output limit, refusal, safety stop, other). A reply
 * that did not end on its own is never scored as complete (the answer is not judged; the verdict is
 * unscored), so these counts say how many cases each kind took out of the means. Its section of the
 * report: src/report/sections/stops.ts.
 */

export const STOP_KIND_NAMES = ['complete', 'truncated', 'refusal', 'safety', 'other'] as const;
export type StopKindName = (typeof STOP_KIND_NAMES)[number];
export type StopTally = Record<StopKindName, number>;

/** What the tally needs of a case row: the answer's stop and each verdict's. */
export interface StopRowView {
  subject_id: string;
  answer_stop?: { kind: StopKindName } | undefined;
  verdicts: readonly { judgeId: string; stop?: { kind: StopKindName } | undefined }[];
}

export interface StopCounts {
  /** per subject id: its answers by how they ended */
  answers: Record<string, StopTally>;
  /** per judge (provider/model): its last verdict reply per case by how it ended */
  verdicts: Record<string, StopTally>;
}

const emptyTally = (): StopTally => ({ complete: 0, truncated: 0, refusal: 0, safety: 0, other: 0 });

/** The stop counts of case rows; a row or verdict that records no stop ended on its own (complete). */
export function stopCounts(rows: readonly StopRowView[]): StopCounts {
  const answers: Record<string, StopTally> = {};
  const verdicts: Record<string, StopTally> = {};
  const count = (tallies: Record<string, StopTally>, id: string, kind: StopKindName | undefined) => {
    const tally = tallies[id] ?? emptyTally();
    tally[kind ?? 'complete']++;
    tallies[id] = tally;
  };
  for (const row of rows) {
    count(answers, row.subject_id, row.answer_stop?.kind);
    for (const v of row.verdicts) count(verdicts, v.judgeId, v.stop?.kind);
  }
  return { answers, verdicts };
}
