/**
 * The report's sections, in the order the report shows them (docs/adr/0037-report-sections-as-values.md).
 * `summarise` walks this list to build the summary (summary.json), `renderMarkdown` to write summary.md:
 * each section is a value (src/report/section.ts) in a file of its own under src/report/sections/.
 *
 * Adding a section: write src/report/sections/<id>.ts (its data, compute, render and place, its value the
 * file's default export) and add one line here where the report should show it. Its fields join the
 * summary's type and summary.json (after the fields summary.json already had: src/report/summary.ts).
 */
import agreement from './sections/agreement.ts';
import answer from './sections/answer.ts';
import budget from './sections/budget.ts';
import caching from './sections/caching.ts';
import checks from './sections/checks.ts';
import consistency from './sections/consistency.ts';
import corrected from './sections/corrected.ts';
import drilldown from './sections/drilldown.ts';
import errors from './sections/errors.ts';
import evidence from './sections/evidence.ts';
import failureKinds from './sections/failure-kinds.ts';
import gfs from './sections/gfs.ts';
import header from './sections/header.ts';
import latency from './sections/latency.ts';
import noAnswer from './sections/no-answer.ts';
import pairwise from './sections/pairwise.ts';
import ranking from './sections/ranking.ts';
import retrieval from './sections/retrieval.ts';
import stops from './sections/stops.ts';
import validation from './sections/validation.ts';
import variance from './sections/variance.ts';
import whatWasRun from './sections/what-was-run.ts';

/**
 * The answer first (the title and counts, the ranking with its intervals, significance and MDD), then the
 * failing cases by kind, then the detail per category and per concern, and what was run (the provenance:
 * config, models, hashes) last.
 */
export const REPORT_SECTIONS = [
  header,
  answer,
  failureKinds,
  noAnswer,
  gfs,
  corrected,
  ranking,
  pairwise,
  variance,
  consistency,
  agreement,
  retrieval,
  evidence,
  checks,
  stops,
  latency,
  caching,
  budget,
  validation,
  drilldown,
  errors,
  whatWasRun,
] as const;
