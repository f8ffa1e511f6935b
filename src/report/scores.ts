/**
 * The report's score sections, each a metric across a subject's case rows (the per-case scores come
 * from src/scoring; the runs of one question are kept together as one cluster, not averaged first):
 * - GFS per subject and category: the mean with its BCa 95 % interval (cluster bootstrap, seeded with
 *   `${seed}:${category}:${weighting}`, the same seed for every subject and the questions in sorted
 *   order, so all subjects' resamples draw the same questions and the ranking's probabilities come from
 *   the very resamples of the `all` column, src/report/ranks.ts);
 * - the ranking by overall mean GFS, robust when both weightings agree and no adjacent intervals overlap;
 * - pairwise: GFS and each dimension by the paired sign-flip test over questions (the gate's test), and
 *   pass/fail by McNemar on binarised correctness per (question, run index), each Bonferroni-corrected
 *   over the pairs;
 * - the variance decomposition of primary GFS across questions and runs.
 * Unscored cases are left out of every figure here; a subject's own failure (no answer) comes in as a
 * row scored 0 (src/report/outcomes.ts). Pure.
 */
import { GATE_METHOD, GATE_RESAMPLES } from '../gate/gate.ts';
import {
  bonferroni,
  clusterBootstrapCI,
  mcnemar,
  signFlipTest,
  varianceDecomposition,
} from '../stats/index.ts';
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

/** The measures a pair of subjects is compared on: the headline (primary GFS), then each dimension. */
export const PAIRWISE_MEASURES = ['gfs', 'correctness', 'grounding', 'calibration'] as const;
export type PairwiseMeasure = (typeof PAIRWISE_MEASURES)[number];

/** One measure of a pair by the paired sign-flip test over questions (the gate's test). */
export interface SignFlipComparison {
  /** the mean of a - b over the paired (question, run) cells */
  difference: number;
  /** two-sided, at no difference */
  pValue: number;
  /** Bonferroni over the pairs tested (this measure's family) */
  pBonferroni: number;
  /** all 2^questions sign vectors enumerated (no Monte Carlo error) */
  exact: boolean;
  /** sign vectors drawn, or enumerated (the identity left out) */
  resamples: number;
  seed: string;
}

/** Pass/fail: McNemar on binarised correctness (methodology 8.2) over the same cells. */
export interface McNemarComparison {
  /** cells a got right and b did not, and the reverse */
  n10: number;
  n01: number;
  pValue: number;
  pBonferroni: number;
  method: string;
}

export interface PairwiseTest {
  a: string;
  b: string;
  /**
   * (question, run) cells both subjects have a score for (a subject's own failure counted as 0, an
   * unscored case left out) and their questions; 0: nothing to test
   */
  n: number;
  questions: number;
  /** each measure by the paired sign-flip test over questions; null when the pair shares no cell */
  gfs: SignFlipComparison | null;
  correctness: SignFlipComparison | null;
  grounding: SignFlipComparison | null;
  calibration: SignFlipComparison | null;
  /** pass/fail: McNemar on binarised correctness; null when the pair shares no cell */
  passFail: McNemarComparison | null;
}

