/**
 * A judge's retry end to end, through the real SDKs against the strict loopback servers (the published
 * config, sync mode): the retry after an empty reply is a request every API takes, and a paid first
 * reply whose retry fails is neither lost nor paid for again: its charge is settled in the run that
 * paid it (no reservation left open), and the next run asks only the retry.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateRun } from '../../src/run/estimate/estimate.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { batchesDir, loadBatchRecords } from '../../src/store/batch-records.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import {
  billedUsd,
  filesUnder,
  liveEnv,
  liveOverrides,
  recordedCosts,
  root,
  serverKeys,
} from '../helpers/live.ts';
import { openTestRun } from '../helpers/open-run.ts';
import { defaultReply, type LoopbackCall, userTextOf } from '../loopback/common.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';

const quiet = () => {};

beforeAll(() => worldOverrides('bm25'), 600_000);

/** A judge's request that asks again after an unusable reply (its text says so). */
const isRetry = (call: LoopbackCall) =>
  call.messages.length > 1 || /Reply again with one JSON object/.test(userTextOf(call));

/** The judges' first requests a server was sent. */
const firstJudgeRequests = (server: { calls: LoopbackCall[] }) =>
  server.calls.filter((c) => c.schema !== null && !isRetry(c)).length;

async function openRun(s: LoopbackServers, resultsDir: string, mode: 'sync' | 'batch' = 'sync') {
  return openTestRun({
    config: 'configs/published.yaml',
    root,
    resultsDir,
    env: liveEnv(s),
    overrides: liveOverrides(),
    log: quiet,
    questions: 1,
    runs: 1,
    mode,
  });
}

/**
 * The estimate of the run that follows a failed retry prices what it will ask: the Claude judge's two
 * retries, as sync calls (a kept reply never goes into a batch), each carrying the kept reply and the
 * turn that asks again on top of its first request; the first replies, paid already, are not priced.
 * Against the estimate of the same folder without the kept replies (two first requests, in a batch in
 * batch mode), its input is larger by what the retry adds.
 */
async function checkRetryEstimate(resultsDir: string, s: LoopbackServers, mode: 'sync' | 'batch') {
  const estimate = await estimateRun(await openRun(s, resultsDir, mode));
  const claude = estimate.lines.filter((l) => l.provider === 'anthropic' && l.role === 'judge');
  expect(claude.map((l) => [l.batch, l.calls])).toEqual([[false, 2]]);
  expect(estimate.cells.keptReplies).toBe(2);
  const withoutKept = await mkdtemp(join(tmpdir(), 'rge-judge-retry-unkept-'));
  await cp(resultsDir, withoutKept, { recursive: true });
  await rm(join(withoutKept, 'cells', 'attempts'), { recursive: true });
  const plain = await estimateRun(await openRun(s, withoutKept, mode));
  const first = plain.lines.filter((l) => l.provider === 'anthropic' && l.role === 'judge');
  expect(first.map((l) => [l.batch, l.calls])).toEqual([[mode === 'batch', 2]]);
  expect(plain.cells.keptReplies).toBe(0);
  const input = (ls: typeof claude) =>
    ls.reduce((n, l) => n + l.inputTokens + l.cacheReadTokens + l.cacheWriteTokens, 0);
  // each retry adds the kept reply and the turn asking again: 50-odd tokens here
  expect(input(claude) - input(first)).toBeGreaterThan(2 * 40);
}

const ledgerOf = (resultsDir: string) =>
  new BudgetLedger(resultsDir, { capUsd: 100, warnUsd: 0, configFile: 'configs/published.yaml' }).summary();

