/**
 * Live runs, offline: the published config's three models against the loopback servers (the real SDKs,
 * a simulated latency, no faults).
 *
 * 1. A sync run's wall time against its lower bound: each provider's calls must respect its rpm (the
 *    limiter spaces requests evenly, 60/rpm s apart) and its concurrency at the simulated latency
 *    (calls x latency / concurrency); the bound is the max over providers of the larger of the two.
 *    Token limits are lifted so that only those two apply. Goal: wall time <= 1.15x the bound.
 * 2. The published run's pre-flight estimate (dry run, config unmodified: 3 subjects x 200 questions x
 *    3 runs, batch mode with caching) against the same calls made naively (sync, uncached). Goal <= 0.55x.
 */
import { join } from 'node:path';
import { estimateRun } from '../src/run/estimate/estimate.ts';
import { runStages } from '../src/run/stages/stages.ts';
import { worldOverrides } from '../test/helpers/fixture-world.ts';
import { liveEnv, liveOverrides, serverKeys } from '../test/helpers/live.ts';
import { openTestRun } from '../test/helpers/open-run.ts';
import { defaultReply, type Provider, startLoopbackServers } from '../test/loopback/index.ts';
import { type Bench, type BenchContext, type BenchRow, latencyRow } from './harness.ts';

const PROVIDERS: readonly Provider[] = ['anthropic', 'openai', 'gemini'];
const LATENCY_MS = 40;
const RPM = 600;
const CONCURRENCY = 4;
const RUNS = 3;

/** When each call reached a server (after the client's limiter) and when its reply was produced. */
interface Stamp {
  provider: Provider;
  judge: boolean;
  arrived: number;
  replied: number;
}

const bench: Bench = async (ctx) => [await syncRow(ctx), await costRow(ctx)];

async function syncRow(ctx: BenchContext): Promise<BenchRow> {
  const questions = ctx.quick ? 4 : 10;
  // the tests' bm25 fixture world (liveOverrides points the corpus at it), built once per bench run
  await worldOverrides('bm25');
  const stamps: Stamp[] = [];
  const arrivals = new WeakMap<object, number>();
  const servers = await startLoopbackServers(
    {
      latencyMs: (call) => {
        arrivals.set(call, performance.now());
        return LATENCY_MS;
      },
      respond: (call) => {
        const arrived = arrivals.get(call) ?? Number.NaN;
        stamps.push({
          provider: call.provider,
          judge: call.schema !== null,
          arrived,
          replied: performance.now(),
        });
        return defaultReply(call);
      },
    },
    serverKeys,
  );
  try {
    const limits = PROVIDERS.flatMap((p) => [
      `providers.${p}.rpm=${RPM}`,
      `providers.${p}.concurrency=${CONCURRENCY}`,
      `providers.${p}.tpm=null`,
    ]);
    const run = await openTestRun({
      config: 'configs/published.yaml',
      root: ctx.root,
      resultsDir: join(ctx.tmp, 'sync'),
      reportsDir: join(ctx.tmp, 'reports'),
      env: liveEnv(servers),
      overrides: [...liveOverrides(), ...limits],
      log: () => {},
      questions,
      runs: RUNS,
      mode: 'sync',
    });
    await run.work.cells(); // retrieval out of the measurement (memoised per run)
    const t0 = performance.now();
    const { state } = await runStages(run, { log: () => {}, skipPreflight: true });
    const seconds = (performance.now() - t0) / 1000;

    const cells = PROVIDERS.length * questions * RUNS;
    const errors = Object.keys(state.errors).length;
    if (state.counts.answers.computed !== cells || state.counts.verdicts.computed !== 2 * cells || errors > 0)
      throw new Error(
        `the sync run did not compute every cell: ${JSON.stringify(state.counts)}, ${errors} errors`,
      );

    // The bound, per provider: its own subject's cells plus judging the two other subjects' cells.
    let bound = 0;
    let limitedBy = '';
    let lastStart = { provider: '', at: 0 };
    for (const p of PROVIDERS) {
      const calls = servers[p].calls.length;
      if (calls !== 3 * questions * RUNS)
        throw new Error(`${p}: ${calls} calls, expected ${3 * questions * RUNS}`);
      const byRate = (calls * 60) / RPM;
      const byLatency = (calls * LATENCY_MS) / 1000 / CONCURRENCY;
      if (Math.max(byRate, byLatency) > bound) {
        bound = Math.max(byRate, byLatency);
        limitedBy =
          byRate >= byLatency ? `rpm ${RPM}` : `latency ${LATENCY_MS} ms / concurrency ${CONCURRENCY}`;
      }
      const t = timeline(
        stamps.filter((s) => s.provider === p),
        t0,
      );
      if (t.first > lastStart.at) lastStart = { provider: p, at: t.first };
      ctx.log(
        `${p}: ${calls} calls (${byRate.toFixed(2)} s by rpm, ${byLatency.toFixed(2)} s by latency); ${t.text}`,
      );
    }
    const lastReply = (Math.max(...stamps.map((s) => s.replied)) - t0) / 1000;
    ctx.log(
      `runStages ${seconds.toFixed(2)} s = bound ${bound.toFixed(2)} s + ${(seconds - bound).toFixed(2)} s, ` +
        `of which ${lastStart.at.toFixed(2)} s before ${lastStart.provider}'s first call; last reply at ${lastReply.toFixed(2)} s`,
    );
    return latencyRow(
      `sync run of the published config (${questions} questions x ${RUNS} runs, ${LATENCY_MS} ms latency)`,
      's',
      seconds,
      { name: 'rate-limit lower bound', value: bound },
      `goal ratio >= 0.87; wall time = ${(seconds / bound).toFixed(2)}x the lower bound, bound set by ${limitedBy}` +
        ` (concurrency ${CONCURRENCY}, ${3 * questions * RUNS} calls a provider; ${lastStart.provider}'s first call at ` +
        `${lastStart.at.toFixed(2)} s); ${cells} answers, ${2 * cells} verdicts`,
    );
  } finally {
    await servers.close();
  }
}

