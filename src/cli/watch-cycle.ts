/**
 * One run of `rge eval watch`: the request planned again from the files as they are now, then, unless
 * the plan is the one the last run finished (no input changed any cell: nothing to do), a run as
 * `rge eval run` makes it: the stages ask only the cells no store holds (a cell is reused by what it
 * is, so exactly the cells whose identity changed are asked), saying the cost estimate before any paid
 * call and waiting for a key press above `--confirm-above`; then the Vitest cases and the report; then
 * a few lines: the cases that changed since the last run and the gate's verdict against the baseline.
 *
 * A stop signal during the stages stops them as it stops `rge eval run` (interrupt.ts: no new call,
 * the calls in flight aborted and released, what is stored kept); the watch then ends. An error of the
 * files (a config half saved, a question line that does not parse) is said and the watch goes on.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadContext, RunPlan, RunRequest } from '../run/plan/index.ts';
import type { RunSession } from '../run/session/index.ts';
import type { StageOutput } from '../run/stages/stages.ts';
import type { RunDigest } from '../run/watch/changes.ts';
import type { WatchedInputs } from '../run/watch/inputs.ts';
import type { Estimate, RunState } from '../store/run-state.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { StoppedBySignal } from '../util/stop-signal.ts';
import type { EvalRunOutcome } from '../vitest/run.ts';
import type { CliIO } from './io.ts';
import type { KeySource } from './watch-keys.ts';

/** What every run of a watch is asked, from its flags. */
export interface WatchSettings {
  request: RunRequest;
  io: CliIO;
  load: LoadContext;
  output: StageOutput;
  /** wait for a key press before a run whose expected cost is above this (USD); null: never wait */
  confirmAboveUsd: number | null;
  /** the baseline to gate against: `--baseline` (given), else the reports folder's baseline.json when there */
  baseline: { file: string; given: boolean };
  minEffect: number;
  minPassRate: number | null;
  keys: KeySource;
}

/** What a watch remembers from one run to the next. */
export interface WatchMemory {
  /** the run id of the last run that ended with every cell stored: planned again unchanged, nothing to do */
  settledRunId: string | null;
  /** the cases of the last run that reached its report, to say which changed */
  lastCases: RunDigest | null;
  /** what the last plan was made from (the files to watch) */
  inputs: WatchedInputs | null;
  /** the plan's notes last said (said again only when they change) */
  notes: string;
}

export type CycleEnd =
  | { kind: 'ran' | 'nothing' | 'skipped' | 'failed' }
  | { kind: 'stopped'; stop: StoppedBySignal };

/** A run skipped before its first call (q pressed, or no terminal to ask). */
class Skipped extends Error {}

/** A stop signal while the key was waited for: before any call of the run. */
class StoppedAtKey extends Error {
  constructor(readonly stop: StoppedBySignal) {
    super(stop.message);
  }
}

const usd = (x: number) => `$${x.toFixed(x >= 1 ? 2 : 4)}`;

/**
 * The key press above `--confirm-above`, between the estimate said and the first call: Enter goes, q
 * skips; a stdin that is not a terminal skips with a message.
 */
function confirmCalls(s: WatchSettings, signal: AbortSignal) {
  return async (estimate: Estimate): Promise<void> => {
    const expected = estimate.totals.expectedUsd;
    if (s.confirmAboveUsd === null || estimate.totals.calls === 0 || expected <= s.confirmAboveUsd) return;
    const above = `the estimate of ${usd(expected)} is above --confirm-above ${usd(s.confirmAboveUsd)}`;
    if (!s.keys.interactive)
      throw new Skipped(
        `${above} and stdin is not a terminal, so no key can be pressed: skipped, nothing was called. ` +
          'Run it with rge eval run, or raise --confirm-above',
      );
    s.io.err(`${above}: press Enter to run it, q to skip\n`);
    const choice = await s.keys.choose(signal).catch((err: unknown) => {
      throw err instanceof StoppedBySignal ? new StoppedAtKey(err) : err;
    });
    if (choice === 'skip') throw new Skipped('skipped: nothing was called; the next change plans it again');
  };
}

