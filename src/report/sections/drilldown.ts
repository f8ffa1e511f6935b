/**
 * Where the models fail: the worst and the contested cases in detail (the diagnostics' drill-down, which
 * the errors section computes). In summary.json, `contested`: every contested scored cell.
 */
import { figureText } from '../../util/figure.ts';
import type { ReportSection } from '../section.ts';
import type { CaseRowView } from '../views.ts';
import type { ErrorsData } from './errors.ts';
import { questionLines } from './failure-kinds.ts';
import { oneLine, tableHead } from './format.ts';

export interface DrilldownData {
  contested: { question_id: string; subject_id: string; run_index: number; dimensions: readonly string[] }[];
}

const DIMS = ['correctness', 'grounding', 'calibration'] as const;
const cell = oneLine;

function contested(rows: readonly CaseRowView[]): DrilldownData['contested'] {
  return rows
    .filter((r) => !r.scores.unscored && r.scores.contested)
    .map((r) => ({
      question_id: r.question_id,
      subject_id: r.subject_id,
      run_index: r.run_index,
      dimensions: r.scores.contestedDimensions,
    }));
}

function drilldownSection(s: ErrorsData): string[] {
  const cases = s.diagnostics.drilldown;
  if (cases.length === 0) return [];
  const out = ['## Where the models fail: the worst and the contested cases', ''];
  for (const c of cases) {
    out.push(
      `### ${c.cell} (${c.category}, ${c.why}, GFS ${c.gfs === null ? 'unscored' : c.gfs.toFixed(3)}${c.kind ? `, ${c.kind}` : ''}${c.cause ? `, ${c.cause}` : ''})`,
      '',
      ...(c.question ? [...questionLines(c.question), 'Answer:', ''] : []),
      `> ${cell(c.answer) || '(empty answer)'}`,
      '',
      `Cited: ${c.cited.length > 0 ? c.cited.join(', ') : 'nothing'}. Retrieved: ${c.retrieved.join(', ') || 'nothing'}.`,
      '',
    );
    out.push(...tableHead(['judge', 'dimension', 'score', 'evidence (quoted first)', 'rationale']));
    for (const v of c.verdicts) {
      if (!v.scores) {
        out.push(`| ${v.judge} | all | ${v.status} | | |`);
        continue;
      }
      for (const d of DIMS)
        out.push(
          `| ${v.judge} | ${d} | ${figureText(v.scores[d])} | ${cell((v.evidence?.[d] ?? []).map((e) => `"${e}"`).join(' '))} | ${cell(v.rationale?.[d] ?? '')} |`,
        );
      if (v.unsupported.length > 0)
        out.push(`| ${v.judge} | unsupported claims | | ${cell(v.unsupported.join(' / '))} | |`);
    }
    out.push('');
    if (c.failedChecks.length > 0)
      out.push(
        `Checks failed: ${c.failedChecks.map((f) => `${f.name} (${cell(f.detail)})`).join('; ')}.`,
        '',
      );
  }
  return out;
}

const section: ReportSection<DrilldownData, ErrorsData> = {
  id: 'drilldown',
  place: 'below',
  compute: (c) => ({ contested: contested(c.rows) }),
  render: drilldownSection,
};
export default section;
