/**
 * Live runs against the loopback servers: the published config (its three models as subjects and
 * judges) on the fixture corpus, with the SDKs pointed at 127.0.0.1 by their base-URL variables and
 * recognisable fake keys, fast retries and a quick batch poll.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { costUsd, findModel } from '../../src/providers/catalogue.ts';
import type { BilledCall, LoopbackServers } from '../loopback/index.ts';
import { worldPaths } from './fixture-world.ts';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** Fake keys a leak scan can find anywhere. */
export const FAKE_KEYS = {
  ANTHROPIC_API_KEY: 'sk-ant-LEAKCANARY-anthropic-7d1f3a9c',
  OPENAI_API_KEY: 'sk-LEAKCANARY-openai-52be90d4',
  GEMINI_API_KEY: 'LEAKCANARY-gemini-c0ffee42',
} as const;

export function liveEnv(servers: LoopbackServers): Record<string, string> {
  return {
    ...FAKE_KEYS,
    ANTHROPIC_BASE_URL: servers.anthropic.url,
    OPENAI_BASE_URL: servers.openai.url,
    GOOGLE_GEMINI_BASE_URL: servers.gemini.url,
  };
}

/** The loopback servers accept only the fake keys. */
export const serverKeys = {
  anthropic: { apiKey: FAKE_KEYS.ANTHROPIC_API_KEY },
  openai: { apiKey: FAKE_KEYS.OPENAI_API_KEY },
  gemini: { apiKey: FAKE_KEYS.GEMINI_API_KEY },
};

/**
 * Config overrides: the test run's bm25 fixture world (the embedder is not what these tests are about;
 * build it first: `await worldOverrides('bm25')`, test/helpers/fixture-world.ts), unlimited request
 * rates with fast retries, a quick batch poll, thresholds that record only.
 */
export function liveOverrides(opts: { capUsd?: number; warnUsd?: number } = {}): string[] {
  const corpus = worldPaths('bm25').overrides;
  const providers = ['anthropic', 'openai', 'gemini'].flatMap((p) => [
    `providers.${p}.rpm=null`,
    `providers.${p}.concurrency=6`,
    `providers.${p}.min_backoff_ms=5`,
    `providers.${p}.max_backoff_ms=40`,
    `providers.${p}.timeout_ms=2000`,
  ]);
  return [
    ...corpus,
    ...providers,
    'batch.poll_interval_ms=20',
    // The loopback judges score by a hash of the case: record, do not gate.
    'thresholds.correctness=null',
    'thresholds.grounding=null',
    'thresholds.calibration=null',
    'thresholds.gfs=null',
    ...(opts.capUsd !== undefined ? [`budget.cap_usd=${opts.capUsd}`] : []),
    ...(opts.warnUsd !== undefined ? [`budget.warn_usd=${opts.warnUsd}`] : []),
  ];
}

/** What the servers billed, in USD at the catalogue's prices. */
export function billedUsd(servers: LoopbackServers): number {
  let usd = 0;
  for (const server of [servers.anthropic, servers.openai, servers.gemini])
    for (const b of server.billed) usd += priceOf(server.provider, b);
  return usd;
}

function priceOf(provider: string, b: BilledCall): number {
  const entry = findModel(provider, b.model);
  if (!entry) throw new Error(`no catalogue entry for ${provider}/${b.model}`);
  return costUsd(
    {
      inputTokens: b.inputTokens,
      outputTokens: b.outputTokens,
      cacheReadTokens: b.cacheReadTokens,
      cacheWriteTokens: b.cacheWriteTokens,
    },
    entry.prices,
    { batch: b.batch },
  );
}

/** Every file under a folder (recursively). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

/**
 * The sum of recorded costs in a results folder's cell stores (answers, verdicts, and the judges' first
 * replies kept for their retry), each call once (a kept reply's call is on its verdict's record too, as
 * the ledger spends each call's key once), and the answer and verdict records.
 */
export function recordedCosts(resultsDir: string): { usd: number; answers: number; verdicts: number } {
  let usd = 0;
  let answers = 0;
  let verdicts = 0;
  const calls = new Set<string>();
  for (const kind of ['answers', 'verdicts', 'attempts'] as const) {
    let files: string[] = [];
    try {
      // only the stores: a process killed while writing one leaves its lock folder beside it
      files = readdirSync(join(resultsDir, 'cells', kind)).filter((name) => name.endsWith('.jsonl'));
    } catch {
      continue;
    }
    for (const f of files)
      for (const line of readFileSync(join(resultsDir, 'cells', kind, f), 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const record = JSON.parse(line) as { charges: { key: string; usd: number }[] };
        for (const c of record.charges) {
          if (!calls.has(c.key)) usd += c.usd;
          calls.add(c.key);
        }
        if (kind === 'answers') answers++;
        else if (kind === 'verdicts') verdicts++;
      }
  }
  return { usd, answers, verdicts };
}

/**
 * The process warnings Node printed on a child's stderr (`(node:PID) MaxListenersExceededWarning: ...`,
 * `(node:PID) [DEP0040] DeprecationWarning: ...`): a live run prints none.
 */
export function processWarnings(stderr: string): string[] {
  return stderr.split('\n').filter((line) => /^\(node:\d+\) (\[\w+\] )?\w*Warning: /.test(line));
}

/** Distinct keys and lines of every answer (or verdict) store of a results folder. */
export function cellCounts(
  resultsDir: string,
  kind: 'answers' | 'verdicts',
): { keys: number; lines: number } {
  const dir = join(resultsDir, 'cells', kind);
  const keys = new Set<string>();
  let lines = 0;
  // only the stores: a lock folder (`*.jsonl.lock`) may sit beside one while a process writes it
  for (const f of readdirSync(dir).filter((name) => name.endsWith('.jsonl')))
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      keys.add((JSON.parse(line) as { key: string }).key);
      lines++;
    }
  return { keys: keys.size, lines };
}