/** The stages of the run, stoppable as `rge eval run`'s: its state, or why it did not run to its end. */
async function stagesOf(
  s: WatchSettings,
  run: RunSession,
): Promise<{ state: RunState } | { skipped: string } | { stopped: StoppedBySignal; state: RunState | null }> {
  const { runStages } = await import('../run/stages/stages.ts');
  const { onStopSignals } = await import('./interrupt.ts');
  const { stoppedBy } = await import('../util/stop-signal.ts');
  const { RUN_KEPT } = await import('./eval.ts');
  const log = (line: string) => s.io.err(`${line}\n`);
  const controller = new AbortController();
  const stopListening = onStopSignals(controller, { log, kept: RUN_KEPT });
  try {
    const { state } = await runStages(run, {
      log,
      signal: controller.signal,
      output: s.output,
      beforeCalls: confirmCalls(s, controller.signal),
    });
    const stopped = stoppedBy(controller.signal);
    return stopped ? { stopped, state } : { state };
  } catch (err) {
    if (err instanceof Skipped) return { skipped: err.message };
    if (err instanceof StoppedAtKey) return { stopped: err.stop, state: null };
    throw err;
  } finally {
    stopListening();
    run.close();
  }
}

/** The run's report, gated against the baseline in a few lines (none without a baseline). */
async function gateLines(s: WatchSettings, outcome: EvalRunOutcome): Promise<string[]> {
  const { file, given } = s.baseline;
  if ((!given && !existsSync(file)) || !outcome.runId || !outcome.reportsDir) return [];
  const { shownPath } = await import('../run/watch/inputs.ts');
  const name = shownPath(s.io.cwd, file);
  const current = join(outcome.reportsDir, outcome.runId, 'summary.json');
  if (!existsSync(current)) return [`gate against ${name}: no report to compare (the cases did not run)`];
  const { compareRuns, readGateSummary, refuseDifferentConfig } = await import('../gate/gate.ts');
  const { configDifferences, configLabel } = await import('../gate/basis.ts');
  const { gateBrief } = await import('../gate/brief.ts');
  try {
    const [before, now] = [await readGateSummary(file), await readGateSummary(current)];
    if (before.partial) throw new UsageError(`${name} is a partial report and cannot be the baseline`);
    // the reports folder's baseline of another config is not this run's: said in one line, not refused
    if (!given && configDifferences(before, now).length > 0)
      return [
        `${name} is the baseline of ${configLabel(before)}, not of this run's config or questions: not gated (--baseline F gates against another)`,
      ];
    const files = { baseline: name, current: shownPath(s.io.cwd, current) };
    refuseDifferentConfig(before, now, files);
    return gateBrief(compareRuns(before, now, { minEffect: s.minEffect, files }), name);
  } catch (err) {
    if (err instanceof RgeError) return [`gate against ${name}: not compared: ${err.message}`];
    throw err;
  }
}

/** What the watch says after the cases: the run's line, the changed cases, the gate. */
async function afterCases(
  s: WatchSettings,
  memory: WatchMemory,
  ran: { plan: RunPlan; state: RunState; outcome: EvalRunOutcome; spentUsd: number },
): Promise<void> {
  const { plan, state, outcome } = ran;
  const { runDigest, caseChanges } = await import('../run/watch/changes.ts');
  const { changeLines } = await import('./watch-lines.ts');
  const { shownPath } = await import('../run/watch/inputs.ts');
  const passed = outcome.cases - outcome.failed;
  const rate = outcome.cases > 0 ? passed / outcome.cases : 0;
  const gated = Object.values(plan.config.thresholds).some((v) => v !== null);
  const rateText =
    !gated && s.minPassRate === null
      ? 'recorded, not gated'
      : `pass rate ${(rate * 100).toFixed(1)}%${s.minPassRate === null ? '' : `, minimum ${(s.minPassRate * 100).toFixed(1)}%${rate < s.minPassRate ? ': BELOW' : ''}`}`;
  const report =
    outcome.runId && outcome.reportsDir ? join(outcome.reportsDir, outcome.runId, 'summary.md') : null;
  const lines = [
    `run ${plan.info.runId}: ${outcome.cases} cases, ${outcome.reused} reused, ${outcome.failed} failed (${rateText}); ` +
      `answers computed ${state.counts.answers.computed}, verdicts computed ${state.counts.verdicts.computed}; ` +
      `spent ${usd(ran.spentUsd)}${report ? `; report ${shownPath(s.io.cwd, report)}` : ''}`,
  ];
  const cases = runDigest(plan);
  if (memory.lastCases) lines.push(...changeLines(caseChanges(memory.lastCases, cases)));
  lines.push(...(await gateLines(s, outcome)));
  s.io.out(`${lines.join('\n')}\n`);
  memory.lastCases = cases;
}

