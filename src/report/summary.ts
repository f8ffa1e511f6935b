/**
 * Every number of a run's report, computed from its case rows with `src/stats`. Pure: the same rows
 * and seed give the same summary, so a reader can recompute any figure from `data/results/`.
 *
 * Definitions (also printed in the report):
 * - A case's GFS is from the mean of its two judges' dimension scores; unscored cases are excluded
 *   from means and counted separately (a failure is data, not a zero).
 * - Intervals: BCa 95 %, 10,000 resamples, resampling questions with their runs kept together
 *   (cluster bootstrap), seeded with `${seed}:${model}:${category}:${weighting}`.
 * - Pairwise comparison (methodology 8.2): McNemar on binarised correctness at the (question, run
 *   index) level, a cell being correct when the judges' mean correctness is at least 1.5; p-values
 *   Bonferroni-corrected over the pairs of subjects.
 * - Inter-judge agreement (8.4): Cohen's kappa between a subject's two judges per dimension, then the
 *   mean over subjects; the same on the human-labelled responses, divergence flagged.
 * - Ranking: models ordered by overall mean GFS; robust when both weightings give the same order and
 *   no two adjacent models' primary intervals overlap.
 */

import { bonferroni, clusterBootstrapCI, mcnemar, varianceDecomposition } from '../stats/index.ts';
import { linearPercentile } from '../stats/percentile.ts';
import {
  CORRECT_AT,
  type Diagnostics,
  diagnostics,
  interJudgeAgreement,
  type JudgeAgreement,
} from './diagnostics.ts';
import { type StopCounts, type StopKindName, stopCounts } from './stops.ts';
import { type LabelView, type ReviewView, type ValidationSummary, validationSummary } from './validation.ts';

export interface JudgeScoreView {
  judgeId: string;
  family: string;
  status: 'scored' | 'unscored';
  /** why the judge's last reply ended (absent: complete) */
  stop?: { kind: StopKindName } | undefined;
  verdict: {
    correctness: { score: number };
    grounding: { score: number };
    calibration: { score: number };
  } | null;
}

