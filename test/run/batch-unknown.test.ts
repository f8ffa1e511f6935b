/**
 * Issue 52: a batch is created once. The moment a batch is created is tried from outside, through a
 * delaying proxy (test/loopback/delaying-proxy.ts) in front of each strict fake: creates that time out
 * after the provider made the batch, a Ctrl-C while a create is pending, a create that reaches the
 * provider after the client looked for it and made another. In every case each cell is stored once,
 * what the fake billed is what the ledger holds, and nothing is left at the provider.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { type BatchRecord, batchesDir, loadBatchRecords } from '../../src/store/batch-records.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { captureIO } from '../helpers/cli.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { billedUsd, cellCounts, liveEnv, liveOverrides, root, serverKeys } from '../helpers/live.ts';
import { openTestRun, type TestRunOptions } from '../helpers/open-run.ts';
import { type DelayingProxy, type ProxyRule, startDelayingProxy } from '../loopback/delaying-proxy.ts';
import { type LoopbackServers, type Provider, startLoopbackServers } from '../loopback/index.ts';
import { setArgs } from './crash/capped.ts';

beforeAll(() => worldOverrides('bm25'), 600_000);

const QUESTIONS = 2;

/** The subject whose answers go to each provider's batch API (its judges are the other two families). */
const SUBJECT: Record<Provider, string> = { openai: 'gpt', anthropic: 'claude', gemini: 'gemini' };
const BASE_URL_VAR: Record<Provider, string> = {
  openai: 'OPENAI_BASE_URL',
  anthropic: 'ANTHROPIC_BASE_URL',
  gemini: 'GOOGLE_GEMINI_BASE_URL',
};
/** The request that creates a batch, at each provider. */
const CREATE: Record<Provider, RegExp> = {
  openai: /^\/v1\/batches$/,
  anthropic: /^\/v1\/messages\/batches$/,
  gemini: /:batchGenerateContent$/,
};
const PROVIDERS: Provider[] = ['openai', 'anthropic', 'gemini'];

interface Rig {
  s: LoopbackServers;
  proxy: DelayingProxy;
  dir: string;
  provider: Provider;
}

const open: Rig[] = [];
afterEach(async () => {
  for (const rig of open.splice(0)) {
    await rig.proxy.close();
    await rig.s.close();
    await rm(rig.dir, { recursive: true, force: true });
  }
});

/** The fakes, with `provider`'s behind a delaying proxy whose creates follow `creates` (by their order). */
async function rig(
  provider: Provider,
  creates: (n: number) => ReturnType<ProxyRule>,
  completeAfterMs = 300,
): Promise<Rig> {
  const s = await startLoopbackServers({ batch: { completeAfterMs } }, serverKeys);
  let n = 0;
  const proxy = await startDelayingProxy(s[provider].url, ({ method, path }) =>
    method === 'POST' && CREATE[provider].test(path) ? creates(n++) : { kind: 'pass' },
  );
  const r: Rig = { s, proxy, dir: await mkdtemp(join(tmpdir(), `rge-batch-unknown-${provider}-`)), provider };
  open.push(r);
  return r;
}

/** The config overrides of the rig's runs: the loopback world, its provider's calls timing out at `timeoutMs`. */
const overridesOf = (r: Rig, timeoutMs: number) => [
  ...liveOverrides(),
  `providers.${r.provider}.timeout_ms=${timeoutMs}`,
];

/** A batch run of the provider's subject on 2 questions x 1 run, its provider's calls timing out at `timeoutMs`. */
function runOf(r: Rig, timeoutMs: number, log: (l: string) => void = () => {}): TestRunOptions {
  return {
    config: 'configs/published.yaml',
    root,
    resultsDir: r.dir,
    reportsDir: join(r.dir, 'reports'),
    env: { ...liveEnv(r.s), [BASE_URL_VAR[r.provider]]: r.proxy.url },
    overrides: overridesOf(r, timeoutMs),
    log,
    questions: QUESTIONS,
    runs: 1,
    mode: 'batch',
    subjects: [SUBJECT[r.provider]],
  };
}

/** Batches the fake of `provider` created. */
function created(r: Rig): number {
  return r.s[r.provider].requests.filter(
    (q) => q.method === 'POST' && CREATE[r.provider].test(q.path.split('?')[0] ?? '') && q.status === 200,
  ).length;
}

