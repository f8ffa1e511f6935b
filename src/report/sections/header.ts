/**
 * The report's title, a partial report's note, and the counts of cases; in summary.json, the run's
 * identity, its subjects and categories, the counts, and whether the report is partial.
 */
import type { ReportSection, SummaryContext, SummaryOptions } from '../section.ts';
import type { CaseRowView } from '../views.ts';
import type { ErrorsData } from './errors.ts';

export interface HeaderData {
  run: SummaryOptions['run'] & { seed: string; resamples: number };
  models: string[];
  categories: string[];
  /** cases with a result (total), scored, unscored, contested; failed: cases the subject gave no answer for */
  cases: { total: number; scored: number; unscored: number; contested: number; failed: number };
  partial: { cases: number; cells: number } | null;
}

function cases(rows: readonly CaseRowView[], failed: number): HeaderData['cases'] {
  const scored = rows.filter((r) => !r.scores.unscored);
  return {
    total: rows.length,
    scored: scored.length,
    unscored: rows.length - scored.length,
    contested: scored.filter((r) => r.scores.contested).length,
    failed,
  };
}

/** Partial: cases were left out (a filter, a shard alone), not merely failed (errors count as cases). */
function partial(rows: readonly CaseRowView[], opts: SummaryOptions): HeaderData['partial'] {
  const reported = rows.length + (opts.errors?.length ?? 0);
  return opts.cells !== undefined && reported < opts.cells ? { cases: reported, cells: opts.cells } : null;
}

function headerLines(s: HeaderData & ErrorsData): string[] {
  const out: string[] = [`# rge run ${s.run.runId}`, ''];
  if (s.partial)
    out.push(
      `**Partial report**: ${s.partial.cases} of the run's ${s.partial.cells} cases (a filtered run, e.g. \`-t\`); the full report of this run is not overwritten.`,
      '',
    );
  const failed = s.cases.failed;
  out.push(
    `${s.cases.total} cases (${s.models.length} subjects), ${s.cases.scored} scored, ${s.cases.unscored} unscored, ${s.cases.contested} contested, ${s.diagnostics.errors.count} errors (cases without a result${failed > 0 ? `: ${failed} the subject gave no answer for, scored 0 in the ranking` : ''}).`,
    '',
  );
  return out;
}

const section: ReportSection<HeaderData, HeaderData & ErrorsData> = {
  id: 'header',
  place: 'first-screen',
  compute: (c: SummaryContext) => ({
    run: { ...c.opts.run, seed: c.seed, resamples: c.resamples },
    models: c.models,
    categories: c.categories,
    cases: cases(c.rows, c.failed.length),
    partial: partial(c.rows, c.opts),
  }),
  render: headerLines,
};
export default section;
