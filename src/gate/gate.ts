/**
 * The regression gate (`rge gate`): is the current run's GFS worse than the baseline's by more than
 * noise? For each subject, the change of GFS over the (question, run) cells both runs scored, overall
 * and per category, tested by a paired sign-flip (randomization) test over questions: a question's
 * cells (current - baseline) are negated together, as swapping the two runs of that question would, and
 * the change is compared with its sign-flipped copies (src/stats/signflip.ts). Its level holds in finite
 * samples on discrete scores, with no asymptotics and no bootstrap shape; the interval shown is the set
 * of changes the test does not reject (docs/adr/0028-gate-sign-flip.md, which replaced the BCa cluster
 * bootstrap of ADR 0010 after it excluded 0 in 9.1 % of noise-only pairs). Pairing removes the
 * between-question variance, which is most of it, so a real change shows with far fewer questions than
 * two unpaired intervals would need.
 *
 * A slice REGRESSES when its interval lies wholly below zero (the test's lower tail at most
 * (1 - level) / 2) AND the drop exceeds the minimum effect (a change too small to matter is not a
 * regression however sure); it IMPROVES in the mirror case; otherwise it is within noise. The overall
 * slice of a subject is read at 95 %; its C category slices at 1 - 0.05 / C (Bonferroni over the
 * categories), so looking at four categories does not quadruple the chance of a false alarm. Each
 * subject is gated on its own (each is a separate decision to ship).
 *
 * Beside each slice, the minimal detectable difference (MDD): the true change the slice's test finds
 * with 80 % power at its level, (t(1 - alpha/2) + t(0.8)) SE with Q - 1 degrees of freedom, SE from the variance components of the
 * paired differences with runs nested in questions (src/stats/power.ts); the sign-flip test's power
 * matches it (test/gate/power-simulation.test.ts). A slice within noise whose MDD exceeds the minimum
 * effect is TOO SMALL TO TELL: the run could have missed a change that matters, so "within noise"
 * there is no evidence of no change (docs/adr/0022-power-mdd-plan-ranking.md).
 *
 * Inputs are two `summary.json` files (a baseline is a promoted summary); the cells are their
 * `diagnostics.cells`. A cell whose subject gave no answer (its own failure: a crash, a timeout, a
 * malformed reply) is in them scored 0 (`failed`), so the gate counts it as GFS 0, as the report's
 * ranking does; a cell not computed (the run stopped, a judge's call failed) is not in them. Seeds are `${seed}:gate:${subject}:${slice}` with the current run's seed, so the
 * verdict table can be recomputed bit for bit.
 */
import { minimalDetectableDifference, nestedComponents } from '../stats/power.ts';
import { signFlipTest } from '../stats/signflip.ts';
import { UsageError } from '../util/errors.ts';
import { configDifferences, configLabel } from './basis.ts';
import { f3, pct, pValueText, signed } from './format.ts';
import { GateSummary } from './gate-summary.ts';
import { comparePassAll, type PassAllRow, passAllMarkdown } from './pass-all.ts';
import { readSummaryFile } from './summary-file.ts';

/** random sign vectors per slice: p-values in steps of 1 / 10,000 */
export const GATE_RESAMPLES = 9_999;
/** how the gate tests a slice, as its output and summary name it */
export const GATE_METHOD = 'paired sign-flip test over questions';
export const GATE_CONFIDENCE = 0.95;
export const DEFAULT_MIN_EFFECT = 0.02;
/** The power the minimal detectable difference is computed at. */
export const MDD_POWER = 0.8;

export { GateSummary } from './gate-summary.ts';

/** Reads a summary (or baseline) file; anything unreadable is a usage error naming the file (exit 2). */
export function readGateSummary(file: string): Promise<GateSummary> {
  return readSummaryFile(file, GateSummary, 'not an rge summary.json with per-cell scores', (where) =>
    where.startsWith('diagnostics') ? ' (reports before rge 0.2 have no cells; rerun the eval)' : '',
  );
}

export type Verdict = 'regression' | 'improvement' | 'within noise';

