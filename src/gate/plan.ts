/**
 * `rge plan`: before spending money, how many questions and runs per question does a comparison need
 * to detect a given GFS difference? From an earlier run's summary.json (its `power` section: variance
 * components and what a question's first and later runs cost), for each number of runs per question R
 * in a range, the fewest questions Q whose minimal detectable difference is at most the effect, the
 * design's power at the effect, and its cost; then the cheapest design reaching the power (within the
 * budget, if one is given). docs/adr/0022-power-mdd-plan-ranking.md.
 *
 * The variance model is the gate's: paired differences d = effect + b_q + e_qr, SE^2 = tau^2 / Q +
 * sigma^2 / (Q R). Two comparisons:
 * - a pair of subjects (`--compare a,b`, the default when the run has two subjects or more: the pair
 *   with the largest variance per question): tau^2 and sigma^2 of their observed paired differences,
 *   at the report's Bonferroni level; the cost is both subjects' cells;
 * - a change to one subject gated against its baseline (`--compare subject`, the default with one
 *   subject): sigma^2 = 2 x the subject's run-to-run variance (two runs' noise), tau^2 = how unevenly
 *   the change acts across questions, which one run cannot show: `--between-variance` (default 0, the
 *   change moves every question alike; say so); level 0.05 (the gate's overall slice); the cost is
 *   both sides' cells (the baseline and the changed run).
 * Cost of a design per subject: Q (first + (R - 1) later), the mean costs of the earlier run (at the
 * catalogue's prices, its batch mode and caching: a question's later runs read the prompt cache its
 * first run wrote). Pure: `planRun` computes, `planMarkdown` prints.
 */
import { z } from 'zod';
import {
  designStandardError,
  minimalDetectableDifference,
  powerAt,
  questionsNeeded,
} from '../stats/power.ts';
import { UsageError } from '../util/errors.ts';
import { readSummaryFile } from './summary-file.ts';

const SubjectInputs = z
  .object({
    questions: z.number(),
    cells: z.number(),
    runsPerQuestion: z.number(),
    betweenQuestionVariance: z.number(),
    withinQuestionVariance: z.number().nullable(),
    cost: z
      .object({
        firstRunUsd: z.number(),
        repeatRunUsd: z.number().nullable(),
        firstRunCells: z.number(),
        repeatRunCells: z.number(),
      })
      .loose(),
  })
  .loose();

const Comparison = z
  .object({
    a: z.string(),
    b: z.string(),
    cells: z.number(),
    questions: z.number(),
    difference: z.number(),
    betweenQuestionVariance: z.number(),
    withinQuestionVariance: z.number().nullable(),
    alpha: z.number(),
  })
  .loose();

/** The parts of a summary.json the planner reads. */
export const PlanSummary = z
  .object({
    run: z.object({ runId: z.string() }).loose(),
    describe: z
      .object({ mode: z.string(), questions: z.object({ n: z.number() }).loose() })
      .loose()
      .nullable()
      .optional(),
    power: z
      .object({
        power: z.number(),
        alpha: z.number(),
        family: z.number(),
        comparisons: z.array(Comparison),
        subjects: z.record(z.string(), SubjectInputs),
      })
      .loose(),
  })
  .loose();
export type PlanSummary = z.infer<typeof PlanSummary>;

/** Reads a summary for planning; anything unreadable is a usage error naming the file (exit 2). */
export function readPlanSummary(file: string): Promise<PlanSummary> {
  return readSummaryFile(file, PlanSummary, 'not an rge summary.json with variance components', (where) =>
    where.startsWith('power')
      ? ' (summaries written before rge plan existed have none; rerun the report: rge eval run reuses the stored cells)'
      : '',
  );
}

export interface PlanOptions {
  /** the GFS difference to detect, in (0, 1) */
  effect: number;
  /** default 0.8 */
  power?: number;
  /** runs per question to consider, inclusive; default [1, 5] */
  runs?: [number, number];
  budgetUsd?: number | null;
  /** 'a,b' (a pair of subjects) or a subject id (a change to it gated against its baseline) */
  compare?: string | null;
  /** tau^2 of a one-subject change (how unevenly it acts across questions); default 0 */
  betweenVariance?: number | null;
}

