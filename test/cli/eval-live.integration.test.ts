/**
 * `rge eval run --config configs/published.yaml` end to end against the loopback servers, as a user runs
 * it: a child process with the three base-URL variables pointed at 127.0.0.1 and recognisable fake keys.
 * Sync and batch runs complete and write the report with cache savings and estimate vs actual; then
 * every file written and everything printed is scanned for the keys.
 */

import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnRge } from '../helpers/child.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';
import {
  FAKE_KEYS,
  filesUnder,
  liveEnv,
  liveOverrides,
  processWarnings,
  serverKeys,
} from '../helpers/live.ts';
import { defaultReply, type LoopbackCall } from '../loopback/common.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';

const setArgs = (overrides: string[]) => overrides.flatMap((o) => ['--set', o]);

/** `rge eval run` of the published config on 3 questions x 2 runs, results and reports under `dir`. */
const publishedRun = (mode: 'sync' | 'batch', dir: string) => [
  'eval',
  'run',
  '--config',
  'configs/published.yaml',
  '--questions',
  '3',
  '--runs',
  '2',
  '--mode',
  mode,
  '--results-dir',
  join(dir, 'results'),
  '--reports-dir',
  join(dir, 'reports'),
];

describe('rge eval run against live providers (loopback)', () => {
  let s: LoopbackServers;
  const written: string[] = [];
  const printed: string[] = [];

  beforeAll(async () => {
    await worldOverrides('bm25'); // the corpus liveOverrides() names, built once per test run
    s = await startLoopbackServers({ latencyMs: 1 }, serverKeys);
  }, 600_000);
  afterAll(async () => {
    await s.close();
  });

  const requests = () => [s.anthropic, s.openai, s.gemini].flatMap((x) => x.requests);
  const modelCalls = () => s.anthropic.calls.length + s.openai.calls.length + s.gemini.calls.length;

  for (const mode of ['sync', 'batch'] as const) {
    it(`completes a small ${mode} run of the published config, every request accepted, and reports what was sent, cache savings and estimate vs actual; a rerun calls nothing`, async () => {
      const dir = await mkdtemp(join(tmpdir(), `rge-cli-live-${mode}-`));
      const args = [...publishedRun(mode, dir), ...setArgs(liveOverrides())];
      const before = requests().length;
      const outcome = await spawnRge(args, liveEnv(s));
      printed.push(outcome.out, outcome.err);
      expect(outcome.code, outcome.err).toBe(0);
      // no process warning (18 calls in flight at once each listened to the run's signal: Node warned
      // "MaxListenersExceededWarning: Possible EventTarget memory leak detected")
      expect(processWarnings(outcome.err)).toEqual([]);
      expect(outcome.out).toMatch(
        /18 cases, 0 reused, 0 failed \(recorded, not gated: every threshold is null\); report .*summary\.md; answers computed 18, verdicts computed 36/,
      );
      // the strict fakes refused nothing: every request of the run was one the real APIs accept
      const sent = requests().slice(before);
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.filter((r) => r.status >= 400).map((r) => `${r.status} ${r.method} ${r.path}`)).toEqual([]);
      expect(outcome.err).toMatch(/estimate for run published-/);
      if (mode === 'batch')
        expect(outcome.err).toMatch(
          /batch rge-published-.*: submitting 6 answers to anthropic\/claude-sonnet-4-6/,
        );
      const report = /report (\S+summary\.md)/.exec(outcome.out)?.[1] as string;
      const md = readFileSync(report, 'utf8');
      expect(md).toMatch(/## Cost and prompt caching/);
      expect(md).toMatch(
        /## Budget: the pre-flight estimate against what the run spent \((sync|batch) mode\)/,
      );
      expect(md).toMatch(
        /\| subject \| anthropic\/claude-sonnet-4-6 \| 6 \| [\d.]+ \| [\d.]+ \| 6 \| [\d.]+ \| [\d.]+x \|/,
      );
      // Caching saved money on the Anthropic subject (runs after the first read the context).
      const claude = /\| claude \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|/.exec(md);
      expect(Number(claude?.[3])).toBeGreaterThan(0);
      if (mode === 'batch') expect(md).toMatch(/\| claude \|.*\| 100% \|/);
      // what each model was sent, and the deviation from the methodology's temperature 0
      expect(md).toContain(
        '| sent to claude (subject) | no sampling or reasoning parameter; output limit 1024 tokens; deviation from temperature 0: no temperature: API version 2026-10-21 refuses temperature, top_p and top_k',
      );
      expect(md).toContain(
        '| sent to gpt-judge (judge) | temperature 0, reasoning_effort none; output limit 2048 tokens; temperature 0 as the methodology fixes it |',
      );
      expect(md).toMatch(/\| sent to gpt \(subject\) \| temperature 0, reasoning_effort none, seed; /);
      // ... as the wire has it: a seed on every OpenAI and Gemini subject call, none on a judge call
      // (a verdict asks for a schema) and none to Anthropic, which takes no seed
      const seeds = (calls: readonly LoopbackCall[], judge: boolean) =>
        new Set(calls.filter((c) => (c.schema !== null) === judge).map((c) => c.seed === null));
      for (const server of [s.openai, s.gemini]) {
        expect(seeds(server.calls, false)).toEqual(new Set([false]));
        expect(seeds(server.calls, true)).toEqual(new Set([true]));
      }
      expect(new Set(s.anthropic.calls.map((c) => c.seed))).toEqual(new Set([null]));
      expect(md).toMatch(
        /\| sent to gemini \(subject\) \| thinking_level low, seed; output limit 3072 tokens; deviation from temperature 0: no temperature: Google's Gemini 3 guide advises/,
      );
      expect(md).toMatch(/## How replies ended/);
      expect(md).toMatch(/\| claude \| subject \(answers\) \| 6 \| 0 \| 0 \| 0 \| 0 \|/);
      // the same command again reuses every stored cell and calls no model
      const calls = modelCalls();
      const again = await spawnRge(args, liveEnv(s));
      printed.push(again.out, again.err);
      expect(again.code, again.err).toBe(0);
      expect(again.out).toMatch(/18 cases, 18 reused, 0 failed .*answers computed 0, verdicts computed 0/);
      expect(modelCalls()).toBe(calls);
      // the end line tells this run's spending from the ledger's: the first run paid, the rerun nothing
      const paid =
        /this run spent \$(\d+\.\d{4}) of its \$100\.00 cap \(.*?\); the ledger of .*: \$(\d+\.\d{4}) spent in all, under the \$100\.00 cap recorded/;
      expect(Number(paid.exec(outcome.out)?.[1])).toBeGreaterThan(0);
      expect(again.out).toMatch(/this run spent \$0\.0000 of its \$100\.00 cap /);
      if (mode === 'sync') {
        // an offline run with a $0 cap in the same folder: it spends $0 of its own $0 cap, and the
        // ledger's total is told under the $100 cap the live run recorded (issue 39, defect 6)
        const offline = await spawnRge(
          [
            'eval',
            'run',
            '--config',
            'configs/fixture.yaml',
            '--questions',
            '2',
            '--runs',
            '1',
            '--results-dir',
            join(dir, 'results'),
            '--reports-dir',
            join(dir, 'reports'),
            ...setArgs(worldPaths('bm25').overrides),
          ],
          liveEnv(s),
        );
        expect(offline.code, offline.err).toBe(0);
        const end =
          /this run spent \$(\d+\.\d{4}) of its \$(\d+\.\d\d) cap \(.*?\); the ledger of .*: \$(\d+\.\d{4}) spent in all, under the \$(\d+\.\d\d) cap recorded/.exec(
            offline.out,
          );
        expect(end?.[1]).toBe('0.0000');
        expect(end?.[2]).toBe('0.00');
        expect(Number(end?.[3])).toBeGreaterThan(0);
        expect(end?.[4]).toBe('100.00');
      }
      written.push(...filesUnder(dir));
    }, 240_000);
  }

  it('a wrong key fails cleanly, exit 1, and the key is not in the message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-cli-live-401-'));
    const env = { ...liveEnv(s), OPENAI_API_KEY: 'sk-LEAKCANARY-wrong-key-1234' };
    const outcome = await spawnRge(
      [
        'eval',
        'run',
        '--config',
        'configs/published.yaml',
        '--questions',
        '1',
        '--runs',
        '1',
        '--subjects',
        'gpt',
        '--results-dir',
        join(dir, 'results'),
        '--reports-dir',
        join(dir, 'reports'),
        ...setArgs(liveOverrides()),
      ],
      env,
    );
    printed.push(outcome.out, outcome.err);
    expect(outcome.code).toBe(1);
    expect(outcome.out).toMatch(/1 cases, 0 reused, 1 failed/);
    expect(outcome.err).not.toContain('sk-LEAKCANARY-wrong-key-1234');
    written.push(...filesUnder(dir));
  }, 240_000);

  it('the cap stops a run: exit 1 with the cap message, the cells it could not pay for fail as errors, none vanish', async () => {
    // A verbose model: its answers run to about 600 tokens (below every model's output limit, so they
    // are complete and judged), where the estimate assumed one output token, so the pre-flight lets the
    // run start and the spend reaches the cap part way.
    const verbose = await startLoopbackServers(
      {
        latencyMs: 1,
        respond: (call) => {
          const reply = defaultReply(call);
          if (call.schema !== null) return reply;
          return {
            text: `${reply.text} ${'Further detail from the report. '.repeat(100)}`,
          };
        },
      },
      serverKeys,
    );
    const dir = await mkdtemp(join(tmpdir(), 'rge-cli-live-cap-'));
    const outcome = await spawnRge(
      [
        ...publishedRun('sync', dir),
        '--json',
        join(dir, 'cases.json'),
        // the pre-flight lets it start (the estimate fits), the run stops when the spend reaches the cap
        ...setArgs(liveOverrides({ capUsd: 0.55, warnUsd: 0.01 })),
        '--set',
        'estimate.subject_output_tokens=1',
        '--set',
        'estimate.judge_output_tokens=1',
      ],
      liveEnv(verbose),
    ).finally(() => verbose.close());
    printed.push(outcome.out, outcome.err);
    expect(outcome.code, outcome.err).toBe(1);
    expect(outcome.err).toMatch(/rge: budget cap of \$0\.5500 reached: spent \$0\.\d+/);
    const result = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as {
      total: number;
      failed: number;
      ok: boolean;
      stopped: string;
      cases: { state: string; failures: string[] }[];
    };
    expect(result.total).toBe(18);
    expect(result.ok).toBe(false);
    expect(result.stopped).toMatch(/budget cap/);
    expect(result.failed).toBeGreaterThan(0);
    expect(result.failed).toBeLessThan(18);
    for (const c of result.cases.filter((x) => x.state === 'failed'))
      expect(c.failures.join(' ')).toMatch(/budget cap of \$0\.5500 reached/);
    // the report counts the failed cells as errors, and it is a full report of the run (not partial)
    const report = /report (\S+summary\.md)/.exec(outcome.out)?.[1] as string;
    const summary = JSON.parse(readFileSync(report.replace(/summary\.md$/, 'summary.json'), 'utf8'));
    expect(summary.diagnostics.errors.count).toBe(result.failed);
    expect(summary.partial).toBeNull();
    expect(summary.cases.total + summary.diagnostics.errors.count).toBe(18);
    written.push(...filesUnder(dir));
  }, 240_000);

  it('no key appears in any file written or anything printed', () => {
    expect(written.length).toBeGreaterThan(10);
    const keys = [...Object.values(FAKE_KEYS), 'sk-LEAKCANARY-wrong-key-1234'];
    for (const file of written) {
      if (!existsSync(file)) continue;
      const text = readFileSync(file, 'utf8');
      for (const key of keys) expect(text.includes(key), `${key} in ${file}`).toBe(false);
    }
    for (const text of printed) for (const key of keys) expect(text.includes(key)).toBe(false);
    // The keys did reach the servers (so the scan had something to find).
    expect(
      s.openai.requests.some((r) => (r.headers.authorization ?? '').includes(FAKE_KEYS.OPENAI_API_KEY)),
    ).toBe(true);
  });
});
