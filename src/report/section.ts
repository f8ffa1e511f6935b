/**
 * A report section as a value (docs/adr/0037-report-sections-as-values.md): the fields it adds to
 * summary.json, computed from the run's case rows; its markdown, rendered from the summary; and its place
 * on the page. The sections stand in one list, in the report's order (src/report/sections.ts): `summarise`
 * walks it to build the summary, `renderMarkdown` to write summary.md. A section is one file of
 * src/report/sections/ and one line of that list.
 *
 * One convention for every renderer: `render(summary, ctx)` returns the section's lines (none when it has
 * nothing to show), reading only the summary's fields its type names, so the report can be rendered
 * again from a summary.json alone.
 */
import type { LabelView, ReviewRecordView } from '../validation/summary.ts';
import type { SubjectFailure } from './outcomes.ts';
import type { GfsTable, RowsBySubject } from './scores.ts';
import type { CaseErrorView, CaseRowView, GfsWeightsView, RunBudgetView, RunDescription } from './views.ts';

/**
 * Where a section stands: on the first screen (what a run is for: who is best, by how much, is it real;
 * the reader sees it without scrolling), or below it. The list keeps the first screen's sections first.
 */
export const PLACES = ['first-screen', 'below'] as const;
export type Place = (typeof PLACES)[number];

export interface SummaryOptions {
  seed: string;
  resamples?: number;
  /** the mean correctness at which a (question, run) counts as correct for McNemar (default 1.5) */
  correctAt?: number;
  run: { runId: string; configHash: string; indexChecksum: string; questionsHash: string };
  /** the run state's estimate and spend, when the stages recorded one */
  budget?: RunBudgetView | null;
  /** what was run, and how many cells the run has (fewer cases: a partial report) */
  describe?: RunDescription | null;
  cells?: number;
  /**
   * cases that failed without a result row (their test name and error, and their cell and whose failure
   * it was when the case said), counted and listed; a subject's own failure scores 0 in the ranking
   */
  errors?: readonly CaseErrorView[];
  /** the people's labels and the contested reviews of this run's responses (by answer key) */
  validation?: {
    labels: readonly LabelView[];
    reviews: readonly ReviewRecordView[];
    minKappa: number;
    limitation?: string | null;
  } | null;
  /** the run's GFS weights, for the people's GFS of the labelled cells (default: the methodology's) */
  gfsWeights?: GfsWeightsView;
}

/**
 * What every section computes from: the case rows and the options, grouped once. Figures more than one
 * section reads are computed here once: the GFS table (the GFS section shows it, the ranking orders by it).
 */
export interface SummaryContext {
  readonly rows: readonly CaseRowView[];
  readonly opts: SummaryOptions;
  readonly seed: string;
  readonly resamples: number;
  /** the cases that failed without a result row */
  readonly errors: readonly CaseErrorView[];
  /** of them, the cases the subject gave no answer for (its own failure) */
  readonly failed: readonly SubjectFailure[];
  /** the subjects and categories of the rows and the failures, sorted */
  readonly models: string[];
  readonly categories: string[];
  /** each subject's rows (its answered cases) */
  readonly bySubject: RowsBySubject;
  /** what the ranking reads: the answered cases, and the subject's own failures scored 0 */
  readonly ranked: RowsBySubject;
  /** GFS per subject and category over `ranked` */
  readonly gfs: GfsTable;
}

/** What a renderer is told besides the summary. */
export interface RenderContext {
  /** the GFS chart's file, beside summary.md (src/report/chart-svg.ts); no chart is linked without it */
  chartFile?: string;
}

/**
 * One section. `Data` is what it adds to summary.json (its fields, each computed by this section only);
 * `Reads` is what its renderer reads of the summary: its own fields and others'. A section that only shows
 * other sections' figures computes nothing.
 */
export interface ReportSection<Data extends object = object, Reads = Data> {
  /** unique in the list, kebab-case; the section's file is src/report/sections/<id>.ts */
  readonly id: string;
  readonly place: Place;
  readonly compute?: (ctx: SummaryContext) => Data;
  readonly render: (summary: Reads, ctx: RenderContext) => string[];
}

/** Any section, whatever it computes and reads (what a list of sections holds). */
export type AnySection = ReportSection<object, never>;

/** The fields a section adds to the summary. */
export type SectionData<S> = S extends ReportSection<infer Data, never> ? Data : never;

type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The summary a list of sections computes: every section's fields together. */
export type SummaryOf<L extends readonly AnySection[]> = Intersection<SectionData<L[number]>>;
