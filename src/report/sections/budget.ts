/**
 * The pre-flight estimate against what the run spent, line by line, from the run state; nothing when the
 * run has no budget. In summary.json, `budget`.
 */
import { type BudgetSection, budget } from '../operations.ts';
import type { ReportSection } from '../section.ts';
import { tableHead } from './format.ts';

export interface BudgetData {
  /** the pre-flight estimate against what the run spent, per provider, model and role */
  budget: BudgetSection | null;
}

/** The pre-flight estimate against what the run spent, line by line; nothing when the run has no budget. */
function budgetSection(s: BudgetData): string[] {
  if (!s.budget) return [];
  const b = s.budget;
  const ratio = (actual: number, expected: number) =>
    expected > 0 ? `${(actual / expected).toFixed(2)}x` : 'n/a';
  const out: string[] = [
    `## Budget: the pre-flight estimate against what the run spent (${b.mode} mode)`,
    '',
  ];
  out.push(
    ...tableHead([
      'role',
      'model',
      'calls estimated',
      'expected USD',
      'worst case USD',
      'calls made',
      'spent USD',
      'spent / expected',
    ]),
  );
  for (const l of b.lines)
    out.push(
      `| ${l.role} | ${l.provider}/${l.model} | ${l.calls} | ${l.expectedUsd.toFixed(4)} | ${l.worstUsd.toFixed(4)} | ${l.actualCalls} | ${l.actualUsd.toFixed(4)} | ${ratio(l.actualUsd, l.expectedUsd)} |`,
    );
  out.push(
    `| total | | | ${b.totals.expectedUsd.toFixed(4)} | ${b.totals.worstUsd.toFixed(4)} | | ${b.totals.actualUsd.toFixed(4)} | ${ratio(b.totals.actualUsd, b.totals.expectedUsd)} |`,
    '',
  );
  out.push(
    `Naive sync calls without caching were estimated at $${b.totals.naiveUsd.toFixed(4)}.` +
      (b.totals.unknownUsd > 0
        ? ` Unknown, not spent: up to $${b.totals.unknownUsd.toFixed(4)} for calls in flight when a process of the run was killed, whose replies never reached rge (possibly billed, at most their worst case; counted against the cap, not in the spent column).`
        : ''),
    '',
  );
  for (const w of b.warnings) out.push(`- Budget warning: ${w}`);
  if (b.stopped) out.push(`- **The run stopped before every cell was asked**: ${b.stopped}`);
  if (b.warnings.length > 0 || b.stopped) out.push('');
  return out;
}

const section: ReportSection<BudgetData> = {
  id: 'budget',
  place: 'below',
  compute: (c) => ({ budget: budget(c.opts.budget ?? null) }),
  render: budgetSection,
};
export default section;
