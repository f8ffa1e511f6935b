/**
 * Every number of a run's report, computed from its case rows with `src/stats`. Pure: the same rows
 * and seed give the same summary, so a reader can recompute any figure from `data/results/`.
 *
 * One function per section (src/report/scores.ts, operations.ts, diagnostics.ts, stops.ts,
 * validation.ts) returns its part of the Summary; `summarise` only groups the rows and composes them,
 * in the key order summary.json keeps. A new section is a new function and one line here.
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

import {
  type LabelView,
  type ReviewRecordView,
  type ValidationSummary,
  validationSummary,
} from '../validation/summary.ts';
import { type Consistency, consistency } from './consistency.ts';
import { type CorrectedGfs, correctedGfs } from './corrected.ts';
import {
  CORRECT_AT,
  type Diagnostics,
  diagnostics,
  interJudgeAgreement,
  type JudgeAgreement,
} from './diagnostics.ts';
import { type EvidenceSection, evidenceSection } from './evidence.ts';
import { type FailureKinds, failureKinds } from './failures.ts';
import {
  type BudgetSection,
  budget,
  type Caching,
  type CheckRate,
  caching,
  checkPassRates,
  cost,
  latency,
} from './operations.ts';
import { type Outcomes, outcomes, rankedRows, subjectFailures } from './outcomes.ts';
import { type PowerSection, powerSection } from './power.ts';
import { type RankProbabilities, rankProbabilities } from './ranks.ts';
import {
  type GfsTable,
  gfsTable,
  type PairwiseMethod,
  type PairwiseTest,
  pairwise,
  type Ranking,
  type RowsBySubject,
  ranking,
  type VarianceTable,
  variance,
} from './scores.ts';
import { type StopCounts, stopCounts } from './stops.ts';
import type { CaseErrorView, CaseRowView, GfsWeightsView, RunBudgetView, RunDescription } from './views.ts';

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

export interface Summary {
  run: SummaryOptions['run'] & { seed: string; resamples: number };
  models: string[];
  categories: string[];
  /** cases with a result (total), scored, unscored, contested; failed: cases the subject gave no answer for */
  cases: { total: number; scored: number; unscored: number; contested: number; failed: number };
  /** per subject: its cases by outcome (answered, unscored, failed, not computed), its answered-only GFS */
  outcomes: Outcomes;
  /** per subject and category, a subject's own failures scored 0 */
  gfs: GfsTable;
  ranking: Ranking;
  /** each subject's bootstrap probability of ranking first and rank interval, both weightings (null: one subject) */
  ranks: RankProbabilities | null;
  pairwise: PairwiseTest[];
  /** how the pairs are tested: the test, pass/fail's, the correction and its family */
  pairwiseMethod: PairwiseMethod;
  /** the minimal detectable difference of each comparison, and the inputs of `rge plan` */
  power: PowerSection;
  /** the judge-error-corrected GFS from the people's labels (prediction-powered inference) */
  corrected: CorrectedGfs;
  variance: VarianceTable;
  /** per subject and category: pass^k, flip and never rates over questions, with Wilson intervals */
  consistency: Consistency;
  /** per subject (its two judges), then averaged over subjects; beside the same on the labelled responses */
  judgeAgreement: JudgeAgreement;
  contested: { question_id: string; subject_id: string; run_index: number; dimensions: readonly string[] }[];
  checkPassRates: Record<string, Record<string, CheckRate>>;
  latency: Record<string, { p50: number; p95: number }>;
  cost: Record<string, number>;
  /** per subject: the cost of its cases' calls (answers and verdicts), without caching, and tokens */
  caching: Record<string, Caching>;
  /** the pre-flight estimate against what the run spent, per provider, model and role */
  budget: BudgetSection | null;
  promptHashes: { subject: string[]; judge: string[] };
  /** table 5.5 (judges against people) and the contested responses with their review */
  validation: ValidationSummary;
  /** retrieval hit@k, the worst and contested cases in detail, errors, every cell's scores */
  diagnostics: Diagnostics;
  /** per subject and category, the gold evidence its passages held; its failing cases by cause */
  evidence: EvidenceSection | null;
  /** the failing cases by kind (one kind each, in a stated precedence), per subject, one example a kind */
  failures: FailureKinds;
  /** how the answers and verdict replies ended, per model */
  stops: StopCounts;
  /** what was run (from the run's description), and whether the report is partial */
  describe: RunDescription | null;
  partial: { cases: number; cells: number } | null;
}