/** What must hold once the runs are over: each cell once, billed = ledger, nothing left open. */
async function checkPaidOnce(r: Rig): Promise<void> {
  expect(cellCounts(r.dir, 'answers')).toEqual({ keys: QUESTIONS, lines: QUESTIONS });
  expect(cellCounts(r.dir, 'verdicts')).toEqual({ keys: 2 * QUESTIONS, lines: 2 * QUESTIONS });
  const ledger = new BudgetLedger(r.dir, { capUsd: 100, warnUsd: 0, configFile: 'x' }).summary();
  expect(ledger.spentUsd).toBeCloseTo(billedUsd(r.s), 10);
  expect(ledger.open).toEqual([]);
  expect(r.s.openai.files()).toEqual([]);
  // the providers asked for the records' tags: no batch that no record holds
  const listed = await rgeWith(liveEnv(r.s), 'results', 'batches', '--results-dir', r.dir);
  expect(listed.out).toContain('nothing left at the providers');
  expect(listed.out).toMatch(/: no orphan \(every batch found is held by its record\)/);
}

/**
 * Says what the fakes billed and what the ledger holds, before anything is checked (the figures of
 * docs/reference/providers-and-costs.md, with this code and with the code before issue 52).
 */
function sayFigures(r: Rig): void {
  const ledger = new BudgetLedger(r.dir, { capUsd: 100, warnUsd: 0, configFile: 'x' }).summary();
  const billed = [r.s.anthropic, r.s.openai, r.s.gemini].flatMap((x) => x.billed);
  const name = expect.getState().currentTestName ?? '';
  console.log(
    `${name}: billed $${billedUsd(r.s).toFixed(4)} (${billed.length} replies, ${billed.filter((b) => !b.batch).length} sync), ` +
      `ledger $${ledger.spentUsd.toFixed(4)}; ${created(r)} batch(es) created at ${r.provider}; ` +
      `${cellCounts(r.dir, 'answers').lines} answers stored`,
  );
}

/** `rge ARGS...` through the real CLI entry, with `env` over the process's. */
async function rgeWith(env: Record<string, string>, ...args: string[]) {
  const io = captureIO(root);
  io.env = { ...process.env, ...env };
  const code = await main(['node', 'rge', ...args], io);
  return { code, out: io.text };
}

/**
 * A run of the rig aborted (Ctrl-C) once its first create has reached the provider; returns the rig and
 * its batch record as the run left it.
 */
async function ctrlCDuringCreate(provider: Provider): Promise<{ r: Rig; left: BatchRecord | undefined }> {
  const controller = new AbortController();
  const r = await rig(provider, (n) => {
    if (n === 0) setTimeout(() => controller.abort(), 150);
    return n === 0 ? { kind: 'hold', ms: 1000 } : { kind: 'pass' };
  });
  await runStages(await openTestRun(runOf(r, 5000)), { log: () => {}, signal: controller.signal });
  await r.proxy.settled();
  const [left] = loadBatchRecords(batchesDir(r.dir)).filter((x) => x.provider === provider);
  return { r, left };
}

