/**
 * The report's score sections, each a metric across a subject's case rows (the per-case scores come
 * from src/scoring; the runs of one question are kept together as one cluster, not averaged first):
 * - GFS per subject and category: the mean with its BCa 95 % interval (cluster bootstrap, seeded with
 *   `${seed}:${category}:${weighting}`, the same seed for every subject and the questions in sorted
 *   order, so all subjects' resamples draw the same questions and the ranking's probabilities come from
 *   the very resamples of the `all` column, src/report/ranks.ts);
 * - the ranking by overall mean GFS, robust when both weightings agree and no adjacent intervals overlap;
 * - pairwise McNemar on binarised correctness per (question, run index), Bonferroni-corrected;
 * - the variance decomposition of primary GFS across questions and runs.
 * Unscored cases are left out of every figure here. Pure.
 */
import { bonferroni, clusterBootstrapCI, mcnemar, varianceDecomposition } from '../stats/index.ts';
import type { CaseRowView } from './views.ts';

/** Case rows per subject id, subjects in sorted order. */
export type RowsBySubject = ReadonlyMap<string, readonly CaseRowView[]>;

export interface Interval {
  estimate: number;
  low: number;
  high: number;
  n: number;
  degenerate: boolean;
}

/** Per subject, per category and `all`: the interval of each weighting (null: no scored case). */
export type GfsTable = Record<string, Record<string, { primary: Interval | null; equal: Interval | null }>>;

export interface Ranking {
  primary: string[];
  equal: string[];
  robust: boolean;
  reason: string;
}

export interface PairwiseTest {
  a: string;
  b: string;
  /** (question, run) pairs both subjects have scored */
  n: number;
  n01: number;
  n10: number;
  /** null when the pair has no cell in common (nothing to test) */
  pValue: number | null;
  pBonferroni: number | null;
  method: string;
}

export type VarianceTable = Record<
  string,
  { withinQuestionSD: number; betweenQuestionVariance: number; runs: number }
>;

/** The key of the whole-subject column of the GFS table. */
export const ALL = 'all';
/** The column of every question whose gold is traced (present when some are untraced). */
export const TRACED = 'traced';

const scoredOf = (rows: readonly CaseRowView[]) => rows.filter((r) => !r.scores.unscored);

/** The seed of a GFS table interval: shared by the subjects, so their resamples draw the same questions. */
export const intervalSeed = (seed: string, column: string, weighting: 'primary' | 'equal') =>
  `${seed}:${column}:${weighting}`;

/** Rows in question order (stable): the bootstrap numbers clusters in order of first appearance. */
const byQuestion = (rows: readonly CaseRowView[]) =>
  [...rows].sort((a, b) => (a.question_id < b.question_id ? -1 : a.question_id > b.question_id ? 1 : 0));

function interval(
  rows: readonly CaseRowView[],
  pick: (r: CaseRowView) => number,
  seed: string,
  resamples: number,
): Interval | null {
  const scored = byQuestion(scoredOf(rows));
  if (scored.length === 0) return null;
  const ci = clusterBootstrapCI(
    scored.map((r) => ({ cluster: r.question_id, value: pick(r) })),
    { method: 'bca', resamples, seed },
  );
  return {
    estimate: ci.estimate,
    low: ci.low,
    high: ci.high,
    n: scored.length,
    degenerate: ci.degenerate === true,
  };
}

function meanBy(rows: readonly CaseRowView[], pick: (r: CaseRowView) => number): number {
  const scored = scoredOf(rows);
  return scored.length === 0 ? Number.NaN : scored.reduce((s, r) => s + pick(r), 0) / scored.length;
}

/**
 * Binarised correctness per (question, run index), methodology 8.2: correct when the judges' mean
 * correctness is at least `correctAt` (1.5: one judge says correct and neither says wrong). Unscored
 * cases are left out.
 */
function correctCells(rows: readonly CaseRowView[], correctAt: number): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const r of rows)
    if (!r.scores.unscored && r.scores.correctness !== null)
      out.set(`${r.question_id}\u0000${r.run_index}`, r.scores.correctness >= correctAt);
  return out;
}