export interface DesignRow {
  questions: number;
  runs: number;
  /** cells each compared side runs: questions x runs */
  cells: number;
  mdd: number;
  /** power at the effect */
  power: number;
  costUsd: number;
  fitsBudget: boolean;
  /** the design needs more questions than the run's question set has */
  moreQuestionsThanTheSet: boolean;
}

export interface Plan {
  from: string;
  effect: number;
  power: number;
  alpha: number;
  comparison: {
    kind: 'pair' | 'change';
    /** in words, for the table's heading */
    label: string;
    subjects: string[];
    betweenQuestionVariance: number;
    withinQuestionVariance: number;
    /** the assumptions the numbers rest on, in words */
    notes: string[];
  };
  /** the earlier run's own design and its MDD under this model */
  observed: { questions: number; runs: number; mdd: number; power: number };
  questionSet: number | null;
  budgetUsd: number | null;
  rows: DesignRow[];
  /** the cheapest design reaching the power within the budget (ties: fewer cells, then fewer runs) */
  cheapest: DesignRow | null;
}

function perSubjectCost(s: z.infer<typeof SubjectInputs>, questions: number, runs: number): number {
  const later = s.cost.repeatRunUsd ?? s.cost.firstRunUsd;
  return questions * (s.cost.firstRunUsd + (runs - 1) * later);
}

function chooseComparison(summary: PlanSummary, opts: PlanOptions): Plan['comparison'] & { alpha: number } {
  const p = summary.power;
  const subjects = Object.keys(p.subjects).sort();
  if (subjects.length === 0) throw new UsageError('the summary has no scored subject to plan from');
  const compare = opts.compare ?? null;
  const wantPair = compare ? compare.includes(',') : p.comparisons.length > 0;
  if (wantPair) {
    let chosen: z.infer<typeof Comparison> | undefined;
    if (compare) {
      const [x, y] = compare.split(',').map((t) => t.trim());
      chosen = p.comparisons.find((c) => (c.a === x && c.b === y) || (c.a === y && c.b === x));
      if (!chosen)
        throw new UsageError(
          `--compare ${compare}: no such pair in the summary; its pairs: ${p.comparisons.map((c) => `${c.a},${c.b}`).join('; ') || 'none'}`,
        );
    } else
      chosen = [...p.comparisons].sort(
        (u, v) =>
          v.betweenQuestionVariance +
          (v.withinQuestionVariance ?? 0) -
          (u.betweenQuestionVariance + (u.withinQuestionVariance ?? 0)),
      )[0];
    if (!chosen) throw new UsageError('the summary has no pairwise comparison to plan from');
    const notes = [
      `variance of the paired GFS differences ${chosen.a} \u2212 ${chosen.b} observed on ${chosen.cells} cells of ${chosen.questions} questions`,
      `level ${Number(chosen.alpha.toFixed(4))} two-sided: the report's Bonferroni level over its ${p.family} comparison(s)`,
    ];
    if (chosen.withinQuestionVariance === null)
      notes.push(
        'the run had one run per question: run-to-run noise cannot be told apart from the questions, so all of it is counted between questions (more runs are then predicted not to help)',
      );
    if (!compare && p.comparisons.length > 1)
      notes.push(
        'the pair with the most variance per question of the run; choose another with --compare a,b',
      );
    return {
      kind: 'pair',
      label: `${chosen.a} vs ${chosen.b}`,
      subjects: [chosen.a, chosen.b],
      betweenQuestionVariance: chosen.betweenQuestionVariance,
      withinQuestionVariance: chosen.withinQuestionVariance ?? 0,
      notes,
      alpha: chosen.alpha,
    };
  }
  const subject = compare ?? (subjects[0] as string);
  const inputs = p.subjects[subject];
  if (!inputs)
    throw new UsageError(
      `--compare ${subject}: no such subject in the summary; its subjects: ${subjects.join(', ')}`,
    );
  const tau = opts.betweenVariance ?? 0;
  if (inputs.withinQuestionVariance === null && tau === 0)
    throw new UsageError(
      `${subject}: the run had one run per question, so its run-to-run noise is unknown and a change to it cannot be planned; plan from a run with 2 runs per question or more, or give --between-variance`,
    );
  const notes = [
    `a change to ${subject} gated against its baseline: run-to-run noise of both runs (2 x ${inputs.withinQuestionVariance === null ? 'n/a' : inputs.withinQuestionVariance.toExponential(3)}, observed on ${inputs.cells} cells of ${inputs.questions} questions)`,
    tau === 0
      ? 'assumes the change moves every question alike (no between-question variance of the change); a change that helps some questions and hurts others needs more questions: give its variance with --between-variance'
      : `between-question variance of the change ${tau} (--between-variance)`,
    `level ${p.alpha} two-sided (the gate's overall slice); the cost counts both sides (the baseline and the changed run)`,
  ];
  if (inputs.withinQuestionVariance === null)
    notes.push(
      'the run had one run per question: its run-to-run noise is unknown and counted as 0; plan from a run with 2 runs or more',
    );
  return {
    kind: 'change',
    label: `${subject} against its baseline`,
    subjects: [subject, subject],
    betweenQuestionVariance: tau,
    withinQuestionVariance: 2 * (inputs.withinQuestionVariance ?? 0),
    notes,
    alpha: p.alpha,
  };
}

