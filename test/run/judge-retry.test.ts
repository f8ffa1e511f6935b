/**
 * A judge's retry end to end, through the real SDKs against the strict loopback servers (the published
 * config, sync mode): the retry after an empty reply is a request every API takes.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStages } from '../../src/run/stages.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { liveEnv, liveOverrides, root, serverKeys } from '../helpers/live.ts';
import { openTestRun } from '../helpers/open-run.ts';
import { defaultReply, type LoopbackCall, userTextOf } from '../loopback/common.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';

const quiet = () => {};

beforeAll(() => worldOverrides('bm25'), 600_000);

/** A judge's request that asks again after an unusable reply (its text says so). */
const isRetry = (call: LoopbackCall) =>
  call.messages.length > 1 || /Reply again with one JSON object/.test(userTextOf(call));

async function openRun(s: LoopbackServers, resultsDir: string) {
  return openTestRun({
    config: 'configs/published.yaml',
    root,
    resultsDir,
    env: liveEnv(s),
    overrides: liveOverrides(),
    log: quiet,
    questions: 1,
    runs: 1,
    mode: 'sync',
  });
}

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
});
