/**
 * `rge eval run` (the published config, 2 questions x 2 runs in sync mode: 12 answers and 24 verdicts)
 * against the loopback servers, stopped by the test at a moment it chooses, not at a random one: the
 * servers answer at once until the test holds them; from then on every call that arrives waits until
 * its client goes away (never billed), so that when the test stops the run, the calls in flight are
 * exactly the held ones and no reply is on its way. What the tests then compare: what the servers billed,
 * what the stores and inboxes hold, what the ledger says.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BudgetLedger } from '../../../src/store/ledger.ts';
import type { LedgerSummary } from '../../../src/store/ledger-tally.ts';
import { liveEnv, liveOverrides, root, serverKeys } from '../../helpers/live.ts';
import { type LoopbackServers, startLoopbackServers } from '../../loopback/index.ts';

export const QUESTIONS = 2;
export const RUNS = 2;
/** 3 subjects x questions x runs answers, each judged by the two judges of the other families */
export const ANSWERS = 3 * QUESTIONS * RUNS;
export const VERDICTS = 2 * ANSWERS;

/** Loopback servers the test can hold: calls that arrive while held wait until their client goes away. */
export interface HeldServers {
  servers: LoopbackServers;
  hold(on: boolean): void;
  /** calls that arrived while held (each reserved by rge before it was sent; none billed) */
  readonly held: number;
  /** calls that arrived while not held (each answered at once, and billed) */
  readonly answered: number;
}

export async function heldServers(): Promise<HeldServers> {
  let holding = false;
  let held = 0;
  let answered = 0;
  const servers = await startLoopbackServers(
    {
      latencyMs: () => {
        if (holding) {
          held++;
          return 600_000;
        }
        answered++;
        return 5;
      },
    },
    serverKeys,
  );
  return {
    servers,
    hold: (on) => {
      holding = on;
    },
    get held() {
      return held;
    },
    get answered() {
      return answered;
    },
  };
}

const made: string[] = [];

/** A scenario's folders (removed by `removeScenarioDirs`). */
export async function scenarioDirs(): Promise<{ resultsDir: string; reportsDir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'rge-stop-signals-'));
  made.push(dir);
  return { resultsDir: join(dir, 'results'), reportsDir: join(dir, 'reports') };
}