/** How the pairs are tested, as summary.json and the report say it. */
export interface PairwiseMethod {
  /** the test of GFS and of each dimension, on the mean difference over the paired (question, run) cells */
  test: string;
  /** the test of pass/fail */
  passFail: string;
  /** the correction for looking at several pairs: Bonferroni over the pairs tested, each measure apart */
  correction: 'bonferroni';
  /** the pairs tested (sharing a cell): each measure's family */
  family: number;
  /** sign vectors per test (all of them when fewer) */
  resamples: number;
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

/**
 * The scored rows that have a value of `pick`: a case with no gold (a logged trace no golden question
 * matched) has no correctness and no GFS, and is left out of their figures, never counted 0.
 */
const valuedOf = (rows: readonly CaseRowView[], pick: (r: CaseRowView) => number | null) =>
  scoredOf(rows).flatMap((r) => {
    const value = pick(r);
    return value === null ? [] : [{ row: r, value }];
  });

function interval(
  rows: readonly CaseRowView[],
  pick: (r: CaseRowView) => number | null,
  seed: string,
  resamples: number,
): Interval | null {
  const scored = valuedOf(byQuestion(rows), pick);
  if (scored.length === 0) return null;
  const ci = clusterBootstrapCI(
    scored.map(({ row, value }) => ({ cluster: row.question_id, value })),
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

function meanBy(rows: readonly CaseRowView[], pick: (r: CaseRowView) => number | null): number {
  const scored = valuedOf(rows, pick);
  return scored.length === 0 ? Number.NaN : scored.reduce((s, v) => s + v.value, 0) / scored.length;
}

/** A case's (question, run) cell. */
const cellKey = (r: CaseRowView) => `${r.question_id}\u0000${r.run_index}`;

/**
 * The (question, run) cells both subjects have a score for (unscored cases left out; a subject's own
 * failure is a row scored 0), as pairs [a's row, b's row] in a's order (the rows' file order, so the
 * sums, and the sign vectors' clusters, come in a fixed order): the cells every comparison of the two
 * (the tests, the MDD) is made on.
 */
export function pairedCells(
  a: readonly CaseRowView[],
  b: readonly CaseRowView[],
): [CaseRowView, CaseRowView][] {
  const scored = (rows: readonly CaseRowView[]) =>
    rows.filter((r) => !r.scores.unscored && r.scores.gfsPrimary !== null);
  const other = new Map(scored(b).map((r) => [cellKey(r), r]));
  return scored(a).flatMap((r): [CaseRowView, CaseRowView][] => {
    const o = other.get(cellKey(r));
    return o ? [[r, o]] : [];
  });
}

/** A measure of a case row, as the pairwise tests read it (scored rows: never null). */
function measureOf(r: CaseRowView, m: PairwiseMeasure): number {
  const s = r.scores;
  return (m === 'gfs' ? s.gfsPrimary : s[m]) ?? 0;
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
        primary: interval(cell, (r) => r.scores.gfsPrimary, intervalSeed(seed, c, 'primary'), resamples),
        equal: interval(cell, (r) => r.scores.gfsEqual, intervalSeed(seed, c, 'equal'), resamples),
      };
    }
    gfs[m] = table;
  }
  return gfs;
}

