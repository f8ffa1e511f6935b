/**
 * Every number of a run's report, computed from its case rows with `src/stats`. Pure: the same rows
 * and seed give the same summary, so a reader can recompute any figure from `data/results/`.
 *
 * The summary is what the report's sections compute (src/report/sections.ts, in the report's order):
 * `summarise` groups the rows once (the context every section computes from) and walks the list, each
 * section adding its own fields; summary.json keeps its fields in the order it has always had
 * (SUMMARY_FIELD_ORDER), a new section's fields after them in the list's order.
 *
 * Definitions (also printed in the report):
 * - A case's GFS is from the mean of its two judges' dimension scores; unscored cases are excluded
 *   from means and counted separately (a judge's failure is data, not a zero).
 * - A subject's own failure (it gave no answer: a user's system crashed, timed out, exited non-zero,
 *   replied malformed or with an HTTP error, broke the contract) is a wrong answer for the user: it
 *   scores 0 on every dimension and GFS 0 in the ranking, the pairwise tests and the gate, with the
 *   answered-only GFS beside it (src/report/outcomes.ts); a case not computed because the run stopped is
 *   listed under Errors and left out.
 * - Intervals: BCa 95 %, 10,000 resamples, resampling questions with their runs kept together
 *   (cluster bootstrap), seeded with `${seed}:${category}:${weighting}` (one seed for all subjects: the
 *   same question draws, which the ranking's probabilities reuse).
 * - Pairwise comparison: GFS (the headline) and each dimension by the paired sign-flip test over
 *   questions that `rge gate` uses (docs/adr/0028); pass/fail by McNemar on binarised correctness at
 *   the (question, run index) level (methodology 8.2), a cell being correct when the judges' mean
 *   correctness is at least 1.5; each measure's p-values Bonferroni-corrected over the pairs of subjects.
 * - Inter-judge agreement (8.4): Cohen's kappa between a subject's two judges per dimension, then the
 *   mean over subjects; the same on the human-labelled responses, divergence flagged.
 * - Ranking: models ordered by overall mean GFS; robust when both weightings give the same order and
 *   no two adjacent models' primary intervals overlap; beside it, each model's bootstrap probability of
 *   ranking first and its rank interval, from the `all` column's resamples (src/report/ranks.ts).
 * - Power (src/report/power.ts): the minimal detectable difference of each pairwise comparison, and
 *   what `rge plan` needs of each subject (variance components, cost of a first and a later run).
 * - Judge-error-corrected GFS (src/report/corrected.ts): prediction-powered inference from the people's
 *   labels of the validation sample, per subject and per category with at least 10 labelled cells.
 */

import { rankedRows, subjectFailures } from './outcomes.ts';
import { gfsTable, type RowsBySubject } from './scores.ts';
import type { AnySection, SummaryContext, SummaryOf, SummaryOptions } from './section.ts';
import { REPORT_SECTIONS } from './sections.ts';
import type { CaseRowView } from './views.ts';

export type { SummaryOptions } from './section.ts';

/** A run's summary: every field the report's sections compute (summary.json). */
export type Summary = SummaryOf<typeof REPORT_SECTIONS>;

/**
 * summary.json's fields in the order it has written them since before the sections were values (its
 * bytes do not change with the list's order); a field not here follows them, in the list's order.
 */
export const SUMMARY_FIELD_ORDER = [
  'run',
  'models',
  'categories',
  'cases',
  'outcomes',
  'gfs',
  'ranking',
  'ranks',
  'pairwise',
  'pairwiseMethod',
  'power',
  'corrected',
  'variance',
  'consistency',
  'judgeAgreement',
  'contested',
  'checkPassRates',
  'latency',
  'cost',
  'caching',
  'budget',
  'diagnostics',
  'evidence',
  'failures',
  'stops',
  'describe',
  'partial',
  'validation',
  'promptHashes',
] as const satisfies readonly (keyof Summary)[];

const distinctSorted = (xs: readonly string[]) => [...new Set(xs)].sort();

/** The rows grouped once, and the figures more than one section reads. */
export function summaryContext(rows: readonly CaseRowView[], opts: SummaryOptions): SummaryContext {
  const resamples = opts.resamples ?? 10_000;
  const errors = opts.errors ?? [];
  const failed = subjectFailures(errors);
  const models = distinctSorted([...rows, ...failed].map((r) => r.subject_id));
  const categories = distinctSorted([...rows, ...failed].map((r) => r.category));
  const bySubject: RowsBySubject = new Map(models.map((m) => [m, rows.filter((r) => r.subject_id === m)]));
  // what the ranking reads: the answered cases, and the subject's own failures scored 0
  const ranked = failed.length === 0 ? bySubject : rankedRows(models, bySubject, failed);
  const gfs = gfsTable(ranked, categories, opts.seed, resamples);
  return {
    rows,
    opts,
    seed: opts.seed,
    resamples,
    errors,
    failed,
    models,
    categories,
    bySubject,
    ranked,
    gfs,
  };
}

/** The summary of the report's sections. */
export function summarise(rows: readonly CaseRowView[], opts: SummaryOptions): Summary {
  return summariseSections(REPORT_SECTIONS, rows, opts);
}

/**
 * The summary a list of sections computes: each section's fields, in SUMMARY_FIELD_ORDER and then in the
 * list's order. A field two sections compute is a mistake in the list, and throws.
 */
export function summariseSections<const L extends readonly AnySection[]>(
  sections: L,
  rows: readonly CaseRowView[],
  opts: SummaryOptions,
): SummaryOf<L> {
  const ctx = summaryContext(rows, opts);
  const fields = new Map<string, unknown>();
  for (const section of sections)
    for (const [field, value] of Object.entries(section.compute?.(ctx) ?? {})) {
      if (fields.has(field))
        throw new Error(`report section ${section.id}: summary field ${field} is another section's`);
      fields.set(field, value);
    }
  const known: readonly string[] = SUMMARY_FIELD_ORDER;
  const order = [
    ...known.filter((f) => fields.has(f)),
    ...[...fields.keys()].filter((f) => !known.includes(f)),
  ];
  return Object.fromEntries(order.map((f) => [f, fields.get(f)])) as SummaryOf<L>;
}