/** Throws a UsageError naming the flag when a plan option is out of range (before any file is read). */
export function checkPlanOptions(opts: PlanOptions): void {
  const power = opts.power ?? 0.8;
  if (!(opts.effect > 0 && opts.effect < 1))
    throw new UsageError(`--effect must be in (0, 1), got ${opts.effect}`);
  if (!(power > 0.5 && power < 1)) throw new UsageError(`--power must be in (0.5, 1), got ${power}`);
  const [runsFrom, runsTo] = opts.runs ?? [1, 5];
  if (
    !Number.isInteger(runsFrom) ||
    !Number.isInteger(runsTo) ||
    runsFrom < 1 ||
    runsTo < runsFrom ||
    runsTo > 100
  )
    throw new UsageError(`--runs must be a range of whole numbers such as 1..5, got ${runsFrom}..${runsTo}`);
  const budget = opts.budgetUsd ?? null;
  if (budget !== null && !(budget >= 0))
    throw new UsageError(`--budget-usd must be a number >= 0, got ${budget}`);
  if (opts.betweenVariance !== undefined && opts.betweenVariance !== null && !(opts.betweenVariance >= 0))
    throw new UsageError(`--between-variance must be a number >= 0, got ${opts.betweenVariance}`);
}

/** The design table of a planned comparison; throws UsageError for options out of range. */
export function planRun(summary: PlanSummary, opts: PlanOptions, from = 'summary.json'): Plan {
  checkPlanOptions(opts);
  const power = opts.power ?? 0.8;
  const [runsFrom, runsTo] = opts.runs ?? [1, 5];
  const budget = opts.budgetUsd ?? null;
  const { alpha, ...comparison } = chooseComparison(summary, opts);
  const components = {
    betweenQuestionVariance: comparison.betweenQuestionVariance,
    withinQuestionVariance: comparison.withinQuestionVariance,
  };
  if (components.betweenQuestionVariance + components.withinQuestionVariance <= 0)
    throw new UsageError(
      `${comparison.label}: the run shows no variance at all (every paired difference equal), so any design detects any effect; nothing to plan`,
    );
  const questionSet = summary.describe?.questions.n ?? null;
  const costOf = (questions: number, runs: number) =>
    comparison.subjects.reduce((sum, s) => {
      const inputs = summary.power.subjects[s];
      return sum + (inputs ? perSubjectCost(inputs, questions, runs) : 0);
    }, 0);
  const design = (questions: number, runs: number): DesignRow => {
    const se = designStandardError({ ...components, questions, runs });
    const costUsd = costOf(questions, runs);
    return {
      questions,
      runs,
      cells: questions * runs,
      mdd: minimalDetectableDifference(se, { alpha, power, df: questions - 1 }),
      power: powerAt(opts.effect, se, alpha, questions - 1),
      costUsd,
      fitsBudget: budget === null || costUsd <= budget,
      moreQuestionsThanTheSet: questionSet !== null && questions > questionSet,
    };
  };
  const rows: DesignRow[] = [];
  for (let runs = runsFrom; runs <= runsTo; runs++)
    rows.push(
      design(questionsNeeded(components, runs, opts.effect, { alpha, power, smallSample: true }), runs),
    );
  const order = (x: DesignRow, y: DesignRow) => x.costUsd - y.costUsd || x.cells - y.cells || x.runs - y.runs;
  const affordable = rows.filter((r) => r.fitsBudget).sort(order);
  const cheapest = affordable.find((r) => !r.moreQuestionsThanTheSet) ?? affordable[0] ?? null;
  const first = summary.power.subjects[comparison.subjects[0] as string];
  const observedQuestions = first?.questions ?? 0;
  const observedRuns = Math.max(1, Math.round(first?.runsPerQuestion ?? 1));
  const observedSe = designStandardError({
    ...components,
    questions: Math.max(1, observedQuestions),
    runs: observedRuns,
  });
  return {
    from,
    effect: opts.effect,
    power,
    alpha,
    comparison,
    observed: {
      questions: observedQuestions,
      runs: observedRuns,
      mdd: minimalDetectableDifference(observedSe, { alpha, power, df: Math.max(1, observedQuestions - 1) }),
      power: powerAt(opts.effect, observedSe, alpha, Math.max(1, observedQuestions - 1)),
    },
    questionSet,
    budgetUsd: budget,
    rows,
    cheapest,
  };
}

