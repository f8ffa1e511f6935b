/**
 * Primary and equal-weight GFS per subject and category, with their intervals (and the chart, when the
 * report has one beside it). In summary.json, `gfs`: computed once in the summary's context, since the
 * ranking orders by it too.
 */
import { CHART_ALT } from '../chart-svg.ts';
import { FAILURE_RULE } from '../outcomes.ts';
import type { GfsTable, Interval } from '../scores.ts';
import type { RenderContext, ReportSection } from '../section.ts';
import { f3, tableHead } from './format.ts';
import type { HeaderData } from './header.ts';

export interface GfsData {
  /** per subject and category, a subject's own failures scored 0 */
  gfs: GfsTable;
}

const ci = (i: Interval | null) =>
  i ? `${f3(i.estimate)} [${f3(i.low)}, ${f3(i.high)}]${i.degenerate ? ' (degenerate)' : ''}` : 'n/a';

function gfsSection(s: GfsData & HeaderData, { chartFile }: RenderContext): string[] {
  // `traced`: every question whose gold is traced to a source here, when some are not
  const cats = [...s.categories, 'all', ...(s.models.some((m) => s.gfs[m]?.traced) ? ['traced'] : [])];
  return [
    '## Grounding Fidelity Score',
    '',
    `GFS primary = (0.40 grounding + 0.35 correctness + 0.25 calibration) / 2; equal = (c + g + k) / 6. Mean over scored cases with a BCa 95% interval (${s.run.resamples.toLocaleString('en')} resamples of questions, runs kept together).`,
    '',
    FAILURE_RULE,
    '',
    ...(chartFile ? [`![${CHART_ALT}](${chartFile})`, ''] : []),
    ...tableHead(['subject', 'weighting', ...cats]),
    ...s.models.flatMap((m) =>
      (['primary', 'equal'] as const).map(
        (w) => `| ${m} | ${w} | ${cats.map((c) => ci(s.gfs[m]?.[c]?.[w] ?? null)).join(' | ')} |`,
      ),
    ),
    '',
  ];
}

const section: ReportSection<GfsData, GfsData & HeaderData> = {
  id: 'gfs',
  place: 'below',
  compute: (c) => ({ gfs: c.gfs }),
  render: gfsSection,
};
export default section;