/** One provider's calls as its server saw them, in seconds from `t0`. */
function timeline(mine: Stamp[], t0: number): { first: number; text: string } {
  const at = (ms: number | undefined) => ((ms ?? Number.NaN) - t0) / 1000;
  const span = (xs: Stamp[]) => `${at(xs[0]?.arrived).toFixed(2)}-${at(xs.at(-1)?.arrived).toFixed(2)} s`;
  const sorted = [...mine].sort((a, b) => a.arrived - b.arrived);
  const gaps = sorted.slice(1).map((s, i) => s.arrived - (sorted[i]?.arrived ?? 0));
  const mean = gaps.reduce((a, b) => a + b, 0) / Math.max(1, gaps.length);
  return {
    first: at(sorted[0]?.arrived),
    text:
      `subjects arrive ${span(sorted.filter((s) => !s.judge))}, judges ${span(sorted.filter((s) => s.judge))}; ` +
      `gap between arrivals mean ${mean.toFixed(1)} ms, max ${Math.max(0, ...gaps).toFixed(0)} ms`,
  };
}

async function costRow(ctx: BenchContext): Promise<BenchRow> {
  const run = await openTestRun({
    config: 'configs/published.yaml',
    root: ctx.root,
    resultsDir: join(ctx.tmp, 'dry'),
    dryRun: true,
    log: () => {},
  });
  const estimate = await estimateRun(run);
  const { expectedUsd, naiveUsd, calls } = estimate.totals;
  const bounded = estimate.assumptions.contextBounded
    ? 'context bounded by k x chunk_tokens (index not built)'
    : 'context from the built index';
  return {
    name: `published run's estimated cost (${estimate.mode}, caching)`,
    unit: 'USD',
    value: expectedUsd,
    reference: { name: 'naive sync uncached', value: naiveUsd },
    ratio: expectedUsd / naiveUsd,
    note:
      `ratio = cost / naive, goal <= 0.55x; ${calls} calls (${estimate.cells.total} cells: ` +
      `${run.plan.subjects.length} subjects x ${run.plan.questions.length} questions x ${run.plan.runs} runs, 2 judges each); ${bounded}; ` +
      `cache hit rate ${estimate.assumptions.cacheHitRate}`,
  };
}

export default bench;
