/**
 * The judge-error-corrected GFS (prediction-powered inference, docs/adr/0021-judge-error-corrected-gfs.md):
 * per subject, and per category where the subject has at least MIN_LABELLED_PER_CATEGORY labelled
 * cells, the mean primary GFS the people would have given the whole run, estimated from the judges' GFS
 * of every scored cell and the people's GFS of the labelled ones (`ppiMean`, PPI++ tuned lambda), with
 * its 95 % interval, beside the judge-only mean.
 *
 * - The people's GFS of a labelled cell: each rubric dimension averaged over its labellers, then the
 *   run's GFS weights (the same formula as the judges' GFS).
 * - The validation sample is stratified by category (methodology 5.4: 10/10/20/10) and proportional
 *   across subjects, so within a subject a labelled cell of category c stands for N_c / n_c cells (its
 *   inclusion-probability weight: population share over sample share); the judges' mean is over all
 *   N scored cells of the subject (the labelled ones too), so it needs no weight.
 * - Runs are nested in questions: the standard error is cluster-robust by question, on both sides of
 *   the estimator at once (a labelled cell's question has unlabelled runs), see `ppiMean`'s `clusters`.
 * A subject whose corrected interval excludes its judge-only mean is flagged: the judges' error moves
 * its GFS by more than the sampling noise of the correction. Pure.
 */
import { ppiMean } from '../stats/index.ts';
import type { LabelView } from '../validation/summary.ts';
import { ALL, type RowsBySubject } from './scores.ts';
import type { CaseRowView, GfsWeightsView } from './views.ts';

/** A category's corrected GFS is reported from this many labelled cells of the subject on. */
export const MIN_LABELLED_PER_CATEGORY = 10;
export const CORRECTED_ALPHA = 0.05;

/** The methodology's weights (grounding 0.40, correctness 0.35, calibration 0.25). */
export const METHODOLOGY_WEIGHTS: GfsWeightsView = { correctness: 0.35, grounding: 0.4, calibration: 0.25 };

export interface CorrectedCell {
  /** the judges' mean primary GFS over the scored cells (the GFS table's estimate) */
  judgeOnly: number;
  /** scored cells, labelled ones among them, and their questions */
  cells: number;
  labelled: number;
  questions: number;
  /** the corrected estimate and its interval; null (with `reason`) when it cannot be computed */
  estimate: number | null;
  low: number | null;
  high: number | null;
  lambda: number | null;
  /** the people's mean GFS on the labelled cells (inclusion-weighted), for comparison */
  labelledHumanMean: number | null;
  /** the corrected interval excludes the judge-only mean */
  excludesJudgeOnly: boolean;
  reason: string | null;
}

export interface CorrectedGfs {
  alpha: number;
  minLabelledPerCategory: number;
  weights: GfsWeightsView;
  /** labelled cells of the run that were scored by the judges (unscored ones cannot be corrected) */
  labelled: number;
  /** per subject: `all` and each category with enough labelled cells */
  bySubject: Record<string, Record<string, CorrectedCell>>;
}

/** The people's GFS of each labelled answer: dimensions averaged over labellers, then the weights. */
function humanGfs(labels: readonly LabelView[], weights: GfsWeightsView): Map<string, number> {
  const byKey = new Map<string, LabelView[]>();
  for (const l of labels) byKey.set(l.answer_key, [...(byKey.get(l.answer_key) ?? []), l]);
  const out = new Map<string, number>();
  for (const [key, list] of byKey) {
    const mean = (d: keyof GfsWeightsView) => list.reduce((s, l) => s + l[d], 0) / list.length;
    out.set(
      key,
      (weights.grounding * mean('grounding') +
        weights.correctness * mean('correctness') +
        weights.calibration * mean('calibration')) /
        2,
    );
  }
  return out;
}

const gfsOf = (r: CaseRowView) => r.scores.gfsPrimary as number;

