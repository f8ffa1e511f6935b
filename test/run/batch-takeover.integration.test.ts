/**
 * A dead process's running batch is taken over by exactly one of the runs that find it: a process that
 * owned a submitted batch is killed with SIGKILL, then two runs start at once on its results folder.
 * One polls the batch; the other waits for its cells, and never claims them for a batch of its own
 * while the first polls it (it did, in the window between the first's claim of the batch and its claim
 * of the batch's cells, and 5 of 12 answers were paid twice).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStages } from '../../src/run/stages/stages.ts';
import { batchesDir, loadBatchRecords } from '../../src/store/batch-records.ts';
import { CellLeases } from '../../src/store/leases.ts';
import { cellCounts, liveEnv, liveOverrides, root, serverKeys } from '../helpers/live.ts';
import { openTestRun } from '../helpers/open-run.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';
import { billedCalls, createdBatches, submittedItems } from './concurrent/runs.ts';
import { buildCorpus, runChild } from './crash/crash.ts';

const QUESTIONS = 2;
const RUNS = 1;
const ANSWERS = 3 * QUESTIONS * RUNS;

let s: LoopbackServers;
let dir: string;
beforeAll(async () => {
  s = await startLoopbackServers({ batch: { completeAfterMs: 1500 } }, serverKeys);
  dir = await mkdtemp(join(tmpdir(), 'rge-batch-takeover-'));
  await buildCorpus();
}, 600_000);
afterAll(async () => {
  await s.close();
  await rm(dir, { recursive: true, force: true });
});

/** The pid owning a submitted batch record of the folder, if any yet. */
function batchOwner(resultsDir: string): number | null {
  const submitted = loadBatchRecords(batchesDir(resultsDir)).filter((r) => r.remote_id !== null);
  const leases = new CellLeases(resultsDir);
  for (const r of submitted) {
    const owner = leases.holder('batch', r.id);
    if (owner) return owner.pid;
  }
  return null;
}

describe("a dead owner's batch", () => {
  it('is polled by one of two runs that start at once, and none of its cells goes into another batch', async () => {
    const resultsDir = join(dir, 'results');
    const settings = { resultsDir, mode: 'batch' as const, questions: QUESTIONS, runs: RUNS };
    const child = runChild(settings, s, null);
    let victim: number | null = null;
    for (let waited = 0; victim === null && waited < 120_000; waited += 20) {
      await new Promise((r) => setTimeout(r, 20));
      victim = batchOwner(resultsDir);
    }
    expect(victim, 'the child submitted no batch').not.toBeNull();
    process.kill(victim as number, 'SIGKILL');
    expect((await child).signal).toBe('SIGKILL');

    const logs: string[][] = [[], []];
    const runs = await Promise.all(
      logs.map((log) =>
        openTestRun({
          config: 'configs/published.yaml',
          root,
          resultsDir,
          env: liveEnv(s),
          overrides: liveOverrides(),
          questions: QUESTIONS,
          runs: RUNS,
          mode: 'batch',
          log: (line) => log.push(line),
        }),
      ),
    );
    const states = await Promise.all(
      runs.map((run, i) => runStages(run, { log: (line) => logs[i]?.push(line), skipPreflight: true })),
    );
    for (const { state } of states) expect(state.errors).toEqual({});
    // the dead process's batch was resumed once
    const resumed = logs.flat().filter((l) => /resuming \(submitted before a stop; not paid again\)/.test(l));
    expect(resumed.length).toBeGreaterThan(0);
    expect(new Set(resumed).size).toBe(resumed.length);
    // each cell stored once, in one batch only, paid once
    expect(cellCounts(resultsDir, 'answers')).toEqual({ keys: ANSWERS, lines: ANSWERS });
    expect(cellCounts(resultsDir, 'verdicts')).toEqual({ keys: 2 * ANSWERS, lines: 2 * ANSWERS });
    const items = submittedItems(resultsDir);
    expect(new Set(items.keys).size).toBe(items.keys.length);
    expect(createdBatches(s)).toBe(items.records);
    expect(billedCalls(s)).toEqual({ sync: 0, batch: 3 * ANSWERS });
  }, 600_000);
});