const usd = (x: number) => `$${x.toFixed(x >= 100 ? 0 : x >= 1 ? 2 : 4)}`;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The design table and the choice, as Markdown for the terminal. */
export function planMarkdown(plan: Plan): string {
  const c = plan.comparison;
  const lines = [
    `## rge plan: ${c.label}`,
    '',
    `From \`${plan.from}\`. To detect a GFS difference of ${plan.effect} with ${pct(plan.power)} power at level ${Number(plan.alpha.toFixed(4))} (two-sided), runs nested in questions: SE\u00b2 = \u03c4\u00b2 / Q + \u03c3\u00b2 / (Q R) with \u03c4\u00b2 = ${c.betweenQuestionVariance.toExponential(3)} (between questions) and \u03c3\u00b2 = ${c.withinQuestionVariance.toExponential(3)} (run to run).`,
    '',
    ...c.notes.map((n) => `- ${n}`),
    `- this run: ${plan.observed.questions} questions x ${plan.observed.runs} run(s), MDD ${plan.observed.mdd.toFixed(4)}, power ${pct(plan.observed.power)} at ${plan.effect}`,
    '',
    '| questions | runs per question | cells per side | MDD | power | cost USD | |',
    '|---:|---:|---:|---:|---:|---:|---|',
    ...plan.rows.map((r) => {
      const marks = [
        r === plan.cheapest ? '**cheapest**' : '',
        r.fitsBudget ? '' : 'over budget',
        r.moreQuestionsThanTheSet ? `more questions than the set (${plan.questionSet})` : '',
      ].filter(Boolean);
      return `| ${r.questions} | ${r.runs} | ${r.cells} | ${r.mdd.toFixed(4)} | ${pct(r.power)} | ${usd(r.costUsd)} | ${marks.join('; ')} |`;
    }),
    '',
  ];
  if (plan.cheapest)
    lines.push(
      `Cheapest design reaching ${pct(plan.power)}: ${plan.cheapest.questions} questions x ${plan.cheapest.runs} run(s) per question, ${usd(plan.cheapest.costUsd)}${plan.budgetUsd === null ? '' : ` (budget ${usd(plan.budgetUsd)})`}.` +
        (plan.cheapest.moreQuestionsThanTheSet
          ? ` It needs more questions than the set has (${plan.questionSet}).`
          : ''),
    );
  else lines.push(`No design reaches ${pct(plan.power)} within the budget of ${usd(plan.budgetUsd ?? 0)}.`);
  lines.push(
    '',
    "Costs are the earlier run's mean cost of a question's first run and of each later run (answers and both judges' verdicts, at the catalogue's prices, its batch mode and prompt caching), times the design's cells.",
  );
  return `${lines.join('\n')}\n`;
}
