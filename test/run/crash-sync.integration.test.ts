/**
 * kill -9 at 20 random points of a sync run against the loopback servers, then resume: no cell lost or
 * duplicated, the ledger equal to the sum of recorded costs, and never less than what the servers
 * billed (calls in flight at a kill are shown as unknown, at most their reserved worst case).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { billedUsd, cellCounts, recordedCosts, serverKeys } from '../helpers/live.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';
import { buildCorpus, type CrashSettings, killAndResume } from './crash/crash.ts';

describe('a sync run killed with SIGKILL 20 times, then resumed', () => {
  let s: LoopbackServers;
  let c: CrashSettings;

  beforeAll(async () => {
    s = await startLoopbackServers({ latencyMs: 80 }, serverKeys);
    const dir = await mkdtemp(join(tmpdir(), 'rge-crash-sync-'));
    c = {
      resultsDir: join(dir, 'results'),
      mode: 'sync',
      questions: 10,
      runs: 3,
      extraOverrides: ['anthropic', 'openai', 'gemini'].map((p) => `providers.${p}.concurrency=2`),
    };
    await buildCorpus();
  }, 600_000);
  afterAll(async () => {
    await s.close();
  });

  it('loses and duplicates nothing, and the ledger equals the recorded costs', async () => {
    const { killed, finished } = await killAndResume(c, s, {
      kills: 20,
      windowMs: 700,
      seed: 'rge-crash-sync',
    });
    expect(killed).toBe(20);
    expect(finished.out).toMatch(/DONE .*"errors":0,"stopped":null/);
    const ANSWERS = 3 * 10 * 3; // 3 subjects x 10 questions x 3 runs, each judged twice
    // nothing lost (every key), nothing duplicated (one line each)
    for (const [kind, expected] of [
      ['answers', ANSWERS],
      ['verdicts', 2 * ANSWERS],
    ] as const)
      expect(cellCounts(c.resultsDir, kind)).toEqual({ keys: expected, lines: expected });
    const ledger = new BudgetLedger(c.resultsDir, { capUsd: 100, warnUsd: 0, configFile: 'x' }).summary();
    const recorded = recordedCosts(c.resultsDir);
    expect(ledger.spentUsd).toBeCloseTo(recorded.usd, 10);
    expect(ledger.open).toEqual([]);
    // The servers billed replies the killed processes never read: shown as unknown (at most their worst case), never missing, never spent.
    expect(billedUsd(s)).toBeLessThanOrEqual(ledger.spentUsd + ledger.unknownUsd + 1e-9);
  }, 900_000);
});