describe("a judge's retry", () => {
  it('after an empty or whitespace-only first reply is a request each API takes, and scores', async () => {
    // Claude and Gemini judges first reply with nothing, GPT with whitespace; each then with a verdict
    const empty: Record<string, string> = { anthropic: '', gemini: '', openai: ' \n ' };
    const respond = (call: LoopbackCall) =>
      call.schema !== null && !isRetry(call) ? { text: empty[call.provider] ?? '' } : defaultReply(call);
    const s = await startLoopbackServers({ latencyMs: 1, respond }, serverKeys);
    try {
      const run = await openRun(s, await mkdtemp(join(tmpdir(), 'rge-judge-retry-empty-')));
      const { state } = await runStages(run, { log: quiet });
      expect(state.errors).toEqual({});
      expect(state.counts.verdicts).toEqual({ computed: 6, reused: 0, failed: 0 });
      for (const server of [s.anthropic, s.openai, s.gemini]) {
        // each judge judged two answers: a first request and its retry each, none refused
        expect(server.calls.filter((c) => c.schema !== null)).toHaveLength(4);
        expect(server.requests.filter((r) => r.status !== 200)).toEqual([]);
        for (const retry of server.calls.filter(isRetry))
          expect(retry.messages.every((m) => m.text.trim() !== '')).toBe(true);
      }
      for (const judge of run.plan.judges)
        for (const record of run.verdicts(judge).records())
          expect(record.outcome).toMatchObject({ status: 'scored', attempts: 2 });
    } finally {
      await s.close();
    }
  }, 240_000);

  for (const [firstMode, mode] of [
    ['sync', 'sync'],
    ['sync', 'batch'],
    ['batch', 'batch'],
  ] as const)
    it(`that fails (${firstMode}) leaves the paid first reply settled, and the next run (${mode}) asks only the retry`, async () => {
      // The Claude judge's first replies are unusable; in the first run its retries fail (500s until the
      // attempts are used up), in the second they are answered.
      let retriesFail = true;
      const respond = (call: LoopbackCall) => {
        if (call.provider !== 'anthropic' || call.schema === null) return defaultReply(call);
        if (!isRetry(call)) return { text: 'I would score this answer highly.' };
        if (retriesFail) throw new Error('the retry fails');
        return defaultReply(call);
      };
      const s = await startLoopbackServers({ latencyMs: 1, respond }, serverKeys);
      try {
        const resultsDir = await mkdtemp(join(tmpdir(), 'rge-judge-retry-fails-'));
        const first = await runStages(await openRun(s, resultsDir, firstMode), { log: quiet });
        // the Claude judge's two verdicts failed; the four others are in
        expect(first.state.counts.verdicts).toEqual({ computed: 4, reused: 0, failed: 2 });
        expect(firstJudgeRequests(s.anthropic)).toBe(2);
        // what the servers billed (the two unusable replies included) is spent, and nothing is left open
        const afterFirst = ledgerOf(resultsDir);
        expect(afterFirst.open).toEqual([]);
        expect(afterFirst.spentUsd).toBeCloseTo(billedUsd(s), 10);
        // on record: the two unusable replies are kept for their retry
        expect(afterFirst.spentUsd).toBeCloseTo(recordedCosts(resultsDir).usd, 10);
        expect(filesUnder(join(resultsDir, 'cells', 'attempts')).map((f) => basename(f))).toEqual([
          'anthropic__claude-sonnet-4-6.jsonl',
        ]);
        // a batch whose replies are stored or kept is collected, its reservation closed
        const batches = () => loadBatchRecords(batchesDir(resultsDir)).map((r) => r.status);
        expect(new Set(batches())).toEqual(new Set(firstMode === 'batch' ? ['collected'] : []));
        const before = s.anthropic.calls.length;
        await checkRetryEstimate(resultsDir, s, mode);

        retriesFail = false;
        const run = await openRun(s, resultsDir, mode);
        const second = await runStages(run, { log: quiet });
        expect(second.state.counts.verdicts).toEqual({ computed: 2, reused: 4, failed: 0 });
        // the first requests were not sent again, in a batch or otherwise: only the two retries were
        expect(firstJudgeRequests(s.anthropic)).toBe(2);
        expect(s.anthropic.calls.slice(before).map((c) => [c.batch, isRetry(c)])).toEqual([
          [false, true],
          [false, true],
        ]);
        expect(new Set(batches())).toEqual(new Set(firstMode === 'batch' ? ['collected'] : []));
        const claude = run.plan.judges.find((j) => j.provider === 'anthropic');
        if (!claude) throw new Error('no Claude judge');
        const records = run.verdicts(claude).records();
        expect(records).toHaveLength(2);
        for (const record of records) {
          expect(record.outcome).toMatchObject({ status: 'scored', attempts: 2 });
          // the verdict carries both calls: the first reply's and the retry's
          expect(record.charges).toHaveLength(2);
          expect(record.outcome.costUsd).toBeCloseTo(
            record.charges.reduce((a, c) => a + c.usd, 0),
            12,
          );
        }
        const afterSecond = ledgerOf(resultsDir);
        expect(afterSecond.open).toEqual([]);
        expect(afterSecond.unknownUsd).toBe(0);
        expect(afterSecond.spentUsd).toBeCloseTo(billedUsd(s), 10);
        expect(afterSecond.spentUsd).toBeCloseTo(recordedCosts(resultsDir).usd, 10);
      } finally {
        await s.close();
      }
    }, 240_000);
});
