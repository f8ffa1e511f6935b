/**
 * Consistency across runs: per subject and category, the questions whose runs all pass (pass^k), whose
 * runs disagree (flip) and that never pass, with Wilson intervals, beside the share of cases that pass
 * (src/report/consistency.ts). In summary.json, `consistency`.
 */
import type { ProportionInterval } from '../../stats/index.ts';
import { CONSISTENCY_ALL, type Consistency, consistency } from '../consistency.ts';
import type { ReportSection } from '../section.ts';
import { pct } from './format.ts';

export interface ConsistencyData {
  /** per subject and category: pass^k, flip and never rates over questions, with Wilson intervals */
  consistency: Consistency;
}

const share = (p: ProportionInterval) =>
  p.low === null || p.high === null ? 'n/a' : `${pct(p.share)} [${pct(p.low)}, ${pct(p.high)}]`;

/**
 * Consistency across runs: per subject and category, the questions whose runs all pass (pass^k), whose
 * runs disagree (flip) and that never pass, with Wilson intervals, beside the share of cases that pass.
 */
function consistencySection(s: ConsistencyData): string[] {
  const c = s.consistency;
  const rows = Object.entries(c.bySubject).flatMap(([subject, cells]) =>
    Object.entries(cells).map(
      ([category, x]) =>
        `| ${subject} | ${category === CONSISTENCY_ALL ? '**all**' : category} | ${x.questions}${x.incomplete > 0 ? ` (${x.incomplete} incomplete left out)` : ''} | ${x.runs} | ${pct(x.casePassRate)} | ${share(x.allPass)} | ${share(x.flip)} | ${share(x.never)} |`,
    ),
  );
  if (rows.length === 0) return [];
  return [
    '## Consistency across runs',
    '',
    `Whether the same questions pass every time, not only how many cases pass: ${c.rule}.`,
    '',
    '| subject | category | questions | runs (k) | cases passing | pass^k | flip | never |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ];
}

const section: ReportSection<ConsistencyData> = {
  id: 'consistency',
  place: 'below',
  compute: (c) => ({ consistency: consistency(c.ranked) }),
  render: consistencySection,
};
export default section;