/** The Vitest cases of a run whose stages are done, as `rge eval run` runs them (one line for them all). */
async function casesOf(s: WatchSettings, plan: RunPlan): Promise<EvalRunOutcome> {
  const { withAllocatorEnv } = await import('../vitest/allocator.ts');
  const { runEvalSuite } = await withAllocatorEnv(() => import('../vitest/run.ts'));
  return runEvalSuite({
    root: s.io.cwd,
    handoff: { request: { ...s.request, stages: 'done' }, plan, plannedBy: process.pid },
    terminal: 'summary',
  });
}

/** The plan of the request from the files as they are now; null (said) when they do not plan. */
async function planNow(s: WatchSettings, memory: WatchMemory, first: boolean): Promise<RunPlan | null> {
  const { planFromRequest } = await import('../run/plan/index.ts');
  const { watchedInputs } = await import('../run/watch/inputs.ts');
  try {
    const plan = await planFromRequest(s.request, s.load);
    memory.inputs = await watchedInputs(plan, s.io.cwd);
    const notes = plan.notes.join('\n');
    if (notes !== memory.notes && notes !== '') s.io.err(`${notes}\n`);
    memory.notes = notes;
    return plan;
  } catch (err) {
    // a wrong flag, or a config not there at the start, ends the watch; an error of the files is said
    if (!(err instanceof RgeError) || (first && err instanceof UsageError)) throw err;
    s.io.err(`rge: ${err.message}\n`);
    s.io.err('the files do not make a run: fix them and save; the next change plans again\n');
    if (!memory.inputs) memory.inputs = await fallbackInputs(s);
    return null;
  }
}

/** What to watch when not even the first plan could be made: the config and the files it names. */
async function fallbackInputs(s: WatchSettings): Promise<WatchedInputs> {
  const { loadRequestConfig } = await import('../run/plan/index.ts');
  const { resolveFrom } = await import('../run/plan/index.ts');
  const configFile = resolveFrom(s.io.cwd, s.request.config);
  try {
    const { config } = await loadRequestConfig(s.request, s.io.cwd);
    const named = [
      config.questions.file,
      config.subject_prompt.file,
      ...config.subjects.map((x) => x.module),
    ];
    const files = named
      .filter((f): f is string => typeof f === 'string')
      .map((f) => resolveFrom(s.io.cwd, f));
    return { files: [configFile, ...files], trees: [], declared: [], cellInputs: [configFile, ...files] };
  } catch {
    return { files: [configFile], trees: [], declared: [], cellInputs: [configFile] };
  }
}

/** One run of the watch (see the file's comment). */
export async function watchCycle(s: WatchSettings, memory: WatchMemory, first: boolean): Promise<CycleEnd> {
  const plan = await planNow(s, memory, first);
  if (!plan) return { kind: 'failed' };
  if (plan.info.runId === memory.settledRunId) {
    s.io.out(`no cell's identity changed (the same run, ${plan.info.runId}): nothing to run\n`);
    return { kind: 'nothing' };
  }
  const { RunSession } = await import('../run/session/index.ts');
  let run: RunSession;
  try {
    run = await RunSession.open(plan, { root: s.io.cwd, log: s.load.log, env: s.io.env ?? process.env });
  } catch (err) {
    if (!(err instanceof RgeError) || first) throw err;
    s.io.err(`rge: ${err.message}\n`);
    return { kind: 'failed' };
  }
  const staged = await stagesOf(s, run).catch((err: unknown) => {
    if (!(err instanceof RgeError)) throw err;
    s.io.err(`rge: ${err.message}\n`); // the cap's pre-flight refusal, a store that cannot be read
    return null;
  });
  if (staged === null) return { kind: 'failed' };
  if ('skipped' in staged) {
    s.io.err(`${staged.skipped}\n`);
    return { kind: 'skipped' };
  }
  if ('stopped' in staged) {
    const { stoppedLine } = await import('./eval.ts');
    s.io.err(
      `${staged.state ? stoppedLine(run, staged.state, staged.stopped) : `rge: ${staged.stopped.message} (before any call)`}\n`,
    );
    return { kind: 'stopped', stop: staged.stopped };
  }
  const { state } = staged;
  const outcome = await casesOf(s, plan);
  await afterCases(s, memory, { plan, state, outcome, spentUsd: state.spend.usd });
  const whole = Object.keys(state.errors).length === 0 && state.stopped === null;
  memory.settledRunId = whole ? plan.info.runId : null;
  return { kind: 'ran' };
}
