/**
 * What the run-level tests of a system subject (system-kill.test.ts, system-failures.test.ts) share:
 * `rge eval run` in a child process (killable), the scripted command system, and readers of what a run
 * leaves: the cells its stores hold, its run state, its report, and the system's own log of the
 * questions it was asked.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunState } from '../../src/store/run-state.ts';
import { isRunning } from '../system/child-process.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The scripted command system (its environment scripts it: see the file). */
export const SCRIPTED = fileURLToPath(new URL('./system-fixtures/scripted-system.mjs', import.meta.url));

export interface RgeOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** `node bin/rge.mjs ARGS...` in the repository, with extra environment; `done` resolves when it closes. */
export function startRge(
  args: readonly string[],
  env: Record<string, string>,
): { child: ChildProcessWithoutNullStreams; done: Promise<RgeOutcome> } {
  const child = spawn(process.execPath, ['bin/rge.mjs', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, CI: '1' },
    stdio: 'pipe',
  });
  child.stdin.end();
  const done = new Promise<RgeOutcome>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
  return { child, done };
}

/** `rge eval run` on a config, the world's overrides, results and reports under `dir`, with more flags. */
export function evalRunArgs(
  config: string,
  overrides: readonly string[],
  dir: string,
  more: string[],
): string[] {
  return [
    'eval',
    'run',
    '--config',
    config,
    ...overrides.flatMap((o) => ['--set', o]),
    '--results-dir',
    join(dir, 'results'),
    '--reports-dir',
    join(dir, 'reports'),
    ...more,
  ];
}

/** A cell as the tests name it: `<question id>/<run index>`. */
export const cellName = (questionId: string, runIndex: number | string) => `${questionId}/${runIndex}`;

/** The whole lines of a file (a torn last line, a writer killed mid-line, left out); [] when absent. */
export function wholeLines(file: string): string[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  return whole.split('\n').filter((l) => l.trim() !== '');
}

interface StoredRecord {
  key: string;
  identity: { question_id?: string; run_index?: number };
}

/** The records of one kind of cell store of a results folder, file by file (store file name -> records). */
export function storedRecords(resultsDir: string, kind: 'answers' | 'verdicts'): Map<string, StoredRecord[]> {
  const dir = join(resultsDir, 'cells', kind);
  const out = new Map<string, StoredRecord[]>();
  if (!existsSync(dir)) return out;
  // only the stores: a lock folder (`*.jsonl.lock`) may sit beside one while a process writes it
  for (const f of readdirSync(dir).filter((name) => name.endsWith('.jsonl')))
    out.set(
      f,
      wholeLines(join(dir, f)).map((l) => JSON.parse(l) as StoredRecord),
    );
  return out;
}

/**
 * The answers of a results folder received and not yet known to be stored: the replies each process
 * wrote to its inbox (`cells/.inbox/`) the moment they arrived; a process killed before storing one
 * leaves it there, and the next run moves it into its store without asking again.
 */
export function receivedCells(resultsDir: string): string[] {
  const dir = join(resultsDir, 'cells', '.inbox');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      wholeLines(join(dir, f)).map((l) => JSON.parse(l) as { t: string; record?: StoredRecord }),
    )
    .filter((line) => line.t === 'answer')
    .map(({ record }) =>
      cellName(record?.identity.question_id as string, record?.identity.run_index as number),
    );
}

/** The answered cells of a results folder's answer store `file`, one name per line (duplicates kept). */
export function storedCells(resultsDir: string, file: string): string[] {
  return (storedRecords(resultsDir, 'answers').get(file) ?? []).map((r) =>
    cellName(r.identity.question_id as string, r.identity.run_index as number),
  );
}

/** The cells a system's log says it was asked under `tag`, one per line (duplicates kept). */
export function askedCells(log: string, tag: string): string[] {
  return wholeLines(log)
    .map((l) => l.split(' '))
    .filter(([t]) => t === tag)
    .map(([, id, run]) => cellName(id as string, run as string));
}

/**
 * The live processes whose environment holds `entry` (`NAME=value`): on Linux every one in /proc, so
 * a process rge had started just before it was killed counts too, though it has not yet said who it
 * is; elsewhere the `pids` a system's processes wrote.
 */
export function processesWith(entry: string, pids: readonly number[]): number[] {
  if (!existsSync('/proc/self/environ')) return pids.filter(isRunning);
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry))
        found.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found.filter(isRunning);
}

/** The one run id a results folder holds a state for. */
export function onlyRunId(resultsDir: string): string {
  const ids = readdirSync(join(resultsDir, '.runs')).filter((f) => /^[^.]+\.json$/.test(f));
  if (ids.length !== 1) throw new Error(`expected one run state in ${resultsDir}, found ${ids.join(', ')}`);
  return (ids[0] as string).replace(/\.json$/, '');
}

/** A run's state file (errors by cell, counts). */
export function runState(resultsDir: string, runId: string): RunState {
  return JSON.parse(readFileSync(join(resultsDir, '.runs', `${runId}.json`), 'utf8')) as RunState;
}

/** The part of a run's summary.json these tests read. */
export interface SummaryJson {
  cases: { total: number; scored: number; unscored: number; failed: number };
  gfs: Record<string, { all: { primary: { n: number } } }>;
  outcomes: Record<
    string,
    { answered: number; failed: number; answeredOnly: { primary: { n: number } } | null }
  >;
  diagnostics: {
    errors: { count: number; list: { name: string; message: string; subject_id?: string; by?: string }[] };
    cells: { subject: string; question_id: string; run_index: number; gfs: number | null; failed?: true }[];
  };
}

/** A run's report: summary.md and summary.json. */
export function report(reportsDir: string, runId: string): { md: string; json: SummaryJson } {
  const dir = join(reportsDir, runId);
  return {
    md: readFileSync(join(dir, 'summary.md'), 'utf8'),
    json: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as SummaryJson,
  };
}

/** Elements of `xs` that occur more than once. */
export function repeated(xs: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const x of xs) (seen.has(x) ? twice : seen).add(x);
  return [...twice].sort();
}