export interface GateRow {
  subject: string;
  /** 'overall' or a category */
  slice: string;
  /** (question, run) cells both runs scored */
  cells: number;
  questions: number;
  baseline: number;
  current: number;
  /** mean of current - baseline over the shared cells */
  delta: number;
  low: number;
  high: number;
  confidence: number;
  /** the sign-flip test's two-sided p-value at no change */
  pValue: number;
  seed: string;
  degenerate: boolean;
  /** too few questions for the test to reach its level: the interval is the whole range [-1, 1] */
  unbounded: boolean;
  verdict: Verdict;
  /** whether this row fails the gate (a regression) */
  fails: boolean;
  /**
   * The minimal detectable difference at 80 % power and this slice's level (null with fewer than two
   * questions), from the standard error of the paired differences (runs nested in questions).
   */
  mdd: number | null;
  standardError: number | null;
  /** within noise, but the MDD exceeds the minimum effect: the run was too small to tell */
  tooSmallToTell: boolean;
}

export interface GateResult {
  baseline: string;
  current: string;
  minEffect: number;
  resamples: number;
  rows: GateRow[];
  /** subjects only one of the runs has (not gated), and cells not shared */
  unmatched: { subjectsOnlyInBaseline: string[]; subjectsOnlyInCurrent: string[]; cellsNotShared: number };
  /** what changed between the runs that a gate exists to compare (prompt, system version, seed, ...) */
  changed: string[];
  /**
   * what differs beyond the change under test (config, question set, judges, index, ...: src/gate/basis.ts);
   * non-empty only when the comparison was allowed anyway (`allowDifferentConfig`)
   */
  differentConfig: string[];
  /** pass^k rows when asked (`passAll`): src/gate/pass-all.ts */
  passAll: PassAllRow[] | null;
  /** per subject with any: the cells each run's subject gave no answer for, counted as GFS 0 */
  failedCells: { subject: string; baseline: number; current: number }[];
  passed: boolean;
}

export interface GateOptions {
  minEffect?: number;
  resamples?: number;
  /** overall confidence; categories get Bonferroni's 1 - (1 - confidence) / C */
  confidence?: number;
  /** compare runs of different configs or question sets (otherwise a UsageError saying what differs) */
  allowDifferentConfig?: boolean;
  /** also gate on pass^k (every run of a question passes): src/gate/pass-all.ts */
  passAll?: boolean;
  /** the summaries' files, to name them in errors */
  files?: { baseline: string; current: string };
}

/**
 * Refuses (UsageError, exit 2) two runs that differ beyond the change under test (src/gate/basis.ts),
 * naming both (their files when given) and every difference; nothing when they do not differ.
 */
export function refuseDifferentConfig(
  baseline: GateSummary,
  current: GateSummary,
  files: { baseline: string; current: string } | null = null,
): void {
  const differences = configDifferences(baseline, current);
  if (differences.length === 0) return;
  const b = `${baseline.run.runId}, ${configLabel(baseline)}`;
  const c = `${current.run.runId}, ${configLabel(current)}`;
  throw new UsageError(
    `${files ? `the baseline ${files.baseline} (${b}) and the current run ${files.current} (${c})` : `the baseline (${b}) and the current run (${c})`} ` +
      `differ beyond the change under test, so a GFS change need not be yours: ${differences.join('; ')}. ` +
      'Gate against a baseline promoted from a run of the same config and questions (rge baseline update --from REPORT --to FILE), ' +
      'or pass --allow-different-config to compare them anyway',
  );
}

const key = (c: { subject: string; question_id: string; run_index: number }) =>
  `${c.subject}\u0000${c.question_id}\u0000${c.run_index}`;

/**
 * A slice's verdict from its interval of the change: a regression when the interval lies wholly below
 * zero and the drop exceeds the minimum effect, an improvement in the mirror case, else within noise.
 */
export function sliceVerdict(
  interval: { estimate: number; low: number; high: number },
  minEffect: number,
): Verdict {
  if (interval.high < 0 && -interval.estimate > minEffect) return 'regression';
  if (interval.low > 0 && interval.estimate > minEffect) return 'improvement';
  return 'within noise';
}

/** One (question, run) cell both runs scored: its change (current - baseline GFS) and both values. */
export interface PairedCell {
  question: string;
  category: string;
  d: number;
  b: number;
  c: number;
}

