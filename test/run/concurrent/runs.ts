/**
 * Several `rge eval run` processes started at once on one results folder against the loopback servers
 * (the published config, a few questions), optionally with one of them killed with SIGKILL midway:
 * while it holds the lease of a cell whose call is in flight (sync), or owns a submitted batch (batch).
 * Then what the tests check: what the servers billed, what the stores hold, what the ledger says.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { batchesDir, loadBatchRecords } from '../../../src/store/batch-records.ts';
import { CellStores } from '../../../src/store/cells.ts';
import { CellLeases } from '../../../src/store/leases.ts';
import { BudgetLedger } from '../../../src/store/ledger.ts';
import type { LedgerSummary } from '../../../src/store/ledger-tally.ts';
import { worldOverrides } from '../../helpers/fixture-world.ts';
import {
  cellCounts,
  liveEnv,
  liveOverrides,
  processWarnings,
  recordedCosts,
  root,
  serverKeys,
} from '../../helpers/live.ts';
import { defaultReply, type LoopbackServers, startLoopbackServers } from '../../loopback/index.ts';

export const QUESTIONS = 2;
export const RUNS = 2;
/** 3 subjects x questions x runs answers, each judged by the two judges of the other families */
export const ANSWERS = 3 * QUESTIONS * RUNS;
export const VERDICTS = 2 * ANSWERS;

export interface Scenario {
  processes: number;
  mode: 'sync' | 'batch';
  kill: boolean;
}

export interface ProcessOutcome {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

export interface ScenarioOutcome {
  servers: LoopbackServers;
  /** the scenario's folder (results and reports), for the test to remove */
  dir: string;
  resultsDir: string;
  outcomes: ProcessOutcome[];
  /** the pid killed with SIGKILL, if any */
  killed: number | null;
  ledger: LedgerSummary;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The servers of a scenario. Sync: every reply takes 300 ms, and none is produced before every process
 * has started its stages (the gate), so that the processes really overlap whatever their start-up
 * times. Batch: a batch ends 800 ms after it is created, so a kill lands while one is running.
 */
async function serversFor(mode: Scenario['mode'], gate: Promise<void>): Promise<LoopbackServers> {
  return mode === 'sync'
    ? startLoopbackServers(
        {
          latencyMs: 300,
          respond: async (call) => {
            await gate;
            return defaultReply(call);
          },
        },
        serverKeys,
      )
    : startLoopbackServers({ batch: { completeAfterMs: 800 } }, serverKeys);
}

/** The pid of one of `pids` that holds a lease the kill should cut off, if any yet. */
function victim(resultsDir: string, mode: Scenario['mode'], pids: Set<number>): number | null {
  const leases = new CellLeases(resultsDir);
  const held = leases.heldLeases().filter((l) => pids.has(l.owner.pid));
  if (mode === 'batch') {
    // the owner of a batch the provider has (submitted, not collected)
    const submitted = new Set(
      loadBatchRecords(batchesDir(resultsDir))
        .filter((r) => r.status === 'submitted' && r.remote_id !== null)
        .map((r) => r.id),
    );
    return held.find((l) => l.stage === 'batch' && submitted.has(l.key))?.owner.pid ?? null;
  }
  // midway: a quarter of the cells stored, and the victim holding a cell not stored yet (its call in
  // flight, or about to be sent)
  const stored = new CellStores(resultsDir, true);
  stored.openAll();
  const keys = new Set(stored.all().flatMap((store) => store.records().map((r) => r.key)));
  if (keys.size < (ANSWERS + VERDICTS) / 4) return null;
  return (
    held.find((l) => (l.stage === 'answer' || l.stage === 'verdict') && !keys.has(l.key))?.owner.pid ?? null
  );
}

/** Runs a scenario to its end: n processes at once, one killed midway when asked. */
export async function runScenario(s: Scenario): Promise<ScenarioOutcome> {
  await worldOverrides('bm25');
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const servers = await serversFor(s.mode, gate);
  const dir = await mkdtemp(join(tmpdir(), `rge-concurrent-${s.mode}-`));
  const resultsDir = join(dir, 'results');
  const args = [
    join(root, 'bin/rge.mjs'),
    'eval',
    'run',
    '--config',
    'configs/published.yaml',
    '--questions',
    String(QUESTIONS),
    '--runs',
    String(RUNS),
    '--mode',
    s.mode,
    '--results-dir',
    resultsDir,
    '--reports-dir',
    join(dir, 'reports'),
    ...[
      ...liveOverrides(),
      ...['anthropic', 'openai', 'gemini'].flatMap((p) => [
        `providers.${p}.concurrency=2`,
        // the gate may hold the first replies for as long as the slowest process takes to start: a
        // client-side timeout (liveOverrides' 2 s) would send the call again while the server bills it
        `providers.${p}.timeout_ms=120000`,
      ]),
    ].flatMap((o) => ['--set', o]),
  ];
  const children: ChildProcess[] = [];
  const started = new Set<number>();
  const outcomes = Array.from({ length: s.processes }, () => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...liveEnv(servers), CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    return new Promise<ProcessOutcome>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d;
      });
      child.stderr?.on('data', (d: Buffer) => {
        err += d;
        // the stages have started: the estimate is printed before the first call
        if (child.pid !== undefined && err.includes('estimate for run')) {
          started.add(child.pid);
          if (started.size === s.processes) open();
        }
      });
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ pid: child.pid ?? -1, code, signal, out, err }));
    });
  });
  // a process that ends before the others start (it failed) must not hold the gate shut
  const all = Promise.all(outcomes).finally(() => open());
  let killed: number | null = null;
  if (s.kill) {
    const pids = new Set(children.map((c) => c.pid).filter((p): p is number => p !== undefined));
    const deadline = Date.now() + 120_000;
    let done = false;
    void all.then(() => {
      done = true;
    });
    while (killed === null && !done && Date.now() < deadline) {
      await wait(20);
      killed = victim(resultsDir, s.mode, pids);
    }
    if (killed !== null) process.kill(killed, 'SIGKILL');
  }
  const results = await all;
  const ledger = BudgetLedger.reader(resultsDir).summary({ capUsd: 100, warnUsd: 50 });
  return { servers, dir, resultsDir, outcomes: results, killed, ledger };
}