/** Removes every scenario's folders made so far. */
export async function removeScenarioDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export interface RunChild {
  child: ChildProcess;
  /** what it wrote on stderr so far */
  err(): string;
  out(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `rge eval run` in a child process against the servers (calls never time out: held ones wait). */
export function startRun(s: HeldServers, dirs: { resultsDir: string; reportsDir: string }): RunChild {
  const sets = [
    ...liveOverrides(),
    ...['anthropic', 'openai', 'gemini'].flatMap((p) => [
      `providers.${p}.concurrency=2`,
      `providers.${p}.timeout_ms=600000`,
    ]),
  ].flatMap((o) => ['--set', o]);
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin/rge.mjs'),
      ...['eval', 'run', '--config', 'configs/published.yaml', '--mode', 'sync'],
      ...['--questions', String(QUESTIONS), '--runs', String(RUNS)],
      ...['--results-dir', dirs.resultsDir, '--reports-dir', dirs.reportsDir],
      ...sets,
    ],
    { cwd: root, env: { ...process.env, ...liveEnv(s.servers), CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d;
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, err: () => err, out: () => out, exited };
}

/** Runs `rge eval run` to its end (nothing held); its exit code and output. */
export async function runToEnd(
  s: HeldServers,
  dirs: { resultsDir: string; reportsDir: string },
): Promise<{ code: number | null; out: string; err: string }> {
  s.hold(false);
  const run = startRun(s, dirs);
  const { code } = await run.exited;
  return { code, out: run.out(), err: run.err() };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until `ready()` (polled every 20 ms), or fails after `ms` saying what it waited for (`what`, or
 * what it returns then: e.g. a child's stderr so far).
 */
export async function until(
  what: string | (() => string),
  ready: () => boolean,
  ms = 120_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline)
      throw new Error(`waited ${ms} ms for ${typeof what === 'function' ? what() : what}`);
    await pause(20);
  }
}

/**
 * Waits until `ready()` has held for `steadyMs` on end (a moment the test stops the run at must not be
 * one that the next call to arrive ends), or fails after `ms`.
 */
export async function untilSteady(
  what: string,
  ready: () => boolean,
  steadyMs = 300,
  ms = 120_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  let since: number | null = null;
  for (;;) {
    if (!ready()) since = null;
    else {
      since ??= Date.now();
      if (Date.now() - since >= steadyMs) return;
    }
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}, steady for ${steadyMs} ms`);
    await pause(20);
  }
}

/** Call reservations open in the ledger of a results folder (none before it exists). */
export function openCalls(resultsDir: string): number {
  if (!existsSync(join(resultsDir, '.budget_ledger.jsonl'))) return 0;
  return ledgerOf(resultsDir).open.filter((o) => o.kind === 'call').length;
}

/** Every JSON line of the `.jsonl` files of a folder (none when it is absent). */
function linesUnder(dir: string): Record<string, unknown>[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

interface Charged {
  key: string;
  kind: string;
  identity: { provider: string };
  charges: { key: string }[];
}

/**
 * The records of the cell stores, and the replies in the processes' inboxes that are not stored (an
 * inbox keeps every reply its process received until its run ends).
 */
export function received(resultsDir: string): { stored: Charged[]; inbox: Charged[] } {
  const stored = ['answers', 'verdicts', 'attempts'].flatMap(
    (kind) => linesUnder(join(resultsDir, 'cells', kind)) as unknown as Charged[],
  );
  const keys = new Set(stored.map((r) => r.key));
  const inbox = linesUnder(join(resultsDir, 'cells', '.inbox'))
    .filter((l) => l.t !== 'owner')
    .map((l) => l.record as Charged)
    .filter((r) => !keys.has(r.key));
  return { stored, inbox };
}

/** Sync replies the servers billed. */
export function billedReplies(s: LoopbackServers): number {
  return [s.anthropic, s.openai, s.gemini].flatMap((x) => x.billed).filter((b) => !b.batch).length;
}

/**
 * No reply is on its way: every call answered was billed, and every billed reply is in a store or an
 * inbox (each call's charge once).
 */
export function nothingInTransit(
  s: HeldServers,
  resultsDir: string,
  where: 'stored' | 'stored or inbox',
): boolean {
  const billed = billedReplies(s.servers);
  if (billed !== s.answered) return false;
  const r = received(resultsDir);
  const records = where === 'stored' ? r.stored : [...r.stored, ...r.inbox];
  return new Set(records.flatMap((x) => x.charges.map((c) => c.key))).size === billed;
}

/** The ledger of a results folder, read afresh. */
export function ledgerOf(resultsDir: string): LedgerSummary {
  return BudgetLedger.reader(resultsDir).summary({ capUsd: 100, warnUsd: 50 });
}

/** The run's state file (the only one in the folder). */
export function runStateOf(resultsDir: string): Record<string, unknown> & {
  stopped: string | null;
  stop_signal?: string | null;
  spend: Record<string, number>;
  counts: { answers: { computed: number }; verdicts: { computed: number } };
} {
  const dir = join(resultsDir, '.runs');
  const [file] = readdirSync(dir).filter((f) => f.endsWith('.json'));
  if (!file) throw new Error(`no run state in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8'));
}

/** The summary.md of the run's report (the only report in the folder). */
export function reportOf(reportsDir: string): string {
  const [runId] = readdirSync(reportsDir);
  if (!runId) throw new Error(`no report in ${reportsDir}`);
  return readFileSync(join(reportsDir, runId, 'summary.md'), 'utf8');
}
