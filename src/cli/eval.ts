/**
 * `rge eval run`: the run request from the flags, planned once; the answer and verdict stages in this
 * process, stopped cleanly by a signal; the publish gate (judges validated against people); then the
 * cases in Vitest, and the last lines: pass rate, report, spend. A dry run prints the itemised estimate
 * and calls nothing. (`rge budget` is budget.ts's; `rge eval watch`, watch.ts's.)
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { RunConfig } from '../run/config/config.ts';
import type { RunPlan, RunRequest } from '../run/plan/index.ts';
import type { RunSession } from '../run/session/index.ts';
import type { StageOutput } from '../run/stages/stages.ts';
import type { RunState } from '../store/run-state.ts';
import { UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import type { StoppedBySignal } from '../util/stop-signal.ts';
import type { EvalRunOutcome } from '../vitest/run.ts';
import type { CliIO } from './io.ts';
import { forbidDownloads, OFFLINE_FLAG, OFFLINE_HELP } from './offline.ts';

interface EvalFlags {
  config: string;
  subjects?: string;
  questions?: string;
  sample?: string;
  runs?: string;
  mode?: string;
  set?: string[];
  resultsDir?: string;
  reportsDir?: string;
  dryRun?: boolean;
  json?: boolean | string;
  publish?: boolean;
  case?: string[];
  rerun?: string[];
  minPassRate?: string;
  quiet?: boolean;
  verbose?: boolean;
}

/**
 * How much `rge eval run` says while it runs: 'quiet' with --quiet; 'summary' under CI (CI set) or
 * into a log that is not a terminal (a line per stage, the cases in one line); 'full' on a terminal
 * (a progress line every 5 s, and one kept up to date while the cases run). Warnings and errors are
 * always said.
 */
export function evalOutput(quiet: boolean | undefined, io: CliIO): StageOutput {
  if (quiet) return 'quiet';
  const env = io.env ?? process.env;
  return env.CI || !process.stdout.isTTY ? 'summary' : 'full';
}

/**
 * What the terminal shows of the Vitest cases: every case with its scores with --verbose (or
 * RGE_VERBOSE=1, as for `npx vitest run evals`); else their line, with progress on a terminal.
 */
export function casesOutput(
  flags: { quiet?: boolean; verbose?: boolean },
  output: StageOutput,
  io: CliIO,
): 'cases' | 'summary' | 'progress' {
  const env = io.env ?? process.env;
  if (flags.quiet && flags.verbose) throw new UsageError('--quiet and --verbose: give one of them');
  if (flags.verbose || (!flags.quiet && /^(1|true|yes)$/i.test(env.RGE_VERBOSE ?? ''))) return 'cases';
  return output === 'full' ? 'progress' : 'summary';
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function passRate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const x = Number(value);
  if (!Number.isFinite(x) || x < 0 || x > 1)
    throw new UsageError(`--min-pass-rate must be a number in [0, 1], got "${value}"`);
  return x;
}

/** The flags that make a run request, shared by `rge eval run` and `rge eval watch`. */
export type RunRequestFlags = Pick<
  EvalFlags,
  | 'config'
  | 'set'
  | 'subjects'
  | 'questions'
  | 'sample'
  | 'case'
  | 'runs'
  | 'mode'
  | 'resultsDir'
  | 'reportsDir'
>;

/** The run request of `rge eval run`'s flags (a bad one is a usage error naming the flag). */
export async function evalRequest(flags: RunRequestFlags): Promise<RunRequest> {
  const { parseRunRequest } = await import('../run/plan/index.ts');
  return parseRunRequest(
    {
      config: flags.config,
      overrides: flags.set,
      subjects: flags.subjects,
      questions: flags.questions,
      sample: flags.sample,
      cases: flags.case && flags.case.length > 0 ? flags.case : undefined,
      runs: flags.runs,
      mode: flags.mode,
      resultsDir: flags.resultsDir,
      reportsDir: flags.reportsDir,
    },
    'flags',
  );
}