/**
 * `runScenario` for a test file: the servers and folders of its scenarios are closed and removed after
 * the file's tests.
 */
export function scenarios(): (s: Scenario) => Promise<ScenarioOutcome> {
  const outcomes: ScenarioOutcome[] = [];
  afterAll(async () => {
    await Promise.all(outcomes.map((o) => o.servers.close()));
    await Promise.all(outcomes.map((o) => rm(o.dir, { recursive: true, force: true })));
  });
  return async (s) => {
    const o = await runScenario(s);
    outcomes.push(o);
    return o;
  };
}

/** Batches each server created (POSTs that created one and got a 2xx). */
export function createdBatches(s: LoopbackServers): number {
  const created = (server: LoopbackServers['anthropic'], pattern: RegExp) =>
    server.requests.filter(
      (r) => r.method === 'POST' && pattern.test(r.path) && r.status >= 200 && r.status < 300,
    ).length;
  return (
    created(s.anthropic, /^\/v1\/messages\/batches(\?|$)/) +
    created(s.openai, /^\/v1\/batches(\?|$)/) +
    created(s.gemini, /:batchGenerateContent/)
  );
}

/** Model calls each server billed: sync and batch items. */
export function billedCalls(s: LoopbackServers): { sync: number; batch: number } {
  const billed = [s.anthropic, s.openai, s.gemini].flatMap((x) => x.billed);
  return { sync: billed.filter((b) => !b.batch).length, batch: billed.filter((b) => b.batch).length };
}

/** The lease claims that took over a stopped owner's leases, as the journal records them. */
export function takeovers(resultsDir: string): { stage: string; from: number[] }[] {
  const file = join(resultsDir, '.leases.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"took_over"'))
    .map((l) => JSON.parse(l) as { stage: string; took_over: { pid: number }[] })
    .map((e) => ({ stage: e.stage, from: e.took_over.map((o) => o.pid) }));
}

/** The keys of every submitted batch record, and how many records there are. */
export function submittedItems(resultsDir: string): { records: number; keys: string[]; statuses: string[] } {
  const submitted = loadBatchRecords(batchesDir(resultsDir)).filter((r) => r.remote_id !== null);
  return {
    records: submitted.length,
    keys: submitted.flatMap((r) => r.items.map((i) => i.key)),
    statuses: submitted.map((r) => r.status),
  };
}

/**
 * What every scenario must show: the processes that were not killed end well and print no process
 * warning; each cell is stored once; the ledger holds exactly the recorded costs, and nothing is left
 * open. Returns the figures the scenario's own checks and its log line use.
 */
export function checkScenario(
  s: Scenario,
  o: ScenarioOutcome,
): { billed: number; cells: number; spent: number; recorded: number } {
  const survivors = o.outcomes.filter((p) => p.pid !== o.killed);
  expect(survivors).toHaveLength(s.kill ? s.processes - 1 : s.processes);
  for (const p of survivors) {
    expect(p.code, p.err).toBe(0);
    expect(p.out).toMatch(new RegExp(`${ANSWERS} cases, \\d+ reused, 0 failed`));
    expect(processWarnings(p.err)).toEqual([]);
    // no call was sent twice for a failure (which could be billed twice): the paid calls count cells
    expect(p.err).not.toMatch(/; retrying/);
  }
  if (s.kill) expect(o.outcomes.find((p) => p.pid === o.killed)?.signal).toBe('SIGKILL');
  // each reply stored once: as many lines as distinct keys, and every cell there
  expect(cellCounts(o.resultsDir, 'answers')).toEqual({ keys: ANSWERS, lines: ANSWERS });
  expect(cellCounts(o.resultsDir, 'verdicts')).toEqual({ keys: VERDICTS, lines: VERDICTS });
  const recorded = recordedCosts(o.resultsDir).usd;
  expect(o.ledger.spentUsd).toBeCloseTo(recorded, 10);
  expect(o.ledger.open).toEqual([]);
  const billed = billedCalls(o.servers);
  // RGE_CONCURRENT_FIGURES=1 prints the figures of each scenario (the issue's closing note quotes them)
  if (process.env.RGE_CONCURRENT_FIGURES === '1')
    process.stderr.write(
      `${s.processes} ${s.mode} processes${s.kill ? ` (pid ${o.killed} killed)` : ''}: ` +
        `${ANSWERS + VERDICTS} cells, ${billed.sync + billed.batch} paid calls (${billed.batch} in batches); ` +
        `ledger spent $${o.ledger.spentUsd.toFixed(6)} == recorded $${recorded.toFixed(6)}; ` +
        `unknown up to $${o.ledger.unknownUsd.toFixed(6)} (${o.ledger.unknownCalls} calls); ` +
        `paying processes ${o.outcomes.filter((p) => /this run spent \$0\.0*[1-9]/.test(p.out)).length}; ` +
        `claims that took over the killed process's leases ${takeovers(o.resultsDir).filter((t) => o.killed !== null && t.from.includes(o.killed)).length}\n`,
    );
  return {
    billed: billed.sync + billed.batch,
    cells: ANSWERS + VERDICTS,
    spent: o.ledger.spentUsd,
    recorded,
  };
}
