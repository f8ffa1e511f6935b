/** Variance across runs: per subject, its within-question SD and between-question variance. In summary.json, `variance`. */
import { type VarianceTable, variance } from '../scores.ts';
import type { ReportSection } from '../section.ts';
import { f3, tableHead } from './format.ts';

export interface VarianceData {
  variance: VarianceTable;
}

function varianceSection(s: VarianceData): string[] {
  return [
    '## Variance across runs',
    '',
    ...tableHead(['subject', 'runs', 'within-question SD', 'between-question variance']),
    ...Object.entries(s.variance).map(
      ([m, v]) => `| ${m} | ${v.runs} | ${f3(v.withinQuestionSD)} | ${f3(v.betweenQuestionVariance)} |`,
    ),
    '',
  ];
}

const section: ReportSection<VarianceData> = {
  id: 'variance',
  place: 'below',
  compute: (c) => ({ variance: variance(c.ranked) }),
  render: varianceSection,
};
export default section;