/** The report's consistency across runs (pass^k, flip rates), read from its summary.json; null without one. */
async function reportConsistency(outcome: { runId?: string | null; reportsDir?: string | null }) {
  if (!outcome.runId || !outcome.reportsDir) return null;
  try {
    const summary = JSON.parse(
      await readFile(join(outcome.reportsDir, outcome.runId, 'summary.json'), 'utf8'),
    );
    return (summary as { consistency?: unknown }).consistency ?? null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null; // no report (e.g. nothing ran)
    throw e;
  }
}

/** Writes JSON to the file `--json FILE` names, or to stdout for a bare `--json`. */
async function writeJson(io: CliIO, json: boolean | string, value: unknown): Promise<void> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (typeof json === 'string') await writeFileAtomic(resolve(io.cwd, json), text);
  else io.out(text);
}

/**
 * `--dry-run`: the itemised estimate of what the run would call; nothing is called or written. The
 * index the plan needs and the fixture world does not have yet was built in `scratch`, a temporary
 * folder the caller removes.
 */
async function dryRun(
  plan: RunPlan,
  flags: EvalFlags,
  io: CliIO,
  ctx: { log: (line: string) => void; scratch: string },
): Promise<void> {
  const { RunSession } = await import('../run/session/index.ts');
  const { estimateRun, formatEstimate, leftForRun } = await import('../run/estimate/index.ts');
  const { log, scratch } = ctx;
  const env = io.env ?? process.env;
  const run = await RunSession.open(plan, { root: io.cwd, log, dryRun: true, env, scratch });
  const estimate = await estimateRun(run);
  const summary = run.ledger.summary();
  if (flags.json) return writeJson(io, flags.json, { ...estimate, budget: summary });
  io.out(
    `run ${plan.info.runId} (dry run: nothing is called): subjects ${plan.subjects.map((s) => s.id).join(', ')}; ` +
      `${plan.questions.length} questions x ${plan.runs} runs\n`,
  );
  io.out(formatEstimate(estimate, { capUsd: summary.capUsd, leftUsd: leftForRun(run.ledger) }));
}

/** What a run stopped by a signal keeps, said with the first signal and in the stop's message. */
export const RUN_KEPT = 'stored answers and verdicts are kept, rerun the same command to resume';

/**
 * The answer and verdict stages, with a stop signal (Ctrl-C, SIGTERM, SIGHUP) stopping cleanly: no new
 * cell starts, calls in flight are aborted (their reservations released), what is stored stays, and the
 * same command resumes; a second signal exits at once (interrupt.ts). `stopped`: the signal's stop.
 */
async function stagesOf(
  run: RunSession,
  log: (line: string) => void,
  output: StageOutput,
): Promise<{ state: RunState; stopped: StoppedBySignal | null }> {
  const { runStages } = await import('../run/stages/stages.ts');
  const { onStopSignals } = await import('./interrupt.ts');
  const { stoppedBy } = await import('../util/stop-signal.ts');
  const controller = new AbortController();
  const stopListening = onStopSignals(controller, { log, kept: RUN_KEPT });
  try {
    const { state } = await runStages(run, { log, signal: controller.signal, output });
    return { state, stopped: stoppedBy(controller.signal) };
  } finally {
    stopListening();
  }
}

/**
 * The last line of a run a signal stopped: the stop, what this run stored and spent, and what this
 * process left open in the budget ledger (nothing in sync mode; in batch mode, its submitted batches,
 * which the next run collects).
 */
export function stoppedLine(run: RunSession, state: RunState, stop: StoppedBySignal): string {
  const mine = run.ledger
    .refresh()
    .open.filter((o) => o.owner.pid === run.ledger.owner.pid && o.owner.host === run.ledger.owner.host);
  const held = mine.reduce((sum, o) => sum + o.usd, 0);
  const { answers, verdicts } = state.counts;
  return (
    `rge: ${stop.message} (this run: ${answers.computed} answers and ${verdicts.computed} verdicts computed, ` +
    `$${state.spend.usd.toFixed(4)} spent; ` +
    (mine.length === 0
      ? 'nothing left held in the budget ledger)'
      : `${mine.length} reservation(s) left held, $${held.toFixed(4)}: submitted batches, which the next run collects)`)
  );
}

