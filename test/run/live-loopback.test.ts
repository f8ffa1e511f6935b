/**
 * Live providers end to end, offline: the published config's three models (Anthropic, OpenAI, Gemini as
 * subjects and as judges) through the real SDKs against loopback servers that speak each wire format.
 * Sync and batch runs complete; caching is recorded; cells are reused by what they are; the ledger
 * equals the recorded costs and never passes the cap; faults are retried and unparseable verdicts are
 * unscored, never 0.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseRow } from '../../src/run/case/case.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { type BatchRecord, batchesDir, loadBatchRecords } from '../../src/store/batch-records.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { runRge } from '../helpers/cli.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { billedUsd, liveEnv, liveOverrides, recordedCosts, root, serverKeys } from '../helpers/live.ts';
import { openTestRun, type TestRunOptions } from '../helpers/open-run.ts';
import {
  type LoopbackOptions,
  type LoopbackServer,
  type LoopbackServers,
  startLoopbackServers,
} from '../loopback/index.ts';

const quiet = () => {};

// the corpus liveOverrides() names (the bm25 fixture world), built once per test run
beforeAll(() => worldOverrides('bm25'), 600_000);

async function servers(opts: LoopbackOptions = {}): Promise<LoopbackServers> {
  return startLoopbackServers(opts, serverKeys);
}

function options(s: LoopbackServers, resultsDir: string, over: Partial<TestRunOptions> = {}): TestRunOptions {
  return {
    config: 'configs/published.yaml',
    root,
    resultsDir,
    reportsDir: join(resultsDir, 'reports'),
    env: liveEnv(s),
    overrides: liveOverrides(),
    log: quiet,
    questions: 3,
    runs: 2,
    mode: 'sync',
    ...over,
  };
}

const calls = (s: LoopbackServers) =>
  s.anthropic.calls.length + s.openai.calls.length + s.gemini.calls.length;

function ledgerOf(resultsDir: string, cap = 100): BudgetLedger {
  return new BudgetLedger(resultsDir, { capUsd: cap, warnUsd: 0, configFile: 'configs/published.yaml' });
}

describe('live providers against loopback servers', () => {
  let s: LoopbackServers;
  let resultsDir: string;

  beforeAll(async () => {
    s = await servers({ latencyMs: 2 });
    resultsDir = await mkdtemp(join(tmpdir(), 'rge-live-'));
  });
  afterAll(async () => {
    await s.close();
  });

  it('a sync run of the published config completes through all three SDKs, with caching recorded', async () => {
    const run = await openTestRun(options(s, resultsDir));
    const { state } = await runStages(run, { log: quiet });
    // 3 subjects x 3 questions x 2 runs, each judged by the two other families
    expect(state.counts.answers).toEqual({ computed: 18, reused: 0, failed: 0 });
    expect(state.counts.verdicts).toEqual({ computed: 36, reused: 0, failed: 0 });
    expect(state.stopped).toBeNull();
    const rows = (await run.work.cells()).map((c) => caseRow(run, c));
    for (const row of rows) {
      expect(row.verdicts.map((v) => v.status)).toEqual(['scored', 'scored']);
      expect(row.answer).toMatch(/\[[a-z0-9-]+-FY\d\d-[0-9a-f]{8}\]/); // cites a retrieved chunk
      expect(row.cost_usd).toBeGreaterThan(0);
    }
    // Each provider answered its own subject and judged the two others.
    for (const server of [s.anthropic, s.openai, s.gemini]) {
      expect(server.calls.filter((c) => c.schema === null)).toHaveLength(6);
      expect(server.calls.filter((c) => c.schema !== null)).toHaveLength(12);
    }
    // Run 1 of a question reads the context its run 0 wrote to the cache (Anthropic: marked blocks).
    const claude = rows.filter((r) => r.subject_id === 'claude');
    expect(claude.filter((r) => r.run_index === 1).every((r) => r.usage.cacheReadTokens > 1000)).toBe(true);
    expect(claude.filter((r) => r.run_index === 0).every((r) => r.usage.cacheWriteTokens > 1000)).toBe(true);
    expect(rows.reduce((n, r) => n + r.uncached_cost_usd - r.cost_usd, 0)).toBeGreaterThan(0);
    // The ledger holds exactly what the records cost, which is what the servers billed.
    const ledger = ledgerOf(resultsDir).summary();
    const recorded = recordedCosts(resultsDir);
    expect(ledger.spentUsd).toBeCloseTo(recorded.usd, 12);
    expect(ledger.spentUsd).toBeCloseTo(billedUsd(s), 12);
    expect(ledger.open).toEqual([]);
  });

  it('`rge budget` prints the ledger: the cap the run recorded, spent, left, per model and role', async () => {
    const { code, out } = await runRge(root, 'budget', '--results-dir', resultsDir);
    expect(code).toBe(0);
    const spent = ledgerOf(resultsDir).summary().spentUsd;
    expect(out).toContain('the cap recorded by the last run that spent: configs/published.yaml (pid ');
    expect(out).toContain(
      `cap $100.0000 (warning at $50.0000): spent $${spent.toFixed(4)}, unknown up to $0.0000, held $0.0000`,
    );
    expect(out).toContain(
      'unknown: none (every call is settled from its reply, or was released unsent or aborted)',
    );
    for (const m of ['anthropic/claude-sonnet-4-6', 'openai/gpt-5.4', 'gemini/gemini-3.1-pro-preview'])
      for (const role of ['subject', 'judge'])
        expect(out).toMatch(new RegExp(`${role} +${m.replace('.', '\\.')} +\\d+ calls`));
    const json = JSON.parse((await runRge(root, 'budget', '--results-dir', resultsDir, '--json')).out);
    expect(json.spentUsd).toBeCloseTo(spent, 12);
  });

  it('reuses cells by what they are: a rerun, then --subjects, then --questions call nothing twice', async () => {
    const before = calls(s);
    for (const over of [
      {},
      { subjects: ['gpt'] },
      { questions: 2 },
      { runs: 1, subjects: ['gemini', 'claude'] },
    ]) {
      const run = await openTestRun(options(s, resultsDir, over));
      const { state } = await runStages(run, { log: quiet });
      expect(state.counts.answers.computed + state.counts.verdicts.computed).toBe(0);
    }
    expect(calls(s)).toBe(before);
  });

  it('a batch run completes through the three batch APIs and lands in the same stores', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-live-batch-'));
    const before = { batches: s.anthropic.requests.filter((r) => r.path.includes('batches')).length };
    const run = await openTestRun(options(s, dir, { mode: 'batch', questions: 2 }));
    const { state } = await runStages(run, { log: quiet });
    expect(state.counts.answers.computed).toBe(12);
    expect(state.counts.verdicts.computed).toBe(24);
    expect(state.counts.batches).toBe(6); // answers and verdicts, for each of the three models
    const rows = (await run.work.cells()).map((c) => caseRow(run, c));
    expect(rows.every((r) => r.batch)).toBe(true);
    expect(rows.every((r) => r.checks.latency.passed === null)).toBe(true);
    expect(s.anthropic.requests.filter((r) => r.path.includes('batches')).length).toBeGreaterThan(
      before.batches,
    );
    const batchBilled = [s.anthropic, s.openai, s.gemini].flatMap((x) => x.billed.filter((b) => b.batch));
    expect(batchBilled).toHaveLength(36);
    const ledger = ledgerOf(dir).summary();
    expect(ledger.spentUsd).toBeCloseTo(recordedCosts(dir).usd, 12);
    expect(ledger.open).toEqual([]);

    // A stop after collect stored a batch's last item and before it saved the record: the record still
    // says submitted with every item stored. The next run closes it without a request or a payment.
    const records = loadBatchRecords(batchesDir(dir));
    const reopened = records.find((r) => r.role === 'judge') as BatchRecord;
    await writeFile(
      join(batchesDir(dir), `${reopened.id}.json`),
      `${JSON.stringify({ ...reopened, status: 'submitted' }, null, 2)}\n`,
    );
    const requests = () => s.anthropic.requests.length + s.openai.requests.length + s.gemini.requests.length;
    const requestsBefore = requests();
    const logs: string[] = [];
    const again = await runStages(await openTestRun(options(s, dir, { mode: 'batch', questions: 2 })), {
      log: (line) => logs.push(line),
    });
    expect(again.state.counts.answers.computed + again.state.counts.verdicts.computed).toBe(0);
    expect(requests()).toBe(requestsBefore);
    expect(logs).toContain(`batch ${reopened.id}: every item was stored before a stop; closed as collected`);
    expect(loadBatchRecords(batchesDir(dir)).every((r) => r.status === 'collected')).toBe(true);
    expect(ledgerOf(dir).summary().spentUsd).toBeCloseTo(recordedCosts(dir).usd, 12);
  });
});

describe('live providers: seeds, expired batch items, self-hosted models', () => {
  it('sends OpenAI and Gemini a seed per question and run (Anthropic has none), reproducibly', async () => {
    const s = await servers();
    try {
      const run = await openTestRun(
        options(s, await mkdtemp(join(tmpdir(), 'rge-live-seed-')), { questions: 2 }),
      );
      await runStages(run, { log: quiet });
      const subjectSeeds = (server: LoopbackServer) =>
        server.calls.filter((c) => c.schema === null).map((c) => c.seed);
      expect(subjectSeeds(s.anthropic).every((x) => x === null)).toBe(true);
      for (const server of [s.openai, s.gemini]) {
        const seeds = subjectSeeds(server);
        expect(seeds).toHaveLength(4);
        expect(seeds.every((x) => Number.isInteger(x))).toBe(true);
        expect(new Set(seeds).size).toBe(4); // 2 questions x 2 runs, each its own seed
      }
      // the same cells get the same seeds: OpenAI's and Gemini's subjects see the same cell seeds
      expect([...subjectSeeds(s.openai)].sort()).toEqual([...subjectSeeds(s.gemini)].sort());
    } finally {
      await s.close();
    }
  });

  it('batch items that expire are answered by sync calls', async () => {
    let n = 0;
    const s = await servers({ batch: { completeAfterMs: 20, expire: () => n++ % 3 === 0 } });
    try {
      const dir = await mkdtemp(join(tmpdir(), 'rge-live-expire-'));
      const run = await openTestRun(options(s, dir, { mode: 'batch', questions: 2 }));
      const { state } = await runStages(run, { log: quiet });
      expect(state.errors).toEqual({});
      const rows = (await run.work.cells()).map((c) => caseRow(run, c));
      expect(rows).toHaveLength(12);
      expect(rows.some((r) => !r.batch)).toBe(true); // some answers came by sync fallback
      expect(rows.some((r) => r.batch)).toBe(true);
      const ledger = ledgerOf(dir).summary();
      expect(ledger.spentUsd).toBeCloseTo(recordedCosts(dir).usd, 12);
      expect(ledger.spentUsd).toBeCloseTo(billedUsd(s), 12);
      expect(ledger.open).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('an openai-compatible subject (a self-hosted model) runs through the same suite', async () => {
    const s = await servers();
    try {
      const dir = await mkdtemp(join(tmpdir(), 'rge-live-compatible-'));
      const overrides = [
        ...liveOverrides(),
        'subjects.0.provider=openai-compatible',
        'subjects.0.model=llama-3.1-8b-instruct',
        'subjects.0.family=meta',
        `subjects.0.base_url=${s.openai.url}`,
        'subjects.0.api_key_env=LOCAL_LLM_KEY',
        'subjects.0.prices={input: 0, output: 0, cache_read: 0, cache_write: 0, batch_discount: 0}',
      ];
      const env = { ...liveEnv(s), LOCAL_LLM_KEY: serverKeys.openai.apiKey };
      const run = await openTestRun(
        options(s, dir, { overrides, env, questions: 2, runs: 1, subjects: ['claude'] }),
      );
      expect(run.providerOf('subject', 'claude').id).toBe('openai-compatible/llama-3.1-8b-instruct');
      const { state } = await runStages(run, { log: quiet });
      expect(state.counts.answers.computed).toBe(2);
      expect(state.counts.verdicts.computed).toBe(4);
      expect(s.openai.calls.filter((c) => c.model === 'llama-3.1-8b-instruct')).toHaveLength(2);
      // its panel: two judges of other families (meta is judged by anthropic and openai)
      const rows = (await run.work.cells()).map((c) => caseRow(run, c));
      expect(rows.every((r) => r.cost_usd > 0 && r.usage.inputTokens > 0)).toBe(true);
    } finally {
      await s.close();
    }
  });
  it("two openai-compatible servers that serve one model name are two subjects: neither reuses the other's answers", async () => {
    const [first, second] = [await servers(), await servers()];
    try {
      const dir = await mkdtemp(join(tmpdir(), 'rge-live-compatible-two-'));
      const at = (url: string) => [
        ...liveOverrides(),
        'subjects.0.provider=openai-compatible',
        'subjects.0.model=local',
        'subjects.0.family=meta',
        `subjects.0.base_url=${url}`,
        'subjects.0.api_key_env=LOCAL_LLM_KEY',
        'subjects.0.prices={input: 0, output: 0, cache_read: 0, cache_write: 0, batch_discount: 0}',
      ];
      const answers = async (s: LoopbackServers, url: string) => {
        const env = { ...liveEnv(s), LOCAL_LLM_KEY: serverKeys.openai.apiKey };
        const run = await openTestRun(
          options(s, dir, { overrides: at(url), env, questions: 2, runs: 1, subjects: ['claude'] }),
        );
        return (await runStages(run, { log: quiet })).state.counts.answers;
      };
      expect(await answers(first, first.openai.url)).toMatchObject({ computed: 2, reused: 0 });
      // the same server again (its URL with a trailing slash): reused
      expect(await answers(first, `${first.openai.url}/`)).toMatchObject({ computed: 0, reused: 2 });
      // another server under the same model name: asked
      expect(await answers(second, second.openai.url)).toMatchObject({ computed: 2, reused: 0 });
      expect(second.openai.calls.filter((c) => c.model === 'local')).toHaveLength(2);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('live providers under faults, caps and bad keys', () => {
  it('completes with 20% injected faults; unparseable verdicts are unscored, never 0', async () => {
    const s = await servers({
      faults: {
        rate: 0.2,
        seed: 'rge-faults',
        kinds: ['429', '500', '502', '503', '529', 'malformed-json', 'bad-verdict'],
      },
      retryAfterMs: 5,
    });
    try {
      const dir = await mkdtemp(join(tmpdir(), 'rge-live-faults-'));
      const run = await openTestRun(options(s, dir, { questions: 6 }));
      const { state } = await runStages(run, { log: quiet });
      expect(state.errors).toEqual({});
      expect(state.counts.answers.computed).toBe(36);
      const rows = (await run.work.cells()).map((c) => caseRow(run, c));
      const verdicts = rows.flatMap((r) => r.verdicts);
      expect(verdicts).toHaveLength(72);
      const retried = verdicts.filter((v) => v.attempts === 2);
      expect(retried.length).toBeGreaterThan(0); // some first replies were not verdicts
      for (const v of verdicts.filter((x) => x.status === 'unscored')) {
        expect(v.verdict).toBeNull();
        expect(v.raw.length).toBeGreaterThan(0);
        expect(v.error).toMatch(/verdict schema|not JSON/);
      }
      // A case whose judges were both unscored has no score, not a zero.
      for (const r of rows.filter((x) => x.verdicts.every((v) => v.status === 'unscored')))
        expect(r.scores.gfsPrimary).toBeNull();
      const ledger = ledgerOf(dir).summary();
      expect(ledger.spentUsd).toBeCloseTo(recordedCosts(dir).usd, 12);
      expect(ledger.spentUsd).toBeCloseTo(billedUsd(s), 12);
    } finally {
      await s.close();
    }
  });

  it('stops cleanly at the cap, saying what was spent, what is left and how to raise it', async () => {
    const s = await servers();
    try {
      const dir = await mkdtemp(join(tmpdir(), 'rge-live-cap-'));
      const cap = 0.05;
      const warnings: string[] = [];
      const log = (l: string) => warnings.push(l);
      const run = await openTestRun(
        options(s, dir, {
          overrides: liveOverrides({ capUsd: cap, warnUsd: 0.02 }),
          questions: 10,
          runs: 3,
          log,
        }),
      );
      const { state } = await runStages(run, { log, skipPreflight: true });
      expect(state.stopped).toMatch(
        /budget cap of \$0\.0500 reached: spent \$0\.0\d+.*\$0\.\d+ left.*raise budget\.cap_usd in .*published\.yaml/,
      );
      expect(state.counts.answers.computed).toBeGreaterThan(0);
      expect(Object.keys(state.errors).length).toBeGreaterThan(0);
      const ledger = ledgerOf(dir, cap).summary();
      expect(ledger.spentUsd + ledger.unknownUsd).toBeLessThanOrEqual(cap);
      expect(billedUsd(s)).toBeLessThanOrEqual(cap);
      expect(ledger.spentUsd).toBeCloseTo(recordedCosts(dir).usd, 12);
      // The warning is printed once and recorded.
      expect(warnings.filter((w) => w.startsWith('budget warning'))).toHaveLength(1);
      expect(ledger.warnings).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('refuses a run whose estimate exceeds what is left, before calling anything', async () => {
    const s = await servers();
    try {
      const dir = await mkdtemp(join(tmpdir(), 'rge-live-preflight-'));
      const run = await openTestRun(
        options(s, dir, { overrides: liveOverrides({ capUsd: 0.01, warnUsd: 0.005 }) }),
      );
      await expect(runStages(run, { log: quiet })).rejects.toThrow(
        /pre-flight: the estimate of \$\d+\.\d\d exceeds the \$0\.01 left of the \$0\.01 cap; nothing was called/,
      );
      expect(calls(s)).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('a wrong key is a clear error for every cell, with nothing spent and no key in any message', async () => {
    const s = await startLoopbackServers({ apiKey: 'the-right-key-0000' });
    try {
      const dir = await mkdtemp(join(tmpdir(), 'rge-live-401-'));
      const run = await openTestRun(options(s, dir, { questions: 1, runs: 1 }));
      const { state } = await runStages(run, { log: quiet });
      const messages = Object.values(state.errors);
      expect(messages).toHaveLength(3);
      // Anthropic and OpenAI answer a wrong key with a 401, Gemini with a 400 API_KEY_INVALID
      expect(messages.map((m) => / (\d{3}): /.exec(m)?.[1]).sort()).toEqual(['400', '401', '401']);
      for (const m of messages) expect(m).not.toMatch(/LEAKCANARY|LEAKC|\*{4}/);
      // OpenAI echoed the key masked (sk-LEAKC*****************90d4): said redacted
      expect(messages.find((m) => m.includes('openai/gpt-5.4'))).toMatch(
        /openai 401: 401 Incorrect API key provided: \[redacted\]\. You can find your API key/,
      );
      expect(ledgerOf(dir).summary().spentUsd).toBe(0);
      expect(ledgerOf(dir).summary().open).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('a missing key is one error naming the variable and the model that needs it, before any call', async () => {
    const s = await servers();
    try {
      const dir = await mkdtemp(join(tmpdir(), 'rge-live-nokey-'));
      const env = liveEnv(s);
      delete (env as Record<string, string | undefined>).OPENAI_API_KEY;
      await expect(openTestRun(options(s, dir, { env }))).rejects.toThrow(
        'subject gpt needs an API key: set OPENAI_API_KEY in the environment or in .env (nothing was called)',
      );
      expect(calls(s)).toBe(0);
    } finally {
      await s.close();
    }
  });
});
