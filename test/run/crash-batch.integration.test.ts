/**
 * kill -9 at 20 random points of a batch run against the loopback servers, then resume: every batch the
 * providers created is one rge recorded and collected (none paid twice), no cell lost or duplicated, the
 * ledger equal to the sum of recorded costs, and no file left at OpenAI.
 *
 * Then the published run under a cap between its expected and its worst-case cost (issue 38): one
 * `rge eval run` finishes it, under the cap, with every verdict, its batches sized to what the cap
 * leaves; and killed at five named points of the same run, a rerun still loses, duplicates and pays
 * twice for nothing.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesDir, loadBatchRecords } from '../../src/store/batch-records.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import type { Estimate } from '../../src/store/run-state.ts';
import { spawnRge } from '../helpers/child.ts';
import { billedUsd, cellCounts, liveEnv, liveOverrides, recordedCosts, serverKeys } from '../helpers/live.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';
import { billedCalls, createdBatches } from './concurrent/runs.ts';
import { dryRunEstimate, expectedLengthReply, setArgs } from './crash/capped.ts';
import { buildCorpus, type CrashSettings, type KillPoint, killAndResume, runChild } from './crash/crash.ts';

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

describe('the published run under a cap between its expected and its worst-case cost', () => {
  const QUESTIONS = 2;
  const RUNS = 2;
  const ANSWERS = 3 * QUESTIONS * RUNS;
  let dir: string;
  let estimate: Estimate;
  let cap: number;
  /** the cap and its warning, as `--set` overrides */
  let capped: string[];

  beforeAll(async () => {
    await buildCorpus();
    dir = await mkdtemp(join(tmpdir(), 'rge-crash-capped-'));
    estimate = await dryRunEstimate(QUESTIONS, RUNS, join(dir, 'dry'));
    // 10% above the expected cost: far below the worst case, so most batches cannot be reserved whole
    cap = Number((1.1 * estimate.totals.expectedUsd).toFixed(4));
    capped = [`budget.cap_usd=${cap}`, `budget.warn_usd=${Number((cap / 2).toFixed(4))}`];
  }, 600_000);

  /** Fresh servers whose replies are as long as the estimate expects, so the run costs about that. */
  const servers = () =>
    startLoopbackServers({ respond: expectedLengthReply, batch: { completeAfterMs: 300 } }, serverKeys);

  /** What must hold of a finished capped run: every cell once, every batch paid once, under the cap. */
  function checkFinished(resultsDir: string, servers: LoopbackServers): void {
    for (const [kind, expected] of [
      ['answers', ANSWERS],
      ['verdicts', 2 * ANSWERS],
    ] as const)
      expect(cellCounts(resultsDir, kind)).toEqual({ keys: expected, lines: expected });
    const submitted = loadBatchRecords(batchesDir(resultsDir)).filter((r) => r.remote_id !== null);
    expect(new Set(submitted.map((r) => `${r.provider}:${r.remote_id}`)).size).toBe(submitted.length);
    expect(createdBatches(servers)).toBe(submitted.length);
    for (const r of submitted) expect(r.status).toBe('collected');
    // the requests the fakes answered: one reply per cell, every one in a batch, each billed once
    const produced = [servers.anthropic, servers.openai, servers.gemini].reduce(
      (n, x) => n + x.calls.length,
      0,
    );
    expect(produced).toBe(3 * ANSWERS);
    expect(billedCalls(servers)).toEqual({ sync: 0, batch: 3 * ANSWERS });
    const ledger = new BudgetLedger(resultsDir, { capUsd: cap, warnUsd: 0, configFile: 'x' }).summary();
    expect(ledger.spentUsd).toBeCloseTo(recordedCosts(resultsDir).usd, 10);
    expect(ledger.spentUsd).toBeCloseTo(billedUsd(servers), 10);
    expect(ledger.unknownUsd).toBe(0);
    expect(ledger.open).toEqual([]);
    expect(ledger.spentUsd).toBeLessThanOrEqual(cap);
  }

  it('plans batches under the cap in the dry run: more than one wave of verdicts, fitting only below the worst case', async () => {
    expect(cap).toBeGreaterThan(estimate.totals.expectedUsd);
    expect(cap).toBeLessThan(estimate.totals.worstUsd);
    const planned = await dryRunEstimate(QUESTIONS, RUNS, join(dir, 'dry-capped'), capped);
    const plan = planned.batchPlan;
    expect(plan).toMatchObject({ leftUsd: cap, fitsAtWorst: false, unplacedCalls: 0, tooLarge: null });
    expect(plan?.calls).toBe(3 * ANSWERS);
    expect(plan?.callsAtWorst).toBeLessThan(3 * ANSWERS);
    const judgeWaves = new Set(plan?.batches.filter((b) => b.role === 'judge').map((b) => b.wave));
    expect(judgeWaves.size).toBeGreaterThan(1);
    for (const wave of new Set(plan?.batches.map((b) => b.wave)))
      expect(
        plan?.batches.filter((b) => b.wave === wave).reduce((a, b) => a + b.reservedUsd, 0),
      ).toBeLessThanOrEqual(cap);
  }, 120_000);

  it('finishes in one `rge eval run`, under the cap, with every verdict', async () => {
    const s = await servers();
    try {
      const resultsDir = join(dir, 'one-command');
      const args = ['eval', 'run', '--config', 'configs/published.yaml', '--mode', 'batch'];
      args.push('--questions', String(QUESTIONS), '--runs', String(RUNS), '--results-dir', resultsDir);
      args.push('--reports-dir', join(dir, 'reports'), ...setArgs([...liveOverrides(), ...capped]));
      const outcome = await spawnRge(args, liveEnv(s));
      expect(outcome.code, outcome.err).toBe(0);
      expect(outcome.out).toMatch(
        new RegExp(
          `${ANSWERS} cases, 0 reused, 0 failed .*answers computed ${ANSWERS}, verdicts computed ${2 * ANSWERS}`,
        ),
      );
      // the plan, then batches sized to what the cap leaves, the rest submitted as earlier ones settled
      expect(outcome.err).toMatch(
        /^plan: \d+ batches in \d+ waves .*finishes in one command only as its batches settle below their worst case/m,
      );
      expect(outcome.err).toMatch(
        /: submitting \d+ verdicts to .*; \d+ more wait for earlier batches to settle\)/,
      );
      expect(outcome.err).toMatch(/^batch: \d+ verdicts of .* wait for the budget/m);
      expect(outcome.err).not.toMatch(/budget cap of .* reached/);
      checkFinished(resultsDir, s);
      // more batches than models and roles: some were split to fit
      expect(createdBatches(s)).toBeGreaterThan(6);
    } finally {
      await s.close();
    }
  }, 300_000);

  it('killed with SIGKILL at five points of that run, then rerun: nothing lost, duplicated or paid twice', async () => {
    const s = await servers();
    try {
      const c: CrashSettings = {
        resultsDir: join(dir, 'killed'),
        mode: 'batch',
        questions: QUESTIONS,
        runs: RUNS,
        extraOverrides: capped,
      };
      // each point in a run of its own, each run resuming what the one before left
      const points: KillPoint[] = [
        // an answer batch recorded as submitting, its submission under way
        { line: /: submitting \d+ answers to / },
        // an answer batch ended, being collected
        { line: /answers\): ended/ },
        // the first wave of verdicts in flight, reserving what the cap leaves, a model's verdicts waiting
        { line: /wait for the budget/ },
        // a verdict batch ended, being collected and settled, before the next wave
        { line: /verdicts\): ended/ },
        // a later wave being submitted into the room the settled batches left
        { line: /: submitting \d+ verdicts to / },
      ];
      for (const point of points) {
        const outcome = await runChild(c, s, point);
        expect(outcome.signal, `no ${point.line} in: ${outcome.out}`).toBe('SIGKILL');
      }
      const args = ['eval', 'run', '--config', 'configs/published.yaml', '--mode', 'batch'];
      args.push('--questions', String(QUESTIONS), '--runs', String(RUNS), '--results-dir', c.resultsDir);
      args.push('--reports-dir', join(dir, 'reports-killed'), ...setArgs([...liveOverrides(), ...capped]));
      const rerun = await spawnRge(args, liveEnv(s));
      expect(rerun.code, rerun.err).toBe(0);
      expect(rerun.out).toMatch(new RegExp(`${ANSWERS} cases, \\d+ reused, 0 failed`));
      checkFinished(c.resultsDir, s);
    } finally {
      await s.close();
    }
  }, 600_000);
});
