/**
 * `rge eval watch`: `rge eval run` again whenever the files a run is made from change (the config, the
 * question file, the subject prompt, a system's version files and module), asking only the cells whose
 * identity changed: every other cell is in the results folder already and is reused by what it is.
 * Before any paid call the cost estimate is said, and above `--confirm-above` a key press is waited for
 * (Enter runs, q skips; without a terminal the run is skipped, saying so). After each run: the cases
 * that changed since the one before, and the gate's verdict against the baseline, in a few lines.
 *
 * Saves come in bursts (an editor writes a file several times): the watch waits until the files have
 * been quiet for `--debounce` ms. A change during a run makes one more run after it. Ctrl-C (or SIGTERM,
 * SIGHUP) while waiting ends the watch at once; during the stages it stops them as it stops
 * `rge eval run` (interrupt.ts), leaving the results folder as a stopped run leaves it, and ends the
 * watch; during the cases Vitest ends the process, as during `rge eval run`'s.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { RunConfig } from '../run/config/config.ts';
import type { WatchedInputs } from '../run/watch/inputs.ts';
import { UsageError } from '../util/errors.ts';
import type { InputWatcher } from '../util/file-watch.ts';
import { STOP_EXIT_CODES, STOP_SIGNALS, type StopSignal, signalName } from '../util/stop-signal.ts';
import { evalOutput, evalRequest } from './eval.ts';
import { type CliIO, existingPath, nonNegativeInteger } from './io.ts';
import { forbidDownloads, OFFLINE_FLAG, OFFLINE_HELP } from './offline.ts';
import type { WatchMemory, WatchSettings } from './watch-cycle.ts';
import { type KeySource, terminalKeys } from './watch-keys.ts';

interface WatchFlags {
  config: string;
  subjects?: string;
  questions?: string;
  sample?: string;
  case?: string[];
  runs?: string;
  mode?: string;
  set?: string[];
  resultsDir: string;
  reportsDir: string;
  minPassRate?: string;
  quiet?: boolean;
  baseline?: string;
  minEffect?: string;
  confirmAbove?: string;
  debounce?: string;
}

/** How long the files must be quiet before a change is run (ms). */
export const DEFAULT_DEBOUNCE_MS = 300;
/** DEFAULT_MIN_EFFECT of src/gate/gate.ts, kept here so that `--help` loads no statistics */
const DEFAULT_MIN_EFFECT = 0.02;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A number flag within [min, max), or a usage error naming the flag; undefined stays undefined. */
function numberFlag(name: string, value: string | undefined, what: string, max = Number.POSITIVE_INFINITY) {
  if (value === undefined) return undefined;
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < 0 || x >= max)
    throw new UsageError(`--${name} must be ${what}, got "${value}"`);
  return x;
}

/** The watch's settings from its flags; every usage error is thrown here, before anything runs. */
async function settingsOf(
  flags: WatchFlags,
  io: CliIO,
  keys: KeySource,
): Promise<WatchSettings & { debounceMs: number }> {
  const request = await evalRequest(flags);
  const confirmAbove = numberFlag('confirm-above', flags.confirmAbove, 'a non-negative amount of US dollars');
  const minPassRate = numberFlag('min-pass-rate', flags.minPassRate, 'a number in [0, 1]', 1.000001);
  const minEffect = numberFlag('min-effect', flags.minEffect, 'a number in [0, 1)', 1) ?? DEFAULT_MIN_EFFECT;
  const debounceMs = nonNegativeInteger('debounce', flags.debounce) ?? DEFAULT_DEBOUNCE_MS;
  // the baseline named must be there; the reports folder's own is used when it is there (each run looks)
  const baseline = flags.baseline
    ? { file: existingPath(io.cwd, '--baseline', flags.baseline, 'file'), given: true }
    : { file: resolve(io.cwd, flags.reportsDir, 'baseline.json'), given: false };
  const log = (line: string) => io.err(`${line}\n`);
  const output = evalOutput(flags.quiet, io);
  return {
    request,
    io,
    load: {
      root: io.cwd,
      log,
      ...(output === 'full' ? {} : { progressEveryMs: Number.POSITIVE_INFINITY }),
      onConfig: (config: RunConfig) => {
        if (config.corpus?.allow_download === false) forbidDownloads();
      },
    },
    output,
    confirmAboveUsd: confirmAbove ?? null,
    baseline,
    minEffect,
    minPassRate: minPassRate ?? null,
    keys,
    debounceMs,
  };
}

/** Waits for the next settled change, or for a stop signal (which ends the watch). */
async function nextChange(watcher: InputWatcher): Promise<{ paths: string[] } | { signal: StopSignal }> {
  const controller = new AbortController();
  let got: StopSignal | null = null;
  const handler = (signal: StopSignal) => {
    got = signal;
    controller.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  try {
    const paths = await watcher.next(controller.signal);
    return paths === null || got !== null ? { signal: got ?? 'SIGINT' } : { paths };
  } finally {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, handler);
  }
}

