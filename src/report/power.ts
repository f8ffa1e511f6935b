/**
 * How much a run can tell (docs/adr/0022-power-mdd-plan-ranking.md), for the report and for `rge plan`:
 * - per pair of subjects, the paired GFS differences (a - b) over the (question, run) cells the pairwise
 *   tests read (both have a score for; a subject's own failure scored 0): their mean, variance
 *   components (between questions, run to run) and the minimal detectable difference of the paired
 *   sign-flip test of GFS at 80 % power and the pair's level, Bonferroni over the pairs tested, from the
 *   cluster-robust standard error (runs nested in questions) with Student's t on the questions' df;
 * - per subject, what a plan of a new run needs: the variance components of its primary GFS, its
 *   questions and runs, and what a question's first run and each further run cost (the first writes
 *   the prompt cache that the others read, at the catalogue's prices and the run's batch mode); the
 *   variance over the cells the ranking reads, the costs over the answered cases (a case the subject gave
 *   no answer for cost rge nothing, and says nothing of what an answer costs).
 * Pure.
 */
import { minimalDetectableDifference, nestedComponents } from '../stats/index.ts';
import { type PairwiseTest, pairedCells, type RowsBySubject } from './scores.ts';
import type { CaseRowView } from './views.ts';

export const REPORT_POWER = 0.8;
export const REPORT_ALPHA = 0.05;

export interface ComparisonPower {
  a: string;
  b: string;
  /** (question, run) cells both subjects scored, and their questions */
  cells: number;
  questions: number;
  /** mean primary GFS of a minus b over those cells */
  difference: number;
  betweenQuestionVariance: number;
  withinQuestionVariance: number | null;
  standardError: number | null;
  /** the two-sided level the MDD is at: 0.05 / the pairs tested */
  alpha: number;
  /** the minimal detectable difference in GFS at 80 % power (null with fewer than 2 shared questions) */
  mdd: number | null;
}

export interface SubjectPlanInputs {
  questions: number;
  cells: number;
  runsPerQuestion: number;
  /** tau^2 of the subject's primary GFS (between questions, floored at 0) and sigma^2 (run to run) */
  betweenQuestionVariance: number;
  withinQuestionVariance: number | null;
  /** mean cost of a question's first run and of each later run (answer and both verdicts), USD */
  cost: { firstRunUsd: number; repeatRunUsd: number | null; firstRunCells: number; repeatRunCells: number };
}

export interface PowerSection {
  power: number;
  alpha: number;
  /** the pairs tested: the Bonferroni family of the pairwise comparisons */
  family: number;
  comparisons: ComparisonPower[];
  subjects: Record<string, SubjectPlanInputs>;
}

const scoredGfs = (rows: readonly CaseRowView[]) =>
  rows.filter((r) => !r.scores.unscored && r.scores.gfsPrimary !== null);
const finiteOrNull = (x: number) => (Number.isFinite(x) ? x : null);

function comparison(a: string, b: string, bySubject: RowsBySubject, alpha: number): ComparisonPower | null {
  const diffs = pairedCells(bySubject.get(a) ?? [], bySubject.get(b) ?? []).map(([x, y]) => ({
    cluster: x.question_id,
    value: (x.scores.gfsPrimary as number) - (y.scores.gfsPrimary as number),
  }));
  if (diffs.length === 0) return null;
  const c = nestedComponents(diffs);
  return {
    a,
    b,
    cells: c.cells,
    questions: c.questions,
    difference: c.mean,
    betweenQuestionVariance: c.betweenQuestionVariance,
    withinQuestionVariance: finiteOrNull(c.withinQuestionVariance),
    standardError: finiteOrNull(c.standardError),
    alpha,
    // Student's t on the questions' df, as the gate's MDD (docs/adr/0028-gate-sign-flip.md)
    mdd:
      Number.isFinite(c.standardError) && c.questions >= 2
        ? minimalDetectableDifference(c.standardError, { alpha, power: REPORT_POWER, df: c.questions - 1 })
        : null,
  };
}

function planInputs(
  ranked: readonly CaseRowView[],
  answered: readonly CaseRowView[],
): SubjectPlanInputs | null {
  const scored = scoredGfs(ranked);
  if (scored.length === 0) return null;
  const c = nestedComponents(
    scored.map((r) => ({ cluster: r.question_id, value: r.scores.gfsPrimary as number })),
  );
  // a question's first run (its lowest run index among all its cases) writes the caches the others read
  const rows = answered;
  const firstRun = new Map<string, number>();
  for (const r of rows)
    firstRun.set(r.question_id, Math.min(firstRun.get(r.question_id) ?? r.run_index, r.run_index));
  const first = rows.filter((r) => firstRun.get(r.question_id) === r.run_index);
  const repeat = rows.filter((r) => firstRun.get(r.question_id) !== r.run_index);
  const meanCost = (xs: readonly CaseRowView[]) => xs.reduce((s, r) => s + r.cost_usd, 0) / xs.length;
  return {
    questions: c.questions,
    cells: c.cells,
    runsPerQuestion: c.runsPerQuestion,
    betweenQuestionVariance: c.betweenQuestionVariance,
    withinQuestionVariance: finiteOrNull(c.withinQuestionVariance),
    cost: {
      firstRunUsd: first.length === 0 ? 0 : meanCost(first),
      repeatRunUsd: repeat.length === 0 ? null : meanCost(repeat),
      firstRunCells: first.length,
      repeatRunCells: repeat.length,
    },
  };
}

/**
 * The comparisons' MDDs (pairs in the order of the pairwise tests) and every subject's plan inputs, from
 * the rows the ranking reads (`bySubject`: a subject's own failures scored 0) and, for costs, its
 * answered cases.
 */
export function powerSection(
  bySubject: RowsBySubject,
  pairwise: readonly PairwiseTest[],
  answered: RowsBySubject = bySubject,
): PowerSection {
  const tested = pairwise.filter((p) => p.gfs !== null);
  const family = Math.max(1, tested.length);
  const alpha = REPORT_ALPHA / family;
  const subjects: Record<string, SubjectPlanInputs> = {};
  for (const [m, rows] of bySubject) {
    const inputs = planInputs(rows, answered.get(m) ?? []);
    if (inputs) subjects[m] = inputs;
  }
  return {
    power: REPORT_POWER,
    alpha: REPORT_ALPHA,
    family: tested.length,
    comparisons: tested.flatMap((p) => comparison(p.a, p.b, bySubject, alpha) ?? []),
    subjects,
  };
}