export interface TokenView {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** What the stages of the run recorded (the run state file): the pre-flight estimate and the spend. */
export interface RunBudgetView {
  mode: string;
  stopped: string | null;
  budget_warnings: readonly string[];
  estimate: {
    lines: readonly {
      provider: string;
      model: string;
      role: string;
      batch: boolean;
      calls: number;
      expectedUsd: number;
      naiveUsd: number;
      worstUsd: number;
    }[];
    totals: { calls: number; expectedUsd: number; naiveUsd: number; worstUsd: number };
  } | null;
  spend: {
    usd: number;
    unaccounted_usd: number;
    by_payer: readonly { provider: string; model: string; role: string; usd: number; calls: number }[];
  };
}

/** What the summary needs of a case row (the stored row has more). */
export interface CaseRowView {
  question_id: string;
  category: string;
  subject_id: string;
  model: string;
  run_index: number;
  /** hash of the subject prompt template (version), not of one request */
  subject_prompt_hash: string;
  judge_prompt_hash: string;
  /** why the subject's reply ended (absent: complete) */
  answer_stop?: { kind: StopKindName } | undefined;
  latency_ms: number;
  cost_usd: number;
  /** the answer's identity in the cell store: what human labels and reviews join on */
  answer_key?: string;
  /** what the case's calls would have cost without prompt caching (absent in older rows) */
  uncached_cost_usd?: number;
  usage?: TokenView;
  judge_usage?: TokenView;
  verdicts: readonly JudgeScoreView[];
  /** as `caseScores` (src/scoring) returns them: null values and `unscored` when no judge scored */
  scores: {
    correctness: number | null;
    grounding: number | null;
    calibration: number | null;
    gfsPrimary: number | null;
    gfsEqual: number | null;
    unscored: boolean;
    contested: boolean;
    contestedDimensions: readonly string[];
  };
  checks: Record<string, { passed: boolean | null } | unknown>;
}

export interface Interval {
  estimate: number;
  low: number;
  high: number;
  n: number;
  degenerate: boolean;
}

export interface SummaryOptions {
  seed: string;
  resamples?: number;
  /** the mean correctness at which a (question, run) counts as correct for McNemar (default 1.5) */
  correctAt?: number;
  run: { runId: string; configHash: string; indexChecksum: string; questionsHash: string };
  /** the run state's estimate and spend, when the stages recorded one */
  budget?: RunBudgetView | null;
  /** what was run, and how many cells the run has (fewer cases: a partial report) */
  describe?: RunDescriptionView | null;
  cells?: number;
  /** cases that failed without a result row (their test name and error), counted and listed */
  errors?: readonly { name: string; message: string }[];
  /** the people's labels and the contested reviews of this run's responses (by answer key) */
  validation?: {
    labels: readonly LabelView[];
    reviews: readonly ReviewView[];
    minKappa: number;
    limitation?: string | null;
  } | null;
}

export interface Summary {
  run: SummaryOptions['run'] & { seed: string; resamples: number };
  models: string[];
  categories: string[];
  cases: { total: number; scored: number; unscored: number; contested: number };
  gfs: Record<string, Record<string, { primary: Interval | null; equal: Interval | null }>>;
  ranking: { primary: string[]; equal: string[]; robust: boolean; reason: string };
  pairwise: {
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
  }[];
  variance: Record<string, { withinQuestionSD: number; betweenQuestionVariance: number; runs: number }>;
  /** per subject (its two judges), then averaged over subjects; beside the same on the labelled responses */
  judgeAgreement: JudgeAgreement;
  contested: { question_id: string; subject_id: string; run_index: number; dimensions: readonly string[] }[];
  checkPassRates: Record<string, Record<string, { passed: number; applicable: number; rate: number | null }>>;
  latency: Record<string, { p50: number; p95: number }>;
  cost: Record<string, number>;
  /** per subject: the cost of its cases' calls (answers and verdicts), without caching, and tokens */
  caching: Record<
    string,
    { costUsd: number; uncachedUsd: number; savedUsd: number; tokens: TokenView; batchShare: number }
  >;
  /** the pre-flight estimate against what the run spent, per provider, model and role */
  budget: {
    mode: string;
    lines: {
      provider: string;
      model: string;
      role: string;
      calls: number;
      expectedUsd: number;
      worstUsd: number;
      actualCalls: number;
      actualUsd: number;
    }[];
    totals: {
      expectedUsd: number;
      naiveUsd: number;
      worstUsd: number;
      actualUsd: number;
      unaccountedUsd: number;
    };
    warnings: string[];
    stopped: string | null;
  } | null;
  promptHashes: { subject: string[]; judge: string[] };
  /** table 5.5 (judges against people) and the contested responses with their review */
  validation: ValidationSummary;
  /** retrieval hit@k, the worst and contested cases in detail, errors, every cell's scores */
  diagnostics: Diagnostics;
  /** how the answers and verdict replies ended, per model */
  stops: StopCounts;
  /** what was run (from the run's description), and whether the report is partial */
  describe: RunDescriptionView | null;
  partial: { cases: number; cells: number } | null;
}

/** A subject or judge as the report shows it: its model, what its requests sent, the deviation from T = 0. */
export interface DescribedModelView {
  id: string;
  provider: string;
  model: string;
  family: string;
  /** the sampling and reasoning parameters sent, in words (`temperature 0, reasoning_effort none, seed`) */
  sent: string;
  /** the output token limit sent */
  maxTokens: number;
  /** how `sent` departs from the methodology's temperature 0, and why; null when 0 is sent */
  deviation: string | null;
}

/** What was run, as the report's first table shows it (src/run/prepare.ts RunDescription). */
export interface RunDescriptionView {
  config: string;
  subjects: readonly DescribedModelView[];
  judges: readonly DescribedModelView[];
  corpus: { embedder: string; chunkTokens: number; overlapTokens: number; k: number; index: string };
  questions: { file: string; version: number; n: number };
  runs: number;
  mode: string;
  thresholds: {
    correctness: number | null;
    grounding: number | null;
    calibration: number | null;
    gfs: number | null;
  };
  subjectPrompt: { version: string; sha256: string; file?: string | null };
  judgePrompt: { version: string; sha256: string };
}

const ALL = 'all';

function interval(
  rows: readonly CaseRowView[],
  pick: (r: CaseRowView) => number,
  seed: string,
  resamples: number,
): Interval | null {
  const scored = rows.filter((r) => !r.scores.unscored);
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
  const scored = rows.filter((r) => !r.scores.unscored);
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

function isCheck(x: unknown): x is { passed: boolean | null } {
  return typeof x === 'object' && x !== null && 'passed' in x;
}

export function summarise(rows: readonly CaseRowView[], opts: SummaryOptions): Summary {
  const resamples = opts.resamples ?? 10_000;
  const correctAt = opts.correctAt ?? CORRECT_AT;
  const models = [...new Set(rows.map((r) => r.subject_id))].sort();
  const categories = [...new Set(rows.map((r) => r.category))].sort();
  const bySubject = new Map(models.map((m) => [m, rows.filter((r) => r.subject_id === m)]));

  const gfs: Summary['gfs'] = {};
  for (const m of models) {
    const mine = bySubject.get(m) ?? [];
    gfs[m] = {};
    for (const c of [...categories, ALL]) {
      const cell = c === ALL ? mine : mine.filter((r) => r.category === c);
      (gfs[m] as Record<string, { primary: Interval | null; equal: Interval | null }>)[c] = {
        primary: interval(cell, (r) => r.scores.gfsPrimary ?? 0, `${opts.seed}:${m}:${c}:primary`, resamples),
        equal: interval(cell, (r) => r.scores.gfsEqual ?? 0, `${opts.seed}:${m}:${c}:equal`, resamples),
      };
    }
  }

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

  const pairs: { a: string; b: string }[] = [];
  for (let i = 0; i < models.length; i++)
    for (let j = i + 1; j < models.length; j++)
      pairs.push({ a: models[i] as string, b: models[j] as string });
  // A pair with no cell scored by both (a run stopped early, each subject kept different cells) has
  // nothing to test: it is listed with n = 0 and no p, and is not one of the Bonferroni family.
  const tests = pairs.map(({ a, b }): Omit<Summary['pairwise'][number], 'pBonferroni'> => {
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
  const pairwise = tests.map((t) => ({
    ...t,
    pBonferroni: t.pValue === null ? null : (adjusted[next++] as number),
  }));

  const variance: Summary['variance'] = {};
  for (const m of models) {
    const scored = (bySubject.get(m) ?? []).filter((r) => !r.scores.unscored);
    if (scored.length === 0) continue;
    const v = varianceDecomposition(
      scored.map((r) => ({ question: r.question_id, run: r.run_index, value: r.scores.gfsPrimary ?? 0 })),
    );
    variance[m] = {
      withinQuestionSD: v.withinQuestionSD,
      betweenQuestionVariance: v.betweenQuestionVariance,
      runs: new Set(scored.map((r) => r.run_index)).size,
    };
  }

  const judgeAgreement = interJudgeAgreement(bySubject, opts.validation?.labels ?? []);

  const checkPassRates: Summary['checkPassRates'] = {};
  const latency: Summary['latency'] = {};
  const cost: Summary['cost'] = {};
  for (const m of models) {
    const mine = bySubject.get(m) ?? [];
    const rates: Record<string, { passed: number; applicable: number; rate: number | null }> = {};
    for (const r of mine) {
      for (const [name, check] of Object.entries(r.checks)) {
        if (!isCheck(check)) continue;
        const slot = rates[name] ?? { passed: 0, applicable: 0, rate: null };
        if (check.passed !== null) {
          slot.applicable++;
          if (check.passed) slot.passed++;
        }
        rates[name] = slot;
      }
    }
    for (const slot of Object.values(rates))
      slot.rate = slot.applicable === 0 ? null : slot.passed / slot.applicable;
    checkPassRates[m] = rates;
    const lat = mine.map((r) => r.latency_ms).sort((x, y) => x - y);
    latency[m] = { p50: linearPercentile(lat, 0.5), p95: linearPercentile(lat, 0.95) };
    cost[m] = mine.reduce((s, r) => s + r.cost_usd, 0);
  }

  const caching: Summary['caching'] = {};
  const zero: TokenView = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const addTokens = (a: TokenView, b: TokenView | undefined): TokenView =>
    b
      ? {
          inputTokens: a.inputTokens + b.inputTokens,
          outputTokens: a.outputTokens + b.outputTokens,
          cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
          cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
        }
      : a;
  for (const m of models) {
    const mine = bySubject.get(m) ?? [];
    const costUsd = mine.reduce((sum, r) => sum + r.cost_usd, 0);
    const uncachedUsd = mine.reduce((sum, r) => sum + (r.uncached_cost_usd ?? r.cost_usd), 0);
    caching[m] = {
      costUsd,
      uncachedUsd,
      savedUsd: uncachedUsd - costUsd,
      tokens: mine.reduce((t, r) => addTokens(addTokens(t, r.usage), r.judge_usage), zero),
      batchShare:
        mine.length === 0 ? 0 : mine.filter((r) => (r as { batch?: boolean }).batch).length / mine.length,
    };
  }

  const scored = rows.filter((r) => !r.scores.unscored);
  return {
    run: { ...opts.run, seed: opts.seed, resamples },
    models,
    categories,
    cases: {
      total: rows.length,
      scored: scored.length,
      unscored: rows.length - scored.length,
      contested: scored.filter((r) => r.scores.contested).length,
    },
    gfs,
    ranking: { primary, equal, robust, reason },
    pairwise,
    variance,
    judgeAgreement,
    contested: scored
      .filter((r) => r.scores.contested)
      .map((r) => ({
        question_id: r.question_id,
        subject_id: r.subject_id,
        run_index: r.run_index,
        dimensions: r.scores.contestedDimensions,
      })),
    checkPassRates,
    latency,
    cost,
    caching,
    budget: budgetOf(opts.budget ?? null),
    diagnostics: diagnostics(rows, opts.errors ?? []),
    stops: stopCounts(rows),
    describe: opts.describe ?? null,
    // Partial: cases were left out (a filter, a shard alone), not merely failed (errors count as cases).
    partial:
      opts.cells !== undefined && rows.length + (opts.errors?.length ?? 0) < opts.cells
        ? { cases: rows.length + (opts.errors?.length ?? 0), cells: opts.cells }
        : null,
    validation: validationSummary(
      rows,
      opts.validation?.labels ?? [],
      opts.validation?.reviews ?? [],
      opts.validation?.minKappa,
      opts.validation?.limitation ?? null,
    ),
    promptHashes: {
      subject: [...new Set(rows.map((r) => r.subject_prompt_hash))].sort(),
      judge: [...new Set(rows.map((r) => r.judge_prompt_hash))].sort(),
    },
  };
}

/** The estimate per provider, model and role beside what the ledger says the run spent on it. */
function budgetOf(view: RunBudgetView | null): Summary['budget'] {
  if (!view) return null;
  const key = (x: { provider: string; model: string; role: string }) => `${x.provider}/${x.model}/${x.role}`;
  type Line = NonNullable<Summary['budget']>['lines'][number];
  const lines = new Map<string, Line>();
  const lineOf = (x: { provider: string; model: string; role: string }): Line => {
    let line = lines.get(key(x));
    if (!line) {
      line = {
        provider: x.provider,
        model: x.model,
        role: x.role,
        calls: 0,
        expectedUsd: 0,
        worstUsd: 0,
        actualCalls: 0,
        actualUsd: 0,
      };
      lines.set(key(x), line);
    }
    return line;
  };
  for (const l of view.estimate?.lines ?? []) {
    const line = lineOf(l);
    line.calls += l.calls;
    line.expectedUsd += l.expectedUsd;
    line.worstUsd += l.worstUsd;
  }
  for (const p of view.spend.by_payer) {
    const line = lineOf(p);
    line.actualCalls += p.calls;
    line.actualUsd += p.usd;
  }
  return {
    mode: view.mode,
    lines: [...lines.values()].filter((l) => l.calls > 0 || l.actualCalls > 0),
    totals: {
      expectedUsd: view.estimate?.totals.expectedUsd ?? 0,
      naiveUsd: view.estimate?.totals.naiveUsd ?? 0,
      worstUsd: view.estimate?.totals.worstUsd ?? 0,
      actualUsd: view.spend.usd,
      unaccountedUsd: view.spend.unaccounted_usd,
    },
    warnings: [...view.budget_warnings],
    stopped: view.stopped,
  };
}