/** What `rge eval run` says at the end, and the exit code it sets. */
async function report(run: Staged, outcome: EvalRunOutcome, flags: EvalFlags, io: CliIO): Promise<void> {
  const { state } = run;
  const minPassRate = passRate(flags.minPassRate);
  const spent = run.ledger.refresh();
  const passed = outcome.cases - outcome.failed;
  const rate = outcome.cases > 0 ? passed / outcome.cases : 0;
  const passing =
    minPassRate === undefined
      ? outcome.ok
      : outcome.cases > 0 && rate >= minPassRate && outcome.unhandledErrors === 0;
  if (flags.json)
    await writeJson(io, flags.json, {
      run_id: outcome.runId,
      total: outcome.cases,
      passed,
      failed: outcome.failed,
      pass_rate: rate,
      min_pass_rate: minPassRate ?? null,
      ok: passing && !state.stopped,
      stopped: state.stopped,
      consistency: await reportConsistency(outcome),
      cases: outcome.results,
    });
  const say = flags.json === true ? io.err : io.out;
  // a run no threshold gates passes every case it scored: its pass rate would say nothing
  const gated = Object.values(run.plan.config.thresholds).some((v) => v !== null);
  const rateText =
    !gated && minPassRate === undefined
      ? 'recorded, not gated: every threshold is null'
      : `pass rate ${(rate * 100).toFixed(1)}%${minPassRate === undefined ? '' : `, minimum ${(minPassRate * 100).toFixed(1)}%`}`;
  const resultsDir = run.plan.info.resultsDir;
  const { capSourceOf } = await import('../run/config/config.ts');
  const { spendLine } = await import('./spend-line.ts');
  const thisRun = {
    spentUsd: run.ledger.spentByThisProcess,
    capUsd: run.plan.config.budget.cap_usd,
    source: capSourceOf(run.plan.request.config, run.plan.request.overrides),
  };
  say(
    `${outcome.cases} cases, ${outcome.reused} reused, ${outcome.failed} failed` +
      ` (${rateText})` +
      (outcome.runId && outcome.reportsDir
        ? `; report ${join(outcome.reportsDir, outcome.runId, 'summary.md')}`
        : '') +
      `; answers computed ${state.counts.answers.computed}, verdicts computed ${state.counts.verdicts.computed}` +
      `; ${spendLine(thisRun, relative(io.cwd, resultsDir) || resultsDir, spent)}\n`,
  );
  const { whatWasUsedLine } = await import('../report/sections/what-was-run.ts');
  say(`${whatWasUsedLine(run.plan.info.describe)}\n`);
  if (state.stopped) io.err(`rge: ${state.stopped}\n`);
  for (const c of outcome.results.filter((r) => r.state === 'failed').slice(0, 20))
    io.err(`  failed: ${c.name}: ${(c.failures[0] ?? '').split('\n')[0]}\n`);
  if (outcome.failed > 20) io.err(`  ... ${outcome.failed - 20} more (--json lists every case)\n`);
  if (!passing || state.stopped) io.exitCode = 1;
}

/**
 * `--rerun SUBJECT`: a new epoch for each subject (a system) or its model in the results folder
 * (store/reruns.ts), so that this run, and later ones, ask its cells again once. Before the plan: the
 * plan reads the epochs. A dry run records nothing: it says what would be asked again and returns the
 * subjects for its plan to assume.
 */
async function recordReruns(
  request: RunRequest,
  ids: readonly string[],
  io: CliIO,
  dryRun: boolean,
): Promise<string[]> {
  const { loadRequestConfig, resolveFrom } = await import('../run/plan/index.ts');
  const { Reruns } = await import('../store/reruns.ts');
  const { config } = await loadRequestConfig(request, io.cwd);
  const wanted = ids.flatMap((v) => v.split(',')).map((v) => v.trim());
  const unknown = wanted.filter((id) => !config.subjects.some((s) => s.id === id));
  if (unknown.length > 0)
    throw new UsageError(
      `--rerun names no subject of ${request.config}: ${unknown.join(', ')}; its subjects are ${config.subjects.map((s) => s.id).join(', ')}`,
    );
  const reruns = new Reruns(resolveFrom(io.cwd, request.resultsDir));
  const chosen = config.subjects.filter((s) => wanted.includes(s.id));
  for (const subject of chosen) {
    const epoch = dryRun ? reruns.epochOf(subject) + 1 : await reruns.rerun(subject);
    io.err(
      `rerun: ${subject.id} (${subject.provider}/${subject.model}) ${dryRun ? 'would be' : 'is'} asked again, epoch ${epoch}${dryRun ? ' (a dry run: not recorded)' : ''}\n`,
    );
  }
  return chosen.map((s) => s.id);
}

