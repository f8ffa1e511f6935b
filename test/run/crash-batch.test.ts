/**
 * kill -9 at 20 random points of a batch run against the loopback servers, then resume: every batch the
 * providers created is one rge recorded and collected (none paid twice), no cell lost or duplicated, the
 * ledger equal to the sum of recorded costs, and no file left at OpenAI.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesDir, loadBatchRecords } from '../../src/store/batch-records.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { billedUsd, recordedCosts, serverKeys } from '../helpers/live.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';
import { createdBatches } from './concurrent/runs.ts';
import { buildCorpus, type CrashSettings, cellCounts, killAndResume } from './crash/crash.ts';

describe('a batch run killed with SIGKILL 20 times, then resumed', () => {
  let s: LoopbackServers;
  let c: CrashSettings;

  beforeAll(async () => {
    s = await startLoopbackServers({ batch: { completeAfterMs: 500 } }, serverKeys);
    const dir = await mkdtemp(join(tmpdir(), 'rge-crash-batch-'));
    c = {
      resultsDir: join(dir, 'results'),
      mode: 'batch',
      questions: 2,
      runs: 2,
    };
    await buildCorpus();
  }, 600_000);
  afterAll(async () => {
    await s.close();
  });

  it('pays no batch twice, loses and duplicates nothing, and the ledger equals the recorded costs', async () => {
    const { killed, questions, finished } = await killAndResume(c, s, {
      kills: 20,
      // a fresh round of batches runs about 1.1-1.4 s here, a resumed one less: kills within 1 s
      // land in live work in 20 of about 26 children (1.4 s: 20 of 31, the rest finished first)
      windowMs: 1000,
      seed: 'rge-crash-batch',
    });
    expect(killed).toBe(20);
    expect(finished.out).toMatch(/DONE .*"errors":0,"stopped":null/);
    const ANSWERS = 3 * questions * 2;
    // nothing lost (every key), nothing duplicated (one line each)
    for (const [kind, expected] of [
      ['answers', ANSWERS],
      ['verdicts', 2 * ANSWERS],
    ] as const)
      expect(cellCounts(c.resultsDir, kind)).toEqual({ keys: expected, lines: expected });
    const records = loadBatchRecords(batchesDir(c.resultsDir));
    const submitted = records.filter((r) => r.remote_id !== null);
    // Every batch a provider created is recorded once, and collected.
    expect(new Set(submitted.map((r) => `${r.provider}:${r.remote_id}`)).size).toBe(submitted.length);
    expect(createdBatches(s)).toBe(submitted.length);
    for (const r of submitted) expect(r.status).toBe('collected');
    // Each item was billed once by its server, and the ledger holds exactly the recorded costs.
    const billed = [s.anthropic, s.openai, s.gemini].flatMap((x) => x.billed.filter((b) => b.batch));
    expect(billed).toHaveLength(3 * ANSWERS);
    const ledger = new BudgetLedger(c.resultsDir, { capUsd: 100, warnUsd: 0, configFile: 'x' }).summary();
    expect(ledger.spentUsd).toBeCloseTo(recordedCosts(c.resultsDir).usd, 10);
    expect(ledger.spentUsd).toBeCloseTo(billedUsd(s), 10);
    expect(ledger.open).toEqual([]);
    // Nothing is left at OpenAI: every input file uploaded, and every output file, was deleted, those
    // of submissions a kill cut short included (found by their name)
    expect(s.openai.files()).toEqual([]);
  }, 900_000);
});
