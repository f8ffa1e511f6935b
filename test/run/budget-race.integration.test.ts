/**
 * The cap holds when several processes spend at once: four child processes run live stages against the
 * loopback servers with one results folder (one ledger) and a cap of five cents. Together they never
 * pass it, counting what the servers billed, and each stops cleanly with the cap's message.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { billedUsd, recordedCosts, serverKeys } from '../helpers/live.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';
import { buildCorpus, type CrashSettings, runChild } from './crash/crash.ts';

const CAP = 0.05;

describe('four processes racing at a cap of a few cents', () => {
  let s: LoopbackServers;
  let c: CrashSettings;

  beforeAll(async () => {
    s = await startLoopbackServers({ latencyMs: 20 }, serverKeys);
    const dir = await mkdtemp(join(tmpdir(), 'rge-race-'));
    c = {
      resultsDir: join(dir, 'results'),
      mode: 'sync',
      questions: 12,
      runs: 3,
      extraOverrides: [`budget.cap_usd=${CAP}`, 'budget.warn_usd=0.02'],
    };
    await buildCorpus();
  }, 600_000);
  afterAll(async () => {
    await s.close();
  });

  it('never crosses the cap, whatever the four spend at once', async () => {
    const workers = [['claude'], ['gpt'], ['gemini'], ['claude', 'gpt', 'gemini']].map((subjects) =>
      runChild({ ...c, subjects }, s, null),
    );
    const outcomes = await Promise.all(workers);
    for (const o of outcomes) {
      expect(o.code, o.err).toBe(0);
      expect(o.out).toMatch(/budget cap of \$0\.0500 reached/);
    }
    const ledger = new BudgetLedger(c.resultsDir, { capUsd: CAP, warnUsd: 0, configFile: 'x' }).summary();
    expect(ledger.spentUsd + ledger.unknownUsd).toBeLessThanOrEqual(CAP);
    // The budget was used, not refused early: each process stopped only when its next claim (a call's
    // worst case) no longer fitted beside what was spent. A fixed share of the cap is no bound: with a
    // worst case of half the cap, spending can rightly stop below half (0.0239 of 0.05 was seen).
    expect(ledger.spentUsd).toBeGreaterThan(0);
    for (const o of outcomes) {
      const m =
        /budget cap of \$0\.0500 reached: spent \$(\d+\.\d+)(?: \(\+ up to \$(\d+\.\d+) unknown[^)]*\))?.*?the next call needs up to \$(\d+\.\d+)/.exec(
          o.out,
        );
      expect(m, o.out).not.toBeNull();
      const [spent, unknown, needs] = [m?.[1], m?.[2] ?? '0', m?.[3]].map(Number) as [number, number, number];
      expect(spent + unknown + needs, 'refused while the claim still fitted').toBeGreaterThan(CAP - 1e-4);
    }
    expect(billedUsd(s)).toBeLessThanOrEqual(CAP);
    expect(ledger.spentUsd).toBeCloseTo(recordedCosts(c.resultsDir).usd, 10);
    expect(ledger.open).toEqual([]);
    // One warning, printed by one of the four, recorded once.
    expect(ledger.warnings).toHaveLength(1);
    expect(outcomes.filter((o) => o.out.includes('budget warning')).length).toBe(1);
  }, 600_000);
});