function correctedCell(
  population: readonly CaseRowView[],
  human: ReadonlyMap<string, number>,
  stratify: boolean,
): CorrectedCell {
  const labelled = population.filter((r) => r.answer_key !== undefined && human.has(r.answer_key));
  const judgeOnly = population.reduce((s, r) => s + gfsOf(r), 0) / population.length;
  const base = {
    judgeOnly,
    cells: population.length,
    labelled: labelled.length,
    questions: new Set(population.map((r) => r.question_id)).size,
  };
  const none = (reason: string): CorrectedCell => ({
    ...base,
    estimate: null,
    low: null,
    high: null,
    lambda: null,
    labelledHumanMean: null,
    excludesJudgeOnly: false,
    reason,
  });
  if (labelled.length < 2) return none(`${labelled.length} labelled cell(s): at least 2 are needed`);
  const inCategory = new Map<string, { cells: number; labelled: number }>();
  for (const r of population) {
    const slot = inCategory.get(r.category) ?? { cells: 0, labelled: 0 };
    slot.cells++;
    inCategory.set(r.category, slot);
  }
  for (const r of labelled) (inCategory.get(r.category) as { labelled: number }).labelled++;
  const unsampled = [...inCategory].filter(([, c]) => c.labelled === 0).map(([name]) => name);
  if (stratify && unsampled.length > 0)
    return none(
      `no labelled cell in ${unsampled.sort().join(', ')}: the correction cannot reach the whole run`,
    );
  // inclusion-probability weights: N_c / n_c (ppiMean rescales them to sum to n)
  const w = labelled.map((r) => {
    const c = inCategory.get(r.category) as { cells: number; labelled: number };
    return stratify ? c.cells / c.labelled : 1;
  });
  const y = labelled.map((r) => human.get(r.answer_key as string) as number);
  const ppi = ppiMean({
    y,
    yhat: labelled.map(gfsOf),
    yhatUnlabeled: population.map(gfsOf),
    w,
    lambda: 'tuned',
    alpha: CORRECTED_ALPHA,
    clusters: {
      labelled: labelled.map((r) => r.question_id),
      unlabelled: population.map((r) => r.question_id),
    },
  });
  const weightSum = w.reduce((s, x) => s + x, 0);
  return {
    ...base,
    estimate: ppi.estimate,
    low: ppi.low,
    high: ppi.high,
    lambda: ppi.lambda,
    labelledHumanMean: y.reduce((s, v, i) => s + v * (w[i] as number), 0) / weightSum,
    excludesJudgeOnly: judgeOnly < ppi.low || judgeOnly > ppi.high,
    reason: null,
  };
}

/**
 * The corrected GFS of every subject with a labelled scored cell (others are left out), overall and per
 * category with at least MIN_LABELLED_PER_CATEGORY labelled cells.
 */
export function correctedGfs(
  bySubject: RowsBySubject,
  labels: readonly LabelView[],
  weights: GfsWeightsView = METHODOLOGY_WEIGHTS,
): CorrectedGfs {
  const human = humanGfs(labels, weights);
  const out: CorrectedGfs['bySubject'] = {};
  let labelledTotal = 0;
  for (const [subject, rows] of bySubject) {
    const scored = rows.filter((r) => !r.scores.unscored && r.scores.gfsPrimary !== null);
    const labelled = scored.filter((r) => r.answer_key !== undefined && human.has(r.answer_key));
    if (labelled.length === 0) continue;
    labelledTotal += labelled.length;
    const cells: Record<string, CorrectedCell> = { [ALL]: correctedCell(scored, human, true) };
    const categories = [...new Set(labelled.map((r) => r.category))].sort();
    for (const c of categories) {
      const mine = scored.filter((r) => r.category === c);
      if (labelled.filter((r) => r.category === c).length >= MIN_LABELLED_PER_CATEGORY)
        cells[c] = correctedCell(mine, human, false);
    }
    out[subject] = cells;
  }
  return {
    alpha: CORRECTED_ALPHA,
    minLabelledPerCategory: MIN_LABELLED_PER_CATEGORY,
    weights,
    labelled: labelledTotal,
    bySubject: out,
  };
}
