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
import { spawnRge } from '../helpers/cli.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { FAKE_KEYS, filesUnder, liveEnv, liveOverrides, serverKeys } from '../helpers/live.ts';
import { defaultReply } from '../loopback/common.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';

const setArgs = (overrides: string[]) => overrides.flatMap((o) => ['--set', o]);

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

  for (const mode of ['sync', 'batch'] as const) {
    it(`completes a small ${mode} run of the published config and reports cache savings and estimate vs actual`, async () => {
      const dir = await mkdtemp(join(tmpdir(), `rge-cli-live-${mode}-`));
      const results = join(dir, 'results');
      const reports = join(dir, 'reports');
      const outcome = await spawnRge(
        [
          'eval',
          'run',
          '--config',
          'configs/published.yaml',
          '--questions',
          '2',
          '--runs',
          '2',
          '--mode',
          mode,
          '--results-dir',
          results,
          '--reports-dir',
          reports,
          ...setArgs(liveOverrides()),
        ],
        liveEnv(s),
      );
      printed.push(outcome.out, outcome.err);
      expect(outcome.code, outcome.err).toBe(0);
      expect(outcome.out).toMatch(
        /12 cases, 0 reused, 0 failed \(pass rate 100\.0%\); report .*summary\.md; answers computed 12, verdicts computed 24/,
      );
      expect(outcome.err).toMatch(/estimate for run published-/);
      if (mode === 'batch')
        expect(outcome.err).toMatch(
          /batch rge-published-.*: submitting 4 answers to anthropic\/claude-sonnet-4-6/,
        );
      const report = /report (\S+summary\.md)/.exec(outcome.out)?.[1] as string;
      const md = readFileSync(report, 'utf8');
      expect(md).toMatch(/## Cost and prompt caching/);
      expect(md).toMatch(
        /## Budget: the pre-flight estimate against what the run spent \((sync|batch) mode\)/,
      );
      expect(md).toMatch(
        /\| subject \| anthropic\/claude-sonnet-4-6 \| 4 \| [\d.]+ \| [\d.]+ \| 4 \| [\d.]+ \| [\d.]+x \|/,
      );
      // Caching saved money on the Anthropic subject (runs after the first read the context).
      const claude = /\| claude \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|/.exec(md);
      expect(Number(claude?.[3])).toBeGreaterThan(0);
      if (mode === 'batch') expect(md).toMatch(/\| claude \|.*\| 100% \|/);
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
    // A verbose model: its answers run to max_tokens, where the estimate assumed one output token, so
    // the pre-flight lets the run start and the spend reaches the cap part way.
    const verbose = await startLoopbackServers(
      {
        latencyMs: 1,
        respond: (call) => {
          const reply = defaultReply(call);
          if (call.schema !== null) return reply;
          return {
            text: `${reply.text} ${'Further detail from the report. '.repeat(Math.floor((call.maxTokens ?? 512) / 6))}`,
          };
        },
      },
      serverKeys,
    );
    const dir = await mkdtemp(join(tmpdir(), 'rge-cli-live-cap-'));
    const outcome = await spawnRge(
      [
        'eval',
        'run',
        '--config',
        'configs/published.yaml',
        '--questions',
        '3',
        '--runs',
        '2',
        '--mode',
        'sync',
        '--results-dir',
        join(dir, 'results'),
        '--reports-dir',
        join(dir, 'reports'),
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