export function ranking(bySubject: RowsBySubject, gfs: GfsTable): Ranking {
  const models = [...bySubject.keys()];
  const order = (pick: (r: CaseRowView) => number | null) =>
    [...models].sort(
      (a, b) =>
        meanBy(bySubject.get(b) ?? [], pick) - meanBy(bySubject.get(a) ?? [], pick) || a.localeCompare(b),
    );
  const primary = order((r) => r.scores.gfsPrimary);
  const equal = order((r) => r.scores.gfsEqual);
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

type Untested = Omit<PairwiseTest, PairwiseMeasure | 'passFail'>;
type Tested = Untested & {
  raw: Record<PairwiseMeasure, Omit<SignFlipComparison, 'pBonferroni'>>;
  mcnemar: Omit<McNemarComparison, 'pBonferroni'>;
};

/**
 * One pair's tests on its paired cells: each measure by the paired sign-flip test over questions (a
 * question's cells negated together, seeded `${seed}:pairwise:${a}:${b}:${measure}`), pass/fail by
 * McNemar on binarised correctness (correct when the judges' mean correctness is at least `correctAt`).
 */
function pairTests(
  a: string,
  b: string,
  cells: readonly [CaseRowView, CaseRowView][],
  opts: { seed: string; correctAt: number; resamples: number },
): Tested {
  const raw = Object.fromEntries(
    PAIRWISE_MEASURES.map((m) => {
      const seed = `${opts.seed}:pairwise:${a}:${b}:${m}`;
      const rows = cells.map(([x, y]) => ({
        cluster: x.question_id,
        value: measureOf(x, m) - measureOf(y, m),
      }));
      const t = signFlipTest(rows, { resamples: opts.resamples, seed });
      return [m, { difference: t.estimate, pValue: t.pValue, exact: t.exact, resamples: t.resamples, seed }];
    }),
  ) as Tested['raw'];
  const correct = (r: CaseRowView) => (r.scores.correctness ?? 0) >= opts.correctAt;
  const m = mcnemar({ a: cells.map(([x]) => correct(x)), b: cells.map(([, y]) => correct(y)) });
  return {
    a,
    b,
    n: cells.length,
    questions: new Set(cells.map(([x]) => x.question_id)).size,
    raw,
    mcnemar: { n10: m.n10, n01: m.n01, pValue: m.pValue, method: m.method },
  };
}

/**
 * Every pair of subjects, tested on the cells both have a score for: GFS (the headline) and each
 * dimension by the paired sign-flip test over questions that `rge gate` uses (docs/adr/0028), pass/fail
 * by McNemar on binarised correctness (methodology 8.2); each measure's p-values Bonferroni-corrected
 * over the pairs tested. A pair with no cell in common (a run stopped early, each subject kept different
 * cells) has nothing to test: it is listed with n = 0 and no test, and is not in the family.
 */
export function pairwise(
  bySubject: RowsBySubject,
  opts: { seed: string; correctAt: number; resamples?: number },
): { tests: PairwiseTest[]; method: PairwiseMethod } {
  const resamples = opts.resamples ?? GATE_RESAMPLES;
  const models = [...bySubject.keys()];
  const tests: (Untested | Tested)[] = [];
  for (let i = 0; i < models.length; i++)
    for (let j = i + 1; j < models.length; j++) {
      const [a, b] = [models[i] as string, models[j] as string];
      const cells = pairedCells(bySubject.get(a) ?? [], bySubject.get(b) ?? []);
      tests.push(
        cells.length === 0
          ? { a, b, n: 0, questions: 0 }
          : pairTests(a, b, cells, { seed: opts.seed, correctAt: opts.correctAt, resamples }),
      );
    }
  const tested = tests.filter((t): t is Tested => 'raw' in t);
  // each measure is its own family of the pairs tested
  const adjusted = Object.fromEntries(
    PAIRWISE_MEASURES.map((m) => [m, bonferroni(tested.map((t) => t.raw[m].pValue))]),
  ) as Record<PairwiseMeasure, number[]>;
  const passFail = bonferroni(tested.map((t) => t.mcnemar.pValue));
  const out = tests.map((t): PairwiseTest => {
    const at = tested.indexOf(t as Tested);
    if (!('raw' in t))
      return { ...t, gfs: null, correctness: null, grounding: null, calibration: null, passFail: null };
    const measure = (m: PairwiseMeasure) => ({ ...t.raw[m], pBonferroni: adjusted[m][at] as number });
    return {
      a: t.a,
      b: t.b,
      n: t.n,
      questions: t.questions,
      gfs: measure('gfs'),
      correctness: measure('correctness'),
      grounding: measure('grounding'),
      calibration: measure('calibration'),
      passFail: { ...t.mcnemar, pBonferroni: passFail[at] as number },
    };
  });
  return {
    tests: out,
    method: {
      test: GATE_METHOD,
      passFail: `McNemar on binarised correctness (a cell is correct when the judges' mean correctness is at least ${opts.correctAt})`,
      correction: 'bonferroni',
      family: tested.length,
      resamples,
    },
  };
}

/** Per subject with a scored case: primary GFS's spread within and between questions, and the runs. */
export function variance(bySubject: RowsBySubject): VarianceTable {
  const out: VarianceTable = {};
  for (const [m, mine] of bySubject) {
    const scored = valuedOf(mine, (r) => r.scores.gfsPrimary);
    if (scored.length === 0) continue;
    const v = varianceDecomposition(
      scored.map(({ row, value }) => ({ question: row.question_id, run: row.run_index, value })),
    );
    out[m] = {
      withinQuestionSD: v.withinQuestionSD,
      betweenQuestionVariance: v.betweenQuestionVariance,
      runs: new Set(scored.map(({ row }) => row.run_index)).size,
    };
  }
  return out;
}