/** The cells both runs scored, by subject in the current run's order, and how many there are. */
export function pairedCells(
  baseline: GateSummary,
  current: GateSummary,
): { paired: Map<string, PairedCell[]>; shared: number } {
  const base = new Map(baseline.diagnostics.cells.map((c) => [key(c), c]));
  const paired = new Map<string, PairedCell[]>();
  let shared = 0;
  for (const c of current.diagnostics.cells) {
    const b = base.get(key(c));
    if (!b || b.gfs === null || c.gfs === null) continue;
    shared++;
    const list = paired.get(c.subject) ?? [];
    list.push({ question: c.question_id, category: c.category, d: c.gfs - b.gfs, b: b.gfs, c: c.gfs });
    paired.set(c.subject, list);
  }
  return { paired, shared };
}

/** Per subject with any, the cells each run's subject gave no answer for (scored 0 in its summary). */
function failedCells(baseline: GateSummary, current: GateSummary): GateResult['failedCells'] {
  const count = (s: GateSummary) => {
    const n = new Map<string, number>();
    for (const c of s.diagnostics.cells) if (c.failed) n.set(c.subject, (n.get(c.subject) ?? 0) + 1);
    return n;
  };
  const [b, c] = [count(baseline), count(current)];
  return [...new Set([...b.keys(), ...c.keys()])]
    .sort()
    .map((subject) => ({ subject, baseline: b.get(subject) ?? 0, current: c.get(subject) ?? 0 }));
}

/** One slice's verdict row: the sign-flip test of its paired cells, its MDD and verdict. */
function sliceRow(
  subject: string,
  slice: string,
  xs: readonly PairedCell[],
  level: number,
  opts: { seed: string; resamples: number; minEffect: number },
): GateRow {
  const seed = `${opts.seed}:gate:${subject}:${slice}`;
  const rows = xs.map((x) => ({ cluster: x.question, value: x.d }));
  const ci = signFlipTest(rows, { resamples: opts.resamples, confidence: level, seed, bounds: [-1, 1] });
  const mean = (pick: (x: PairedCell) => number) => xs.reduce((s, x) => s + pick(x), 0) / xs.length;
  const verdict = sliceVerdict(ci, opts.minEffect);
  const se = nestedComponents(rows).standardError;
  const questions = new Set(xs.map((x) => x.question)).size;
  // Student's t on the questions' df: the sign-flip test's power at small Q (ADR 0028)
  const mdd =
    Number.isFinite(se) && questions >= 2
      ? minimalDetectableDifference(se, { alpha: 1 - level, power: MDD_POWER, df: questions - 1 })
      : null;
  return {
    subject,
    slice,
    cells: xs.length,
    questions,
    baseline: mean((x) => x.b),
    current: mean((x) => x.c),
    delta: ci.estimate,
    low: ci.low,
    high: ci.high,
    confidence: level,
    pValue: ci.pValue,
    seed,
    degenerate: ci.degenerate,
    unbounded: ci.unbounded,
    verdict,
    fails: verdict === 'regression',
    mdd,
    standardError: Number.isFinite(se) ? se : null,
    tooSmallToTell: verdict === 'within noise' && (ci.unbounded || mdd === null || mdd > opts.minEffect),
  };
}

