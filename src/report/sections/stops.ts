/**
 * How the replies of a run ended: one row per model and role, its replies counted by stop kind
 * (src/report/stops.ts). In summary.json, `stops`.
 */
import type { ReportSection } from '../section.ts';
import { STOP_KIND_NAMES, type StopCounts, stopCounts } from '../stops.ts';

export interface StopsData {
  /** how the answers and verdict replies ended, per model */
  stops: StopCounts;
}

/** The report's section: one row per model and role. */
export function stopSection(counts: StopCounts): string[] {
  const rows = [
    ...Object.entries(counts.answers).map(([id, t]) => ({ id, role: 'subject (answers)', t })),
    ...Object.entries(counts.verdicts).map(([id, t]) => ({ id, role: 'judge (verdicts)', t })),
  ];
  if (rows.length === 0) return [];
  return [
    '## How replies ended',
    '',
    'Each reply counted by why it ended. An answer cut at the output limit (truncated), refused, or stopped by a safety filter is not judged and its case is unscored; such a verdict reply is unscored. Neither is ever scored as a complete reply.',
    '',
    `| model | role | ${STOP_KIND_NAMES.join(' | ')} |`,
    `|---|---|${STOP_KIND_NAMES.map(() => '---:').join('|')}|`,
    ...rows.map(({ id, role, t }) => `| ${id} | ${role} | ${STOP_KIND_NAMES.map((k) => t[k]).join(' | ')} |`),
    '',
  ];
}

const section: ReportSection<StopsData> = {
  id: 'stops',
  place: 'below',
  compute: (c) => ({ stops: stopCounts(c.rows) }),
  render: (s) => stopSection(s.stops),
};
export default section;