export function gfsTable(
  bySubject: RowsBySubject,
  categories: readonly string[],
  seed: string,
  resamples: number,
): GfsTable {
  const gfs: GfsTable = {};
  for (const [m, mine] of bySubject) {
    const table: GfsTable[string] = {};
    const untraced = mine.some((r) => r.gold_untraced);
    for (const c of [...categories, ALL, ...(untraced ? [TRACED] : [])]) {
      const cell =
        c === ALL
          ? mine
          : c === TRACED
            ? mine.filter((r) => !r.gold_untraced)
            : mine.filter((r) => r.category === c);
      table[c] = {
        primary: interval(cell, (r) => r.scores.gfsPrimary ?? 0, intervalSeed(seed, c, 'primary'), resamples),
        equal: interval(cell, (r) => r.scores.gfsEqual ?? 0, intervalSeed(seed, c, 'equal'), resamples),
      };
    }
    gfs[m] = table;
  }
  return gfs;
}

export function ranking(bySubject: RowsBySubject, gfs: GfsTable): Ranking {
  const models = [...bySubject.keys()];
  const order = (pick: (r: CaseRowView) => number) =>
    [...models].sort(
      (a, b) =>
        meanBy(bySubject.get(b) ?? [], pick) - meanBy(bySubject.get(a) ?? [], pick) || a.localeCompare(b),
    );
  const primary = order((r) => r.scores.gfsPrimary ?? 0);
  const equal = order((r) => r.scores.gfsEqual ?? 0);
  const sameOrder = primary.join() === equal.join();
  const overlapping = primary.slice(1).filter((m, i) => {
    const upper = gfs[primary[i] as string]?.[ALL]?.primary;
    const lower = gfs[m]?.[ALL]?.primary;
    return upper && lower && lower.high >= upper.low;
  });
  const robust = sameOrder && overlapping.length === 0;
  const reason = !sameOrder
    ? 'the primary and equal weightings order the models differently'
    : overlapping.length > 0
      ? `adjacent 95% intervals overlap (${overlapping.join(', ')})`
      : 'same order under both weightings and no adjacent intervals overlap';
  return { primary, equal, robust, reason };
}

export function pairwise(bySubject: RowsBySubject, correctAt: number): PairwiseTest[] {
  const models = [...bySubject.keys()];
  const pairs: { a: string; b: string }[] = [];
  for (let i = 0; i < models.length; i++)
    for (let j = i + 1; j < models.length; j++)
      pairs.push({ a: models[i] as string, b: models[j] as string });
  // A pair with no cell scored by both (a run stopped early, each subject kept different cells) has
  // nothing to test: it is listed with n = 0 and no p, and is not one of the Bonferroni family.
  const tests = pairs.map(({ a, b }): Omit<PairwiseTest, 'pBonferroni'> => {
    const pa = correctCells(bySubject.get(a) ?? [], correctAt);
    const pb = correctCells(bySubject.get(b) ?? [], correctAt);
    const shared = [...pa.keys()].filter((k) => pb.has(k)).sort();
    if (shared.length === 0)
      return { a, b, n: 0, n01: 0, n10: 0, pValue: null, method: 'none (no cell scored by both)' };
    const result = mcnemar({
      a: shared.map((k) => pa.get(k) as boolean),
      b: shared.map((k) => pb.get(k) as boolean),
    });
    return {
      a,
      b,
      n: shared.length,
      n01: result.n01,
      n10: result.n10,
      pValue: result.pValue,
      method: result.method,
    };
  });
  const tested = tests.flatMap((t) => (t.pValue === null ? [] : [t.pValue]));
  const adjusted = bonferroni(tested);
  let next = 0;
  return tests.map((t) => ({
    ...t,
    pBonferroni: t.pValue === null ? null : (adjusted[next++] as number),
  }));
}

/** Per subject with a scored case: primary GFS's spread within and between questions, and the runs. */
export function variance(bySubject: RowsBySubject): VarianceTable {
  const out: VarianceTable = {};
  for (const [m, mine] of bySubject) {
    const scored = scoredOf(mine);
    if (scored.length === 0) continue;
    const v = varianceDecomposition(
      scored.map((r) => ({ question: r.question_id, run: r.run_index, value: r.scores.gfsPrimary ?? 0 })),
    );
    out[m] = {
      withinQuestionSD: v.withinQuestionSD,
      betweenQuestionVariance: v.betweenQuestionVariance,
      runs: new Set(scored.map((r) => r.run_index)).size,
    };
  }
  return out;
}
