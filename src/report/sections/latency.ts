/** Latency quantiles and cost per subject. In summary.json, `latency` and `cost`. */
import { cost, latency } from '../operations.ts';
import type { ReportSection } from '../section.ts';
import { f2, tableHead } from './format.ts';
import type { HeaderData } from './header.ts';

export interface LatencyData {
  latency: Record<string, { p50: number; p95: number }>;
  cost: Record<string, number>;
}

function latencySection(s: LatencyData & Pick<HeaderData, 'models'>): string[] {
  return [
    '## Latency and cost',
    '',
    ...tableHead(['subject', 'p50 ms', 'p95 ms', 'cost USD']),
    ...s.models.map(
      (m) =>
        `| ${m} | ${f2(s.latency[m]?.p50 ?? Number.NaN)} | ${f2(s.latency[m]?.p95 ?? Number.NaN)} | ${(s.cost[m] ?? 0).toFixed(4)} |`,
    ),
    '',
  ];
}

const section: ReportSection<LatencyData, LatencyData & Pick<HeaderData, 'models'>> = {
  id: 'latency',
  place: 'below',
  compute: (c) => ({ latency: latency(c.bySubject), cost: cost(c.bySubject) }),
  render: latencySection,
};
export default section;