/** Compares two summaries cell by cell; pure and deterministic. */
export function compareRuns(baseline: GateSummary, current: GateSummary, opts: GateOptions = {}): GateResult {
  const minEffect = opts.minEffect ?? DEFAULT_MIN_EFFECT;
  const resamples = opts.resamples ?? GATE_RESAMPLES;
  const confidence = opts.confidence ?? GATE_CONFIDENCE;
  if (!(minEffect >= 0 && minEffect < 1))
    throw new UsageError(`--min-effect must be in [0, 1), got ${minEffect}`);
  if (!opts.allowDifferentConfig) refuseDifferentConfig(baseline, current);
  const differentConfig = configDifferences(baseline, current);
  const baseSubjects = new Set(baseline.diagnostics.cells.map((c) => c.subject));
  const curSubjects = new Set(current.diagnostics.cells.map((c) => c.subject));
  const { paired, shared } = pairedCells(baseline, current);
  const rows: GateRow[] = [];
  for (const subject of [...paired.keys()].sort()) {
    const cells = paired.get(subject) ?? [];
    const categories = [...new Set(cells.map((x) => x.category))].sort();
    const categoryConfidence = 1 - (1 - confidence) / Math.max(1, categories.length);
    const slices: [string, typeof cells, number][] = [
      ['overall', cells, confidence],
      ...categories.map((cat): [string, typeof cells, number] => [
        cat,
        cells.filter((x) => x.category === cat),
        categoryConfidence,
      ]),
    ];
    for (const [slice, xs, level] of slices)
      rows.push(sliceRow(subject, slice, xs, level, { seed: current.run.seed, resamples, minEffect }));
  }
  const passAll = opts.passAll
    ? comparePassAll(baseline, current, {
        minEffect,
        confidence,
        ...(opts.files ? { files: opts.files } : {}),
      })
    : null;
  if (rows.length === 0)
    throw new UsageError(
      `the runs share no scored (subject, question, run) cell: baseline ${baseline.run.runId} has subjects ` +
        `${[...baseSubjects].sort().join(', ') || 'none'}, current ${current.run.runId} has ${[...curSubjects].sort().join(', ') || 'none'}`,
    );
  return {
    baseline: baseline.run.runId,
    current: current.run.runId,
    minEffect,
    resamples,
    rows,
    unmatched: {
      subjectsOnlyInBaseline: [...baseSubjects].filter((s) => !curSubjects.has(s)).sort(),
      subjectsOnlyInCurrent: [...curSubjects].filter((s) => !baseSubjects.has(s)).sort(),
      cellsNotShared: current.diagnostics.cells.length + baseline.diagnostics.cells.length - 2 * shared,
    },
    changed: whatChanged(baseline, current),
    differentConfig,
    passAll,
    failedCells: failedCells(baseline, current),
    passed: rows.every((r) => !r.fails) && (passAll ?? []).every((r) => !r.fails),
  };
}

/**
 * What changed between the two runs that a gate exists to compare, in words: the subject prompt, a
 * system's version, a subject's sampling parameters, the seed, the questions a run was narrowed to.
 * (What makes runs incomparable is src/gate/basis.ts's.)
 */
function whatChanged(baseline: GateSummary, current: GateSummary): string[] {
  const out: string[] = [];
  const b = baseline.describe;
  const c = current.describe;
  if (b && c) {
    if (b.subjectPrompt.sha256 !== c.subjectPrompt.sha256)
      out.push(
        `subject prompt ${b.subjectPrompt.version} ${b.subjectPrompt.sha256.slice(0, 12)} -> ${c.subjectPrompt.version} ${c.subjectPrompt.sha256.slice(0, 12)}`,
      );
    out.push(...systemChanges(b.subjects ?? [], c.subjects ?? []));
    out.push(...sentChanges(b.subjects ?? [], c.subjects ?? []));
    if (b.questions?.n !== undefined && c.questions?.n !== undefined && b.questions.n !== c.questions.n)
      out.push(`questions ${b.questions.n} -> ${c.questions.n} (the cells both runs scored are compared)`);
  }
  if (baseline.run.seed !== current.run.seed)
    out.push(`sampling seed ${baseline.run.seed} -> ${current.run.seed}`);
  return out;
}

/** A subject whose sampling parameters (what its requests sent besides the prompt) differ between the runs. */
function sentChanges(
  baseline: readonly { id: string; sent?: string | undefined }[],
  current: readonly { id: string; sent?: string | undefined }[],
): string[] {
  const before = new Map(baseline.map((s) => [s.id, s.sent]));
  return current
    .filter((s) => s.sent !== undefined && before.get(s.id) !== undefined && before.get(s.id) !== s.sent)
    .map((s) => `subject ${s.id} sent ${before.get(s.id) || '(nothing)'} -> ${s.sent || '(nothing)'}`);
}

/** A system subject whose version differs between the runs (its module, prompt or declared version). */
function systemChanges(
  baseline: readonly { id: string; version?: string | undefined }[],
  current: readonly { id: string; version?: string | undefined }[],
): string[] {
  const before = new Map(baseline.map((s) => [s.id, s.version]));
  return current
    .filter((s) => s.version !== undefined && before.has(s.id) && before.get(s.id) !== s.version)
    .map((s) => `system ${s.id} version ${short(before.get(s.id))} -> ${short(s.version)}`);
}
const short = (v: string | undefined) => (v === undefined || v === '' ? '(none)' : v.slice(0, 12));