/** `watching configs/ci.yaml, prompts/subject.md, ... for changes`, when what is watched changed. */
function watchingLine(
  inputs: WatchedInputs,
  root: string,
  shown: (root: string, p: string) => string,
): string {
  const names = [...inputs.files, ...inputs.trees.map((t) => `${t}/`)].map((p) => shown(root, p));
  return `watching ${names.join(', ')} for changes (Ctrl-C to stop)`;
}

async function watchCommand(flags: WatchFlags, io: CliIO, keys: KeySource): Promise<void> {
  const settings = await settingsOf(flags, io, keys);
  const { setHeapGrowth } = await import('../vitest/worker-heap.ts');
  setHeapGrowth(io.env ?? process.env);
  const { watchCycle } = await import('./watch-cycle.ts');
  const { InputWatcher } = await import('../util/file-watch.ts');
  const { declaredChanges, shownPath } = await import('../run/watch/inputs.ts');
  const folders = [settings.request.resultsDir, settings.request.reportsDir].map((d) => resolve(io.cwd, d));
  const watcher = new InputWatcher({ debounceMs: settings.debounceMs, ignore: folders });
  const memory: WatchMemory = { settledRunId: null, lastCases: null, inputs: null, notes: '' };
  let said = '';
  try {
    for (let first = true; ; first = false) {
      const end = await watchCycle(settings, memory, first);
      if (end.kind === 'stopped') {
        io.exitCode = end.stop.exitCode;
        return;
      }
      const inputs = memory.inputs as WatchedInputs;
      for (const folder of watcher.target(inputs)) io.err(`rge: cannot watch ${folder} (not there?)\n`);
      const line = watchingLine(inputs, io.cwd, shownPath);
      io.err(`${line === said ? 'watching for changes (Ctrl-C to stop)' : line}\n`);
      said = line;
      const next = await nextChange(watcher);
      if ('signal' in next) {
        io.err(`rge: ${signalName(next.signal)} received: stopped watching\n`);
        io.exitCode = STOP_EXIT_CODES[next.signal];
        return;
      }
      io.err(`changed: ${next.paths.map((p) => shownPath(io.cwd, p)).join(', ')}\n`);
      for (const why of declaredChanges(inputs, next.paths, io.cwd)) io.err(`${why}\n`);
    }
  } finally {
    watcher.close();
  }
}

export function registerWatchCommand(program: Command, io: CliIO, keys: KeySource = terminalKeys()): void {
  const evalCmd = program.commands.find((c) => c.name() === 'eval');
  if (!evalCmd) throw new Error('the eval command is registered first');
  evalCmd
    .command('watch')
    .description(
      'run the eval suite, then again on every change of the config, the question file, the subject prompt or a system under test, asking only the cells whose identity changed; after each run, the changed cases and the gate against the baseline',
    )
    .option('--config <file>', 'run config', 'configs/fixture.yaml')
    .option('--subjects <ids>', 'only these subjects (comma-separated ids)')
    .option('--questions <n>', 'only the first N questions')
    .option('--sample <n>', 'a seeded sample of N questions, stratified by category')
    .option('--case <id>', 'only this question id (repeatable)', collect)
    .option('--runs <n>', 'runs per question (default: the config runs)')
    .option('--mode <mode>', 'sync or batch (default: the config mode)')
    .option('--set <path=value>', 'override a config field (repeatable)', collect)
    .option('--results-dir <dir>', 'results folder (cell stores, budget ledger, batches)', 'data/results')
    .option('--reports-dir <dir>', 'reports folder', 'reports')
    .option('--min-pass-rate <x>', 'say when fewer than this share of cases pass (the watch goes on)')
    .option('--quiet', "say only the stages' summaries, warnings, errors and the last lines of each run")
    .option(
      '--baseline <file>',
      "gate each run against this baseline (default: the reports folder's baseline.json, when there)",
    )
    .option(
      '--min-effect <x>',
      'the smallest GFS drop the gate counts as a regression',
      String(DEFAULT_MIN_EFFECT),
    )
    .option(
      '--confirm-above <usd>',
      'before a run whose expected cost is above this many dollars, wait for Enter (run) or q (skip); without a terminal, skip',
    )
    .option(
      '--debounce <ms>',
      'how long the files must be quiet before a change is run',
      String(DEFAULT_DEBOUNCE_MS),
    )
    .option(OFFLINE_FLAG, `${OFFLINE_HELP}; the config's corpus.allow_download: false does the same`)
    .action((flags: WatchFlags) => watchCommand(flags, io, keys));
}
