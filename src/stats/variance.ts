export interface VarianceRow {
  question: string;
  run: number;
  value: number;
}

export interface VarianceDecomposition {
  /** sqrt(withinQuestionVariance): the typical run-to-run SD of one question's score */
  withinQuestionSD: number;
  /** each question's sample SD over its runs (ddof = 1); NaN for a question with a single run */
  perQuestionSD: Record<string, number>;
  /** sample variance (ddof = 1) of the per-question mean scores; NaN with fewer than 2 questions */
  betweenQuestionVariance: number;
  /** mean of the per-question sample variances (ddof = 1) over questions with >= 2 runs; NaN if none */
  withinQuestionVariance: number;
}

/** numpy's two-pass sample variance: mean first, then sum((x - mean)^2) / (n - 1). */
function sampleVariance(xs: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return Number.NaN;
  let sum = 0;
  for (const x of xs) sum += x;
  const mean = sum / n;
  let ss = 0;
  for (const x of xs) ss += (x - mean) * (x - mean);
  return ss / (n - 1);
}

/**
 * Splits the variation of repeated-run scores into run-to-run noise within a question and spread
 * between questions. Definitions (numpy, ddof = 1 throughout):
 * - perQuestionSD[q] = np.std(values of q, ddof=1); NaN when q has a single run;
 * - withinQuestionVariance = mean over questions with >= 2 runs of np.var(values of q, ddof=1)
 *   (unweighted: every such question counts once, whatever its number of runs);
 * - withinQuestionSD = sqrt(withinQuestionVariance);
 * - betweenQuestionVariance = np.var(question means, ddof=1) over all questions.
 * With no question having 2 runs the within terms are NaN; with one question the between term is NaN.
 *
 * Throws RangeError for no rows, a non-finite value or run, or the same (question, run) twice;
 * TypeError for a row whose question is not a string.
 */
export function varianceDecomposition(rows: readonly VarianceRow[]): VarianceDecomposition {
  const fn = 'varianceDecomposition';
  if (!Array.isArray(rows)) throw new TypeError(`${fn}: rows must be an array`);
  if (rows.length === 0) throw new RangeError(`${fn}: rows is empty`);
  const byQuestion = new Map<string, { runs: Set<number>; values: number[] }>();
  rows.forEach((row, i) => {
    if (row === null || typeof row !== 'object') throw new TypeError(`${fn}: rows[${i}] is not an object`);
    const { question, run, value } = row;
    if (typeof question !== 'string') throw new TypeError(`${fn}: rows[${i}].question must be a string`);
    if (typeof run !== 'number' || !Number.isFinite(run)) {
      throw new RangeError(`${fn}: rows[${i}].run must be a finite number, got ${String(run)}`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new RangeError(`${fn}: rows[${i}].value must be a finite number, got ${String(value)}`);
    }
    let group = byQuestion.get(question);
    if (!group) {
      group = { runs: new Set(), values: [] };
      byQuestion.set(question, group);
    }
    if (group.runs.has(run)) throw new RangeError(`${fn}: question ${question} has run ${run} twice`);
    group.runs.add(run);
    group.values.push(value);
  });

  const perQuestionSD: [string, number][] = [];
  const means: number[] = [];
  let varianceSum = 0;
  let withRuns = 0;
  for (const [question, { values }] of byQuestion) {
    const variance = sampleVariance(values);
    perQuestionSD.push([question, Math.sqrt(variance)]);
    if (values.length >= 2) {
      varianceSum += variance;
      withRuns++;
    }
    let sum = 0;
    for (const v of values) sum += v;
    means.push(sum / values.length);
  }
  const withinQuestionVariance = withRuns > 0 ? varianceSum / withRuns : Number.NaN;
  return {
    withinQuestionSD: Math.sqrt(withinQuestionVariance),
    // fromEntries defines own properties, so a question named "__proto__" is kept like any other
    perQuestionSD: Object.fromEntries(perQuestionSD),
    betweenQuestionVariance: sampleVariance(means),
    withinQuestionVariance,
  };
}
