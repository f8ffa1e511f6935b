/**
 * A generation killed with SIGKILL mid-way loses nothing and pays for nothing twice (issue 55): a child
 * process generates over 20 tasks against the OpenAI loopback server (replies slowed so the kill lands
 * while calls are in flight), is killed once 6 cells are stored, and a rerun finishes. Then every task
 * has one stored cell; the server produced a reply for each cell once, but for the calls in flight at the
 * kill (their client gone, never billed: asked again by the rerun); the ledger's spend equals the sum of
 * the recorded costs, which is the server's bill; and the calls in flight at the kill are unknown
 * (possibly billed, at most their worst case; ADR 0034), never spent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costUsd, findModel } from '../../src/providers/catalogue.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { childOutput } from '../helpers/child.ts';
import { scriptedGeneration } from '../helpers/generation.ts';
import { type LoopbackServer, startOpenAIServer } from '../loopback/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'sk-gen-kill-0123456789';
const TASKS = 20;

function startChild(
  resultsDir: string,
  url: string,
): ChildProcess & { done: ReturnType<typeof childOutput> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/generate-child.ts', resultsDir, url, String(TASKS)],
    { cwd: ROOT, env: { ...process.env, OPENAI_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return Object.assign(child, { done: childOutput(child as Parameters<typeof childOutput>[0]) });
}

/** The records of the generation store (every line: duplicates would be calls paid twice). */
function storedLines(resultsDir: string): { key: string; charges: { key: string; usd: number }[] }[] {
  const file = join(resultsDir, 'cells', 'generations', 'openai__gpt-5.4.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** A cell of a request, as the server saw it: its category and chunk ids. */
const cellOfCall = (text: string) =>
  `${/of the category ([a-z-]+)\./.exec(text)?.[1]}:${[...text.matchAll(/<chunk id="([^"]+)"/g)].map((m) => m[1]).join('+')}`;

describe('a generation killed with SIGKILL mid-way, then a rerun (issue 55)', () => {
  let s: LoopbackServer;
  beforeAll(async () => {
    s = await startOpenAIServer({ apiKey: KEY, respond: scriptedGeneration, latencyMs: 250 });
  });
  afterAll(async () => {
    await s.close();
  });

  it('no cell is paid twice; the ledger equals the bill; the calls in flight at the kill are unknown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-gen-kill-'));
    const first = startChild(dir, s.url);
    const deadline = Date.now() + 60_000;
    while (storedLines(dir).length < 6) {
      if (Date.now() > deadline || first.exitCode !== null)
        throw new Error(`the child did not store 6 cells: ${(await first.done).err}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    first.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.out).not.toContain('done');
    const storedAtKill = storedLines(dir).length;
    expect(storedAtKill).toBeLessThan(TASKS);

    const rerun = await startChild(dir, s.url).done;
    expect(rerun.err).toBe('');
    expect(rerun.code).toBe(0);
    expect(rerun.out).toContain(`done ${TASKS}\n`);
    expect(rerun.out.split('\n').filter((l) => l.startsWith('reused '))).toHaveLength(storedAtKill);

    // one record per cell: none was paid for twice
    const lines = storedLines(dir);
    expect(lines).toHaveLength(TASKS);
    expect(new Set(lines.map((l) => l.key)).size).toBe(TASKS);
    const ledger = new BudgetLedger(dir, { capUsd: 5, warnUsd: 0, configFile: 'kill-test.yaml' }).summary();
    // the server: a reply per cell, but for the calls in flight at the kill (never billed)
    const perCell = new Map<string, number>();
    for (const c of s.calls) {
      const cell = cellOfCall(c.messages[0]?.text ?? '');
      perCell.set(cell, (perCell.get(cell) ?? 0) + 1);
    }
    expect(perCell.size).toBe(TASKS);
    const twice = [...perCell.values()].filter((n) => n > 1).length;
    expect([...perCell.values()].every((n) => n <= 2)).toBe(true);
    expect(twice).toBeLessThanOrEqual(ledger.unknownCalls);
    expect(s.billed.length - TASKS).toBeLessThanOrEqual(ledger.unknownCalls);

    // what was recorded is what was spent, and what the server billed
    const prices = findModel('openai', 'gpt-5.4')?.prices;
    if (!prices) throw new Error('gpt-5.4 is not in the catalogue');
    const billed = s.billed.reduce((n, b) => n + costUsd(b, prices, { batch: false }), 0);
    const recorded = lines.flatMap((l) => l.charges).reduce((n, c) => n + c.usd, 0);
    expect(ledger.spentUsd).toBeCloseTo(recorded, 12);
    expect(ledger.spentUsd).toBeLessThanOrEqual(billed + 1e-12);
    expect(billed).toBeLessThanOrEqual(ledger.spentUsd + ledger.unknownUsd + 1e-12);
    if (s.billed.length === TASKS) expect(ledger.spentUsd).toBeCloseTo(billed, 12);
    // the calls in flight at the kill: unknown (at most 2, the concurrency), nothing held
    expect(ledger.unknownCalls).toBeLessThanOrEqual(2);
    expect(ledger.heldUsd).toBe(0);
    expect(ledger.open).toEqual([]);
    if (process.env.RGE_GENERATION_FIGURES === '1')
      process.stderr.write(
        `kill: ${storedAtKill} cells stored at the kill; server produced ${s.calls.length} replies, billed ` +
          `${s.billed.length} ($${billed.toFixed(6)}); ledger spent $${ledger.spentUsd.toFixed(6)}, unknown ` +
          `$${ledger.unknownUsd.toFixed(6)} (${ledger.unknownCalls} calls)\n`,
      );
  }, 120_000);
});
