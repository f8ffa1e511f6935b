/**
 * The README's cost figures for the published run are the dry run's, not typed: the expected, naive and
 * worst-case totals, the judge batches' worst case and the share of cache reads are read from
 * `rge eval run --config configs/published.yaml --dry-run --json` (the index not built, as on a fresh
 * clone) and must stand in the README as the command prints them. The printed estimate warns when the
 * worst case is above what the cap leaves.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { usd } from '../../src/run/estimate-format.ts';
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

describe("the README's cost figures", () => {
  it('are what the dry run of the published config prints', async () => {
    const e = JSON.parse(await dryRun(true)) as Estimate;
    expect(e.assumptions.contextBounded).toBe(true);
    const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
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
    for (const s of stated) expect(readme.includes(s), `the README should say: ${s}`).toBe(true);
  }, 120_000);

  it('come with a warning when the worst case is above what the cap leaves', async () => {
    const printed = await dryRun(false);
    expect(printed).toMatch(
      /^warning: the worst case \(\$\d+\.\d\d\) is above what the cap leaves \(\$100\.00\)/m,
    );
    expect(printed).toMatch(/^cache: .* cache reads are \d+% of cache tokens here$/m);
  }, 120_000);
});
