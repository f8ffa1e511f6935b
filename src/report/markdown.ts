/**
 * The run report a reviewer reads: `reports/<run_id>/summary.md`, its sections in the list's order
 * (src/report/sections.ts), with the GFS chart beside it (src/report/chart-svg.ts) and `summary.json`
 * with the same numbers (src/report/summary.ts).
 */
import type { AnySection, RenderContext, ReportSection, SummaryOf } from './section.ts';
import { REPORT_SECTIONS } from './sections.ts';
import type { Summary } from './summary.ts';

/**
 * The report in the order a reader needs it: the answer first (ranking, intervals, significance, MDD),
 * then the failing cases by kind, then the detail per category and per concern, and what was run (the
 * provenance: config, models, hashes) last.
 */
export function renderMarkdown(summary: Summary, ctx: RenderContext = {}): string {
  // compiles only while every section reads fields the list computes, with their types
  const sections: readonly ReportSection<object, Summary>[] = REPORT_SECTIONS;
  return renderSections(sections, summary, ctx);
}

/** The markdown of a list of sections over the summary it computed: each section's lines, in order. */
export function renderSections<const L extends readonly AnySection[]>(
  sections: L,
  summary: SummaryOf<L>,
  ctx: RenderContext = {},
): string {
  const out = sections.flatMap((section) => section.render(summary as never, ctx));
  return `${out.join('\n')}\n`;
}
