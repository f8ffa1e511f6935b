/**
 * The cost figures of docs/reference/providers-and-costs.md for the published run are the dry run's, not typed: the expected, naive and
 * worst-case totals, the judge batches' worst case, the share of cache reads and the batch plan (the
 * batches and waves under the $100 cap, the split, how far the run would get at worst) are read from
 * `rge eval run --config configs/published.yaml --dry-run --json` (the index not built, as on a fresh
 * clone) and must stand in that page as the command prints them. The printed estimate warns when the
 * worst case is above what the cap leaves, and prints the plan.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { usd } from '../../src/run/estimate/format.ts';
import type { Estimate } from '../../src/store/run-state.ts';

const root = join(import.meta.dirname, '../..');

async function dryRun(json: boolean): Promise<string> {
  const out: string[] = [];
  const io: CliIO = { out: (t) => out.push(t), err: () => {}, cwd: root, exitCode: 0 };
  const dir = await mkdtemp(join(tmpdir(), 'rge-readme-estimate-'));
  const args = ['eval', 'run', '--config', 'configs/published.yaml', '--dry-run'];
  // no index here (as on a fresh clone), and a results folder of its own (no stored cells, a fresh ledger)
  args.push('--set', `corpus.index=${join(dir, 'no-index')}`, '--results-dir', join(dir, 'results'));
  const code = await main(['node', 'rge', ...args, ...(json ? ['--json'] : [])], io);
  expect(code).toBe(0);
  return out.join('');
}

describe("the published run's cost figures in docs/reference/providers-and-costs.md", () => {
  it('are what the dry run of the published config prints', async () => {
    const e = JSON.parse(await dryRun(true)) as Estimate;
    expect(e.assumptions.contextBounded).toBe(true);
    const readme = readFileSync(join(root, 'docs/reference/providers-and-costs.md'), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    const judgesWorst = e.lines.filter((l) => l.role === 'judge').reduce((a, l) => a + l.worstUsd, 0);
    const read = e.lines.reduce((a, l) => a + l.cacheReadTokens, 0);
    const written = e.lines.reduce((a, l) => a + l.cacheWriteTokens, 0);
    const stated = [
      `${e.totals.calls.toLocaleString('en')} calls`,
      `**${usd(e.totals.expectedUsd)} expected in batch mode with prompt caching**`,
      `${usd(e.totals.naiveUsd)} as naive sync calls`,
      `${usd(e.totals.worstUsd)} worst case`,
      `(${usd(judgesWorst)} at worst together)`,
      `Cache reads are ${Math.round((100 * read) / (read + written))}% of the cache tokens although the hit rate is ${e.assumptions.cacheHitRate}`,
    ];
    for (const s of stated)
      expect(readme.includes(s), `docs/reference/providers-and-costs.md should say: ${s}`).toBe(true);
  }, 120_000);

  it('say what the run does under the cap: the batch plan of the dry run', async () => {
    const e = JSON.parse(await dryRun(true)) as Estimate;
    const plan = e.batchPlan;
    if (!plan) throw new Error('the published dry run has no batch plan');
    const readme = readFileSync(join(root, 'docs/reference/providers-and-costs.md'), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    // the page tells this shape: the answers in one wave, then one judge model's verdicts split
    // between the second wave and a third; the full run depends on its batches settling below worst
    expect(plan).toMatchObject({ leftUsd: 100, fitsAtWorst: false, unplacedCalls: 0, tooLarge: null });
    const answers = plan.batches.filter((b) => b.role === 'subject');
    expect(new Set(answers.map((b) => b.wave))).toEqual(new Set([1]));
    const laneOf = (b: { provider: string; model: string }) => `${b.provider}/${b.model}`;
    const verdicts = plan.batches.filter((b) => b.role === 'judge');
    const split = [...new Set(verdicts.map(laneOf))].filter(
      (l) => new Set(verdicts.filter((b) => laneOf(b) === l).map((b) => b.wave)).size > 1,
    );
    expect(split).toEqual(['openai/gpt-5.4']);
    const callsIn = (wave: number) =>
      verdicts.filter((b) => laneOf(b) === split[0] && b.wave === wave).reduce((a, b) => a + b.calls, 0);
    const geminiJudge = verdicts.filter((b) => b.provider === 'gemini');
    const stated = [
      `the answers go in one wave (${answers.length} batches, ${usd(answers.reduce((a, b) => a + b.reservedUsd, 0))} reserved)`,
      `so GPT-5.4's are split, ${callsIn(2)} in the second wave`,
      `(Gemini's in ${geminiJudge.length} batches, under its 20 MB limit for a batch)`,
      `and the other ${callsIn(3)} in a third`,
      `**${plan.batches.length} batches in ${plan.waves} waves**`,
      `the cap would stop the run after ${plan.callsAtWorst.toLocaleString('en')} of the ${plan.calls.toLocaleString('en')} calls`,
    ];
    for (const s of stated)
      expect(readme.includes(s), `docs/reference/providers-and-costs.md should say: ${s}`).toBe(true);
    expect(plan.waves).toBe(3);
  }, 120_000);

  it('come with a warning when the worst case is above what the cap leaves', async () => {
    const printed = await dryRun(false);
    expect(printed).toMatch(
      /^warning: the worst case \(\$\d+\.\d\d\) is above what the cap leaves \(\$100\.00\)/m,
    );
    expect(printed).toMatch(/^cache: .* cache reads are \d+% of cache tokens here$/m);
    // the plan: a row per wave and model, then what it means for the run under the cap
    expect(printed).toMatch(/^wave +role +model +batches +calls +reserved +expected$/m);
    expect(printed).toMatch(/^ +3 +judge +openai\/gpt-5\.4 +1 +\d+ +\$\d+\.\d\d +\$\d+\.\d\d$/m);
    expect(printed).toMatch(
      /^plan: \d+ batches in 3 waves \(answers in 1, verdicts in 2\); the worst case \(\$\d+\.\d\d\) is above what the cap leaves \(\$100\.00\), so the run finishes in one command only as its batches settle below their worst case/m,
    );
  }, 120_000);
});