const distinctSorted = (xs: readonly string[]) => [...new Set(xs)].sort();

function cases(rows: readonly CaseRowView[], failed: number): Summary['cases'] {
  const scored = rows.filter((r) => !r.scores.unscored);
  return {
    total: rows.length,
    scored: scored.length,
    unscored: rows.length - scored.length,
    contested: scored.filter((r) => r.scores.contested).length,
    failed,
  };
}

function contested(rows: readonly CaseRowView[]): Summary['contested'] {
  return rows
    .filter((r) => !r.scores.unscored && r.scores.contested)
    .map((r) => ({
      question_id: r.question_id,
      subject_id: r.subject_id,
      run_index: r.run_index,
      dimensions: r.scores.contestedDimensions,
    }));
}

/** Partial: cases were left out (a filter, a shard alone), not merely failed (errors count as cases). */
function partial(rows: readonly CaseRowView[], opts: SummaryOptions): Summary['partial'] {
  const reported = rows.length + (opts.errors?.length ?? 0);
  return opts.cells !== undefined && reported < opts.cells ? { cases: reported, cells: opts.cells } : null;
}

function validation(rows: readonly CaseRowView[], opts: SummaryOptions): ValidationSummary {
  return validationSummary(
    rows,
    opts.validation?.labels ?? [],
    opts.validation?.reviews ?? [],
    opts.validation?.minKappa,
    opts.validation?.limitation ?? null,
  );
}

export function summarise(rows: readonly CaseRowView[], opts: SummaryOptions): Summary {
  const resamples = opts.resamples ?? 10_000;
  const errors = opts.errors ?? [];
  const failed = subjectFailures(errors);
  const models = distinctSorted([...rows, ...failed].map((r) => r.subject_id));
  const categories = distinctSorted([...rows, ...failed].map((r) => r.category));
  const bySubject: RowsBySubject = new Map(models.map((m) => [m, rows.filter((r) => r.subject_id === m)]));
  // what the ranking reads: the answered cases, and the subject's own failures scored 0
  const ranked = failed.length === 0 ? bySubject : rankedRows(models, bySubject, failed);
  const gfs = gfsTable(ranked, categories, opts.seed, resamples);
  const pairs = pairwise(ranked, { seed: opts.seed, correctAt: opts.correctAt ?? CORRECT_AT });
  return {
    run: { ...opts.run, seed: opts.seed, resamples },
    models,
    categories,
    cases: cases(rows, failed.length),
    outcomes: outcomes(bySubject, failed, errors, { seed: opts.seed, resamples }),
    gfs,
    ranking: ranking(ranked, gfs),
    ranks: rankProbabilities(ranked, opts.seed, resamples),
    pairwise: pairs.tests,
    pairwiseMethod: pairs.method,
    power: powerSection(ranked, pairs.tests, bySubject),
    corrected: correctedGfs(bySubject, opts.validation?.labels ?? [], opts.gfsWeights),
    variance: variance(ranked),
    consistency: consistency(ranked),
    judgeAgreement: interJudgeAgreement(bySubject, opts.validation?.labels ?? []),
    contested: contested(rows),
    checkPassRates: checkPassRates(bySubject),
    latency: latency(bySubject),
    cost: cost(bySubject),
    caching: caching(bySubject),
    budget: budget(opts.budget ?? null),
    diagnostics: diagnostics(rows, errors, failed),
    evidence: evidenceSection(rows),
    failures: failureKinds(rows),
    stops: stopCounts(rows),
    describe: opts.describe ?? null,
    partial: partial(rows, opts),
    validation: validation(rows, opts),
    promptHashes: {
      subject: distinctSorted(rows.map((r) => r.subject_prompt_hash)),
      judge: distinctSorted(rows.map((r) => r.judge_prompt_hash)),
    },
  };
}