/**
 * `rge eval run`: the request from the flags, planned once here; the stages run in this process (with
 * progress lines); then the cases run in Vitest, which receives the request and its plan as one value.
 */
async function evalRun(flags: EvalFlags, io: CliIO): Promise<void> {
  const request = await evalRequest(flags);
  // this process runs the stages, then Vitest's main: a heap close to what it keeps (src/vitest/worker-heap.ts)
  const { setHeapGrowth } = await import('../vitest/worker-heap.ts');
  setHeapGrowth(io.env ?? process.env);
  passRate(flags.minPassRate);
  const assumeReruns = flags.rerun ? await recordReruns(request, flags.rerun, io, flags.dryRun === true) : [];
  const { planFromRequest } = await import('../run/plan/index.ts');
  const log = (line: string) => io.err(`${line}\n`);
  const output = evalOutput(flags.quiet, io);
  const terminal = casesOutput(flags, output, io);
  const load = {
    root: io.cwd,
    log,
    // an index built on first use: its stages' last lines only, unless on a terminal
    ...(output === 'full' ? {} : { progressEveryMs: Number.POSITIVE_INFINITY }),
    // corpus.allow_download: false forbids downloads as --offline does
    onConfig: (config: RunConfig) => {
      if (config.corpus?.allow_download === false) forbidDownloads();
    },
  };
  if (flags.dryRun) {
    // a dry run writes nothing here: an index it must build is built in a temporary folder, removed after
    const scratch = await mkdtemp(join(tmpdir(), 'rge-dry-run-'));
    try {
      const plan = await planFromRequest(request, { ...load, dryRun: true, scratch, assumeReruns });
      for (const note of plan.notes) log(note);
      return await dryRun(plan, flags, io, { log, scratch });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  const plan = await planFromRequest(request, load);
  for (const note of plan.notes) log(note);
  const staged = await stagedRun(plan, flags, io, log, output);
  if (!staged) return;
  // Vite loads rolldown's binding here: its allocator's options first (src/vitest/allocator.ts)
  const { withAllocatorEnv } = await import('../vitest/allocator.ts');
  const { runEvalSuite } = await withAllocatorEnv(() => import('../vitest/run.ts'));
  const outcome = await runEvalSuite({
    root: io.cwd,
    handoff: { request: { ...request, stages: 'done' }, plan, plannedBy: process.pid },
    terminal,
  });
  await report(staged, outcome, flags, io);
}

/** What `rge eval run` keeps of its stages for its last lines: the state, the plan and the ledger. */
interface Staged {
  state: RunState;
  plan: RunPlan;
  ledger: RunSession['ledger'];
}

/**
 * Opens the run and runs its stages (and the publish gate), in a frame of its own: the session (its
 * cells, stores and providers) is let go before the cases run, so a run of a hundred thousand cells does
 * not hold its stages' state through the suite (issue 41). Null when the run stops here (its exit code set).
 */
async function stagedRun(
  plan: RunPlan,
  flags: EvalFlags,
  io: CliIO,
  log: (line: string) => void,
  output: StageOutput,
): Promise<Staged | null> {
  const { RunSession } = await import('../run/session/index.ts');
  const run = await RunSession.open(plan, { root: io.cwd, log, env: io.env ?? process.env });
  const { state, stopped } = await stagesOf(run, log, output).finally(() => run.close());
  if (stopped) {
    io.err(`${stoppedLine(run, state, stopped)}\n`);
    io.exitCode = stopped.exitCode;
    return null;
  }
  if (flags.publish) {
    const gate = await publishGate(run, state);
    io.err(`${gate.message}\n`);
    if (!gate.ok) {
      io.exitCode = 1;
      return null;
    }
  }
  return { state, plan, ledger: run.ledger };
}

export function registerEvalCommands(program: Command, io: CliIO): void {
  const evalCmd = program.command('eval').description('run the evaluation suite');
  evalCmd
    .command('run')
    .description(
      'run the eval suite: answers, then verdicts (sync or batch, resumable, within the budget), then one Vitest case per subject, question and run; writes reports/<run_id>/',
    )
    .option('--config <file>', 'run config', 'configs/fixture.yaml')
    .option('--subjects <ids>', 'only these subjects (comma-separated ids)')
    .option('--questions <n>', 'only the first N questions')
    .option(
      '--sample <n>',
      "a seeded sample of N questions, stratified by category (a quick look at every category; the config's seed)",
    )
    .option('--case <id>', 'only this question id (repeatable; its own run id and report)', collect)
    .option('--runs <n>', 'runs per question (default: the config runs)')
    .option(
      '--rerun <subject>',
      "ask this subject's cells again, though stored (a new epoch of its model; repeatable or comma-separated)",
      collect,
    )
    .option('--mode <mode>', 'sync or batch (default: the config mode)')
    .option('--set <path=value>', 'override a config field, e.g. corpus.index=DIR (repeatable)', collect)
    .option('--results-dir <dir>', 'results folder (cell stores, budget ledger, batches)', 'data/results')
    .option('--reports-dir <dir>', 'reports folder', 'reports')
    .option(
      '--publish',
      'a publishing run: refuse unless every (judge x dimension) kappa against people meets validation.min_kappa or the config documents the limitation',
    )
    .option('--dry-run', 'print the itemised cost estimate and what would run; call nothing, write nothing')
    .option(
      '--json [file]',
      'write every case (name, pass or fail, failed matchers, scores) and the pass rate as JSON to FILE (stdout without FILE); with --dry-run: the estimate',
    )
    .option(
      '--min-pass-rate <x>',
      'exit 1 when fewer than this share of cases pass their matchers (default: any failed case fails the run)',
    )
    .option(
      '--quiet',
      "say only the stages' summaries, warnings, errors and the final lines (the cases in one line, the estimate in one); " +
        'under CI or into a log that is not a terminal the stages and cases say one line each anyway',
    )
    .option(
      '--verbose',
      'print every case with its scores, as vitest-evals does (RGE_VERBOSE=1 does the same, for npx vitest run evals too)',
    )
    .option(OFFLINE_FLAG, `${OFFLINE_HELP}; the config's corpus.allow_download: false does the same`)
    .action((flags: EvalFlags) => evalRun(flags, io));
}

/**
 * Methodology 5.4: a published run needs judges validated against people: kappa >= the threshold on
 * every (judge x dimension) cell of this run's labelled responses, or a limitation documented in the
 * config. Anything else (no labels, a cell below) refuses, saying what to do.
 */
export async function publishGate(
  run: RunSession,
  state: RunState,
): Promise<{ ok: boolean; message: string }> {
  const { caseRow } = await import('../run/case/case.ts');
  const { validationMarkdown, validationSummary } = await import('../validation/summary.ts');
  const { readLabels, readReviews } = await import('../validation/labels.ts');
  const rows = [];
  for (const cell of await run.work.cells()) {
    try {
      rows.push(caseRow(run, cell, state));
    } catch {
      // a cell the run could not complete has no verdicts to validate
    }
  }
  const v = validationSummary(
    rows,
    await readLabels(run.plan.info.labelsDir),
    await readReviews(run.plan.info.labelsDir),
    run.plan.info.minKappa,
    run.plan.info.limitation,
  );
  const table = validationMarkdown(v).join('\n');
  if (v.passes)
    return { ok: true, message: `publish: the judges meet kappa >= ${v.minKappa} against people.\n${table}` };
  if (v.limitation && v.labelled > 0)
    return {
      ok: true,
      message: `publish: cells below ${v.minKappa}, with the limitation documented in the config.\n${table}`,
    };
  const why =
    v.labelled === 0
      ? `no response of this run has a human label in ${run.plan.info.labelsDir}: draw the validation set (rge validation sample) and label it (rge validation label)`
      : `cells below the pre-registered ${v.minKappa}: revise the rubric (a new judge_prompt version), re-score the labelled set, or document the limitation in validation.limitation of ${run.plan.info.configFile}`;
  return { ok: false, message: `rge: refusing to publish: ${why}.\n${table}` };
}
