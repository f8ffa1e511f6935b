/**
 * Power for a mean over (question, run) cells with runs nested in questions: the variance components of
 * the cells (between questions, within a question), the standard error of a design of Q questions and R
 * runs, the minimal detectable difference of a two-sided test, the power at an effect, and the questions
 * a design needs. The normal approximation throughout (the test the MDD is for is z = mean / SE at
 * level alpha, two-sided; the standard textbook formula, e.g. Cohen, Statistical Power Analysis, 1988,
 * and for clustered designs Donner and Klar, Design and Analysis of Cluster Randomization Trials, 2000).
 * See docs/adr/0022-power-mdd-plan-ranking.md.
 */
import { normalCdf, normalQuantile } from './distributions.ts';
import { studentTCdf, studentTQuantile } from './student.ts';
import { assertArray } from './validate.ts';

export interface NestedComponents {
  /** the mean over all cells */
  mean: number;
  /**
   * tau^2: the variance between questions of their true mean, by the method of moments:
   * var(question means, ddof 1) - sigma^2 mean(1 / m_q), floored at 0. With no question of two runs
   * the components cannot be told apart and all the variance is here.
   */
  betweenQuestionVariance: number;
  /**
   * sigma^2: the variance of a run around its question's mean, pooled over questions with two runs or
   * more (sum of squares / sum of (m_q - 1)); NaN when no question has two runs.
   */
  withinQuestionVariance: number;
  questions: number;
  cells: number;
  /** cells / questions */
  runsPerQuestion: number;
  /**
   * The cluster-robust standard error of the cell mean: sqrt(Q / (Q - 1) sum_q (S_q - m_q mean)^2 / N^2),
   * S_q a question's sum; with R runs to every question, sqrt(var(question means, ddof 1) / Q), the
   * unbiased estimate of tau^2 / Q + sigma^2 / (Q R) (the components are floored at 0, this is not).
   * NaN with fewer than 2 questions.
   */
  standardError: number;
}

/**
 * The variance components of cells grouped by question (`cluster`), e.g. the paired differences of two
 * runs cell by cell. Throws RangeError/TypeError for no rows, a non-string cluster or a non-finite value.
 */
export function nestedComponents(rows: readonly { cluster: string; value: number }[]): NestedComponents {
  const fn = 'nestedComponents';
  assertArray(fn, 'rows', rows);
  if (rows.length === 0) throw new RangeError(`${fn}: rows is empty`);
  const groups = new Map<string, number[]>();
  rows.forEach((row, i) => {
    if (row === null || typeof row !== 'object') throw new TypeError(`${fn}: rows[${i}] is not an object`);
    if (typeof row.cluster !== 'string') throw new TypeError(`${fn}: rows[${i}].cluster must be a string`);
    if (typeof row.value !== 'number' || !Number.isFinite(row.value))
      throw new RangeError(`${fn}: rows[${i}].value must be a finite number, got ${String(row.value)}`);
    const list = groups.get(row.cluster);
    if (list) list.push(row.value);
    else groups.set(row.cluster, [row.value]);
  });
  const cells = rows.length;
  const questions = groups.size;
  let total = 0;
  let withinSquares = 0;
  let withinDf = 0;
  let inverseSizes = 0;
  const means: number[] = [];
  const sizes: number[] = [];
  for (const values of groups.values()) {
    let sum = 0;
    for (const v of values) sum += v;
    total += sum;
    const m = sum / values.length;
    means.push(m);
    for (const v of values) withinSquares += (v - m) ** 2;
    withinDf += values.length - 1;
    inverseSizes += 1 / values.length;
    sizes.push(values.length);
  }
  const mean = total / cells;
  const within = withinDf > 0 ? withinSquares / withinDf : Number.NaN;
  let between = Number.NaN;
  if (questions >= 2) {
    let meanOfMeans = 0;
    for (const m of means) meanOfMeans += m;
    meanOfMeans /= questions;
    let ss = 0;
    for (const m of means) ss += (m - meanOfMeans) ** 2;
    const spread = ss / (questions - 1);
    between = Math.max(0, spread - (Number.isNaN(within) ? 0 : within) * (inverseSizes / questions));
  }
  let residual = 0;
  means.forEach((m, q) => {
    residual += ((sizes[q] as number) * (m - mean)) ** 2;
  });
  const standardError =
    questions >= 2 ? Math.sqrt(((questions / (questions - 1)) * residual) / cells ** 2) : Number.NaN;
  return {
    mean,
    betweenQuestionVariance: between,
    withinQuestionVariance: within,
    questions,
    cells,
    runsPerQuestion: cells / questions,
    standardError,
  };
}