/** What a Ctrl-C during the create leaves: the record unknown (the batch may exist), its items held. */
function checkLeftUnknown(left: BatchRecord | undefined): void {
  expect(left).toMatchObject({ status: 'unknown', remote_id: null, unknown_attempts: 1 });
  expect(left?.error).toMatch(/aborted/);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(PROVIDERS)('%s: a batch create whose outcome is unknown', (provider) => {
  it('five 503s, then the created reply held past the timeout: the batch is looked up and adopted, never asked again', async () => {
    const r = await rig(provider, (n) =>
      n < 5 ? { kind: 'fail', status: 503 } : { kind: 'hold', ms: 1500 },
    );
    const logs: string[] = [];
    const { state } = await runStages(await openTestRun(runOf(r, 400, (l) => logs.push(l))), {
      log: (l) => logs.push(l),
    });
    await r.proxy.settled();
    sayFigures(r);
    expect(state.errors).toEqual({});
    expect(created(r)).toBe(1);
    // every answer of the provider's subject came from its one batch: none was asked in sync
    expect(r.s[provider].billed.filter((b) => !b.batch)).toEqual([]);
    await checkPaidOnce(r);
    const [record] = loadBatchRecords(batchesDir(r.dir)).filter((x) => x.provider === provider);
    expect(record).toMatchObject({ status: 'collected' });
  });
});

describe.each(PROVIDERS)('%s: a Ctrl-C while a batch is being created', (provider) => {
  it('leaves the record unknown, not failed; the rerun looks the batch up and adopts it, submitting nothing again', async () => {
    const { r, left } = await ctrlCDuringCreate(provider);
    const logs: string[] = [];
    const { state } = await runStages(await openTestRun(runOf(r, 5000, (l) => logs.push(l))), {
      log: (l) => logs.push(l),
    });
    sayFigures(r);
    checkLeftUnknown(left);
    expect(state.errors).toEqual({});
    expect(logs.join('\n')).toMatch(
      /found at \S+ as \S+ after its submission ended without an answer; adopted/,
    );
    expect(created(r)).toBe(1);
    expect(r.s[provider].billed.filter((b) => !b.batch)).toEqual([]);
    await checkPaidOnce(r);
  });

  it('a rerun in sync mode collects the batch first: its answers are not asked again in sync', async () => {
    const { r, left } = await ctrlCDuringCreate(provider);
    const logs: string[] = [];
    const { state } = await runStages(
      await openTestRun({ ...runOf(r, 5000, (l) => logs.push(l)), mode: 'sync' }),
      { log: (l) => logs.push(l) },
    );
    sayFigures(r);
    checkLeftUnknown(left);
    expect(state.errors).toEqual({});
    expect(logs.join('\n')).toMatch(
      /1 batch\(es\) an earlier batch run left open .* not asked again in sync/,
    );
    expect(created(r)).toBe(1);
    // the answers came from the batch; the verdicts were asked in sync (this run's mode)
    expect(r.s[provider].billed.map((b) => b.batch)).toEqual([true, true]);
    await checkPaidOnce(r);
  });
});

describe.each(PROVIDERS)('%s: a create that reaches the provider after the lookup', (provider) => {
  it('makes a second batch, which is found, collected and booked: each cell stored once, billed = ledger', async () => {
    // the first create reaches the provider 800 ms late, after the client timed out (300 ms), looked
    // for the batch (none yet) and created it again; each batch ends 1.5 s after it is created
    const r = await rig(provider, (n) => (n === 0 ? { kind: 'late', ms: 800 } : { kind: 'pass' }), 1500);
    const logs: string[] = [];
    const { state } = await runStages(await openTestRun(runOf(r, 300, (l) => logs.push(l))), {
      log: (l) => logs.push(l),
    });
    await r.proxy.settled();
    const made = created(r);
    // a rerun finds nothing more to ask or to collect
    await runStages(await openTestRun(runOf(r, 300, (l) => logs.push(l))), { log: (l) => logs.push(l) });
    sayFigures(r);
    expect(state.errors).toEqual({});
    expect(made).toBe(2);
    expect(created(r)).toBe(2);
    expect(r.s[provider].billed.filter((b) => !b.batch)).toEqual([]);
    // both batches billed their items; the second batch's replies are booked, not stored
    expect(r.s[provider].billed).toHaveLength(2 * QUESTIONS);
    expect(logs.join('\n')).toMatch(/a second batch of its items, \S+, was created late/);
    const records = loadBatchRecords(batchesDir(r.dir)).filter((x) => x.provider === provider);
    expect(records.map((x) => [x.status, x.late_of !== null])).toEqual(
      expect.arrayContaining([
        ['collected', false],
        ['collected', true],
      ]),
    );
    await checkPaidOnce(r);
  });
});

describe.each(PROVIDERS)('%s: `rge results batches` and an orphan', (provider) => {
  it('finds the batch a Ctrl-C left at the provider, and `--collect` stores it without a new request', async () => {
    const { r, left } = await ctrlCDuringCreate(provider);
    checkLeftUnknown(left);
    await sleep(600); // the batch has ended at the fake (300 ms)
    const listed = await rgeWith(liveEnv(r.s), 'results', 'batches', '--results-dir', r.dir);
    expect(listed.code, listed.out).toBe(0);
    expect(listed.out).toMatch(/1 orphan\(s\), batches no record holds/);
    expect(listed.out).toMatch(
      new RegExp(
        `orphan \\S+ at ${provider}: tagged \\S+ \\(2 answers of ${provider}/\\S+, record unknown\\): \\w+, 2 of 2 answered, billed \\$0\\.\\d{4}`,
      ),
    );
    // without keys it says what it could not ask
    const blind = await rgeWith(
      { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', GOOGLE_API_KEY: '' },
      'results',
      'batches',
      '--results-dir',
      r.dir,
    );
    expect(blind.out).toMatch(
      new RegExp(`could not ask ${provider} about 1 record\\(s\\) of \\S+: .*needs an API key`),
    );
    const before = { requests: r.s[provider].requests.length, billed: r.s[provider].billed.length };
    const collected = await rgeWith(
      liveEnv(r.s),
      'results',
      'batches',
      '--results-dir',
      r.dir,
      '--collect',
      '--config',
      'configs/published.yaml',
      ...setArgs(overridesOf(r, 5000)),
    );
    expect(collected.code, collected.out).toBe(0);
    expect(collected.out).toMatch(
      /collected 1 orphan\(s\): 2 answer\(s\) and 0 verdict\(s\) stored, nothing asked again/,
    );
    // nothing was asked: no batch created, no model call, nothing billed since
    expect(created(r)).toBe(1);
    expect(r.s[provider].billed).toHaveLength(before.billed);
    const asked = r.s[provider].requests.slice(before.requests).filter((q) => q.method === 'POST');
    expect(asked).toEqual([]);
    expect(cellCounts(r.dir, 'answers')).toEqual({ keys: QUESTIONS, lines: QUESTIONS });
    const ledger = new BudgetLedger(r.dir, { capUsd: 100, warnUsd: 0, configFile: 'x' }).summary();
    expect(ledger.spentUsd).toBeCloseTo(billedUsd(r.s), 10);
    expect(ledger.open).toEqual([]);
    const again = await rgeWith(liveEnv(r.s), 'results', 'batches', '--results-dir', r.dir);
    expect(again.out).toMatch(/: no orphan/);
  });
});

describe.each(PROVIDERS)(
  '%s: a create that reaches the provider after every lookup said absent',
  (provider) => {
    it('its items are answered in sync; a batch the late create makes is found and booked, never stored twice', async () => {
      // five 503s, then a create that reaches the provider 1 s late: the client timed out (300 ms), looked
      // twice and found nothing, so the items went to sync calls
      const r = await rig(
        provider,
        (n) => (n < 5 ? { kind: 'fail', status: 503 } : { kind: 'late', ms: 1000 }),
        1500,
      );
      const logs: string[] = [];
      const { state } = await runStages(await openTestRun(runOf(r, 300, (l) => logs.push(l))), {
        log: (l) => logs.push(l),
      });
      await r.proxy.settled();
      const late = r.proxy.requests.find((q) => q.action === 'late');
      await sleep(1600); // a batch the late create made has ended, and is billed, by now
      await runStages(await openTestRun(runOf(r, 300, (l) => logs.push(l))), { log: (l) => logs.push(l) });
      sayFigures(r);
      expect(state.errors).toEqual({});
      expect(logs.join('\n')).toMatch(/no batch tagged \S+ at \S+ when looked up/);
      // the answers were asked once in sync
      expect(r.s[provider].billed.filter((b) => !b.batch)).toHaveLength(QUESTIONS);
      if (provider === 'openai') {
        // the input file went with the record given up: the late create is refused, nothing is billed for it
        expect(late?.upstreamStatus).toBe(400);
        expect(created(r)).toBe(0);
      } else {
        // the late batch ran and was billed: adopted by its record and collected, its replies booked
        expect(late?.upstreamStatus).toBe(200);
        expect(created(r)).toBe(1);
        expect(r.s[provider].billed.filter((b) => b.batch)).toHaveLength(QUESTIONS);
        expect(logs.join('\n')).toMatch(/found at \S+ as \S+ \(created after a lookup found none/);
      }
      await checkPaidOnce(r);
    });
  },
);