function verdictText(r: GateRow, minEffect: number): string {
  if (r.fails) return '**regression**';
  if (!r.tooSmallToTell) return r.verdict;
  if (r.unbounded)
    return `within noise: too small to tell (${r.questions} questions cannot reach the ${pct(r.confidence)} level)`;
  return r.mdd === null
    ? 'within noise: too small to tell (fewer than 2 questions)'
    : `within noise: too small to tell (MDD ${f3(r.mdd)} > ${minEffect})`;
}

/** The verdict table as Markdown (stdout and the GitHub job summary). */
export function gateMarkdown(result: GateResult): string {
  const failing = [
    ...result.rows,
    ...(result.passAll ?? []).map((r) => ({ ...r, slice: `${r.slice}, pass^k` })),
  ].filter((r) => r.fails);
  const head = result.passed
    ? `**rge gate: pass.** No subject's GFS fell by more than ${result.minEffect} with its interval wholly below zero${result.passAll ? ', nor its pass^k significantly' : ''}.`
    : `**rge gate: REGRESSION** in ${failing.map((r) => `${r.subject} (${r.slice})`).join(', ')}.`;
  const lines = [
    '## rge gate',
    '',
    head,
    '',
    `Baseline \`${result.baseline}\`, current \`${result.current}\`. Change = current \u2212 baseline GFS over the (question, run) cells both scored; ${GATE_METHOD} (each question's cells negated together; ${result.resamples.toLocaleString('en-US')} random sign vectors, or all of them when fewer; the interval holds the changes the test does not reject); categories at Bonferroni-adjusted confidence. Fails when the interval lies wholly below 0 and the drop exceeds ${result.minEffect}.`,
    '',
    `MDD: the minimal detectable difference, the change the slice's test finds with ${MDD_POWER * 100}% power at its level, from the variance of the paired differences (runs nested in questions). Within noise with an MDD above the minimum effect (${result.minEffect}) means the run was too small to tell, not that nothing changed.`,
    '',
    '| subject | slice | cells | questions | baseline | current | change | interval | p | level | MDD | verdict |',
    '|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|',
    ...result.rows.map(
      (r) =>
        `| ${r.subject} | ${r.slice} | ${r.cells} | ${r.questions} | ${f3(r.baseline)} | ${f3(r.current)} | ${signed(r.delta)} | [${signed(r.low)}, ${signed(r.high)}]${r.degenerate ? ' (point)' : ''} | ${pValueText(r.pValue)} | ${pct(r.confidence)} | ${r.mdd === null ? 'n/a' : f3(r.mdd)} | ${verdictText(r, result.minEffect)} |`,
    ),
  ];
  const notes: string[] = [];
  if (result.changed.length > 0) notes.push(`Changed between the runs: ${result.changed.join('; ')}.`);
  if (result.differentConfig.length > 0)
    notes.push(
      `Compared although the runs differ beyond the change under test (--allow-different-config): ${result.differentConfig.join('; ')}. A GFS change may come from these, not from the change under test.`,
    );
  const u = result.unmatched;
  if (u.subjectsOnlyInBaseline.length > 0)
    notes.push(`Not gated, missing from the current run: ${u.subjectsOnlyInBaseline.join(', ')}.`);
  if (u.subjectsOnlyInCurrent.length > 0)
    notes.push(`Not gated, new in the current run (no baseline): ${u.subjectsOnlyInCurrent.join(', ')}.`);
  if (u.cellsNotShared > 0)
    notes.push(`${u.cellsNotShared} cells are in only one run or unscored in one; they are left out.`);
  if (result.failedCells.length > 0)
    notes.push(
      `Cells the subject gave no answer for (its own failure) count as GFS 0: ${result.failedCells.map((f) => `${f.subject} ${f.current} in the current run, ${f.baseline} in the baseline`).join('; ')}.`,
    );
  if (result.passAll) lines.push('', ...passAllMarkdown(result.passAll, result.minEffect));
  if (notes.length > 0) lines.push('', ...notes.map((n) => `- ${n}`));
  return `${lines.join('\n')}\n`;
}