export interface Design {
  /** tau^2 and sigma^2 (see `nestedComponents`); a NaN within-question variance counts as 0 */
  betweenQuestionVariance: number;
  withinQuestionVariance: number;
  questions: number;
  runs: number;
}

function checkLevel(fn: string, name: string, x: number): void {
  if (typeof x !== 'number' || !(x > 0 && x < 1))
    throw new RangeError(`${fn}: ${name} must be a number in (0, 1), got ${String(x)}`);
}

/** sqrt(tau^2 / Q + sigma^2 / (Q R)): the standard error of the mean of a balanced design. */
export function designStandardError(d: Design): number {
  const within = Number.isNaN(d.withinQuestionVariance) ? 0 : d.withinQuestionVariance;
  return Math.sqrt(d.betweenQuestionVariance / d.questions + within / (d.questions * d.runs));
}

/**
 * The minimal detectable difference of a two-sided z test at level `alpha` with power `power`:
 * (z(1 - alpha / 2) + z(power)) SE, the true difference the test finds with probability `power`
 * (ignoring the far tail). Defaults: alpha 0.05, power 0.8 (2.8016 SE). NaN when the SE is.
 * With `df` (the questions less one), Student's t quantiles replace z's: the small-sample MDD of a
 * test on Q cluster means, which the gate's sign-flip test matches where z's would promise more power
 * than it has (at 12 questions 71 % instead of 80 %: test/gate/power-simulation.test.ts).
 */
export function minimalDetectableDifference(
  standardError: number,
  opts: { alpha?: number; power?: number; df?: number } = {},
): number {
  const fn = 'minimalDetectableDifference';
  const alpha = opts.alpha ?? 0.05;
  const power = opts.power ?? 0.8;
  checkLevel(fn, 'alpha', alpha);
  checkLevel(fn, 'power', power);
  if (opts.df !== undefined) {
    if (!(opts.df > 0)) throw new RangeError(`${fn}: df must be > 0, got ${String(opts.df)}`);
    return (studentTQuantile(1 - alpha / 2, opts.df) + studentTQuantile(power, opts.df)) * standardError;
  }
  return (normalQuantile(1 - alpha / 2) + normalQuantile(power)) * standardError;
}

/**
 * The power of the two-sided z test at level `alpha` when the true difference is `effect`:
 * Phi(|effect| / SE - z) + Phi(-|effect| / SE - z), z = z(1 - alpha / 2). With `df`, the shifted
 * t(df) in place of the normal (the inverse of `minimalDetectableDifference` with the same df).
 */
export function powerAt(effect: number, standardError: number, alpha = 0.05, df?: number): number {
  checkLevel('powerAt', 'alpha', alpha);
  const shift = Math.abs(effect) / standardError;
  if (df !== undefined) {
    const t = studentTQuantile(1 - alpha / 2, df);
    return studentTCdf(shift - t, df) + studentTCdf(-shift - t, df);
  }
  const z = normalQuantile(1 - alpha / 2);
  return normalCdf(shift - z) + normalCdf(-shift - z);
}

/**
 * The fewest questions (at least 2) with which a design of `runs` runs per question has a minimal
 * detectable difference of at most `effect`: ceil((z(1 - alpha/2) + z(power))^2 (tau^2 + sigma^2 / R)
 * / effect^2); with `smallSample`, the fewest Q whose MDD with t(Q - 1) quantiles is at most `effect`
 * (the gate's). Throws RangeError for an effect that is not positive.
 */
export function questionsNeeded(
  components: { betweenQuestionVariance: number; withinQuestionVariance: number },
  runs: number,
  effect: number,
  opts: { alpha?: number; power?: number; smallSample?: boolean } = {},
): number {
  const fn = 'questionsNeeded';
  if (!(effect > 0 && Number.isFinite(effect)))
    throw new RangeError(`${fn}: effect must be > 0, got ${effect}`);
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`${fn}: runs must be a positive integer`);
  const perQuestion = designStandardError({ ...components, questions: 1, runs }) ** 2;
  const k = minimalDetectableDifference(1, opts);
  // a hair below an integer is that integer (rounding of the ratio), not the next one
  const exact = (k * k * perQuestion) / (effect * effect);
  let q = Math.max(2, Math.ceil(exact * (1 - 1e-12)));
  if (!opts.smallSample) return q;
  const mdd = (n: number) => minimalDetectableDifference(Math.sqrt(perQuestion / n), { ...opts, df: n - 1 });
  while (mdd(q) > effect * (1 + 1e-12)) q++;
  return q;
}
