/**
 * The harness end to end on the fixture world: every case stored, a second run reuses every cell
 * (nothing recomputed), the dry run counts cells and calls without calling anything.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { type CaseRow, type PreparedRun, prepareRun, runCase } from '../../src/run/case.ts';
import { planRun } from '../../src/run/plan.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const narrowing = { questions: 40, runs: 2 };

async function runAll(run: PreparedRun): Promise<{ rows: CaseRow[]; reused: number }> {
  const rows: CaseRow[] = [];
  let reused = 0;
  for (const subject of run.subjects)
    for (const q of run.questions)
      for (let r = 0; r < run.runs; r++) {
        const out = await runCase(run, subject, q, r);
        rows.push(out.row);
        if (out.reused) reused++;
      }
  return { rows, reused };
}

describe('the eval harness on the fixture world', () => {
  let resultsDir: string;
  let first: { rows: CaseRow[]; reused: number };

  beforeAll(async () => {
    resultsDir = await mkdtemp(join(tmpdir(), 'rge-results-'));
    first = await runAll(
      await prepareRun({ config: 'configs/fixture.yaml', root, resultsDir, ...narrowing }),
    );
  }, 600_000);

  it('computes and stores every cell of a first run', () => {
    expect(first.rows).toHaveLength(2 * 40 * 2);
    expect(first.reused).toBe(0);
    for (const row of first.rows) {
      expect(row.verdicts).toHaveLength(2);
      expect(new Set(row.verdicts.map((v) => v.family)).has(row.family)).toBe(false); // cross-family panel
      expect(row.retrieved_ids.length).toBeGreaterThan(0);
    }
  });

  it('reuses every cell on a second run, recomputing nothing', async () => {
    const again = await prepareRun({ config: 'configs/fixture.yaml', root, resultsDir, ...narrowing });
    const plan = await planRun(again);
    expect(plan.stored).toBe(plan.cells);
    const second = await runAll(again);
    expect(second.reused).toBe(second.rows.length);
    expect(second.rows).toEqual(first.rows);
    // Each results file holds its header and one line per cell, nothing duplicated.
    for (const store of again.stores.values()) {
      const lines = readFileSync(store.file, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(1 + 40 * 2);
    }
  });

  it('varies the extractive baseline across runs at temperature 0.7, reproducibly', () => {
    const extractive = first.rows.filter((r) => r.subject_id === 'extractive');
    const byQuestion = new Map<string, Set<string>>();
    for (const r of extractive)
      byQuestion.set(r.question_id, (byQuestion.get(r.question_id) ?? new Set()).add(r.answer));
    expect([...byQuestion.values()].some((answers) => answers.size > 1)).toBe(true);
  });

  it('prints a dry run without calling anything', async () => {
    const out: string[] = [];
    const io: CliIO = { out: (t) => out.push(t), err: () => {}, cwd: root, exitCode: 0 };
    const code = await main(
      [
        'node',
        'rge',
        'eval',
        'run',
        '--dry-run',
        '--results-dir',
        resultsDir,
        '--questions',
        '40',
        '--runs',
        '2',
      ],
      io,
    );
    expect(code).toBe(0);
    const text = out.join('');
    expect(text).toMatch(/cells: 160 \(160 already stored and reused, 0 to compute\)/);
    expect(text).toMatch(/calls: 0 subject \+ 0 judge/);
    const full: string[] = [];
    await main(['node', 'rge', 'eval', 'run', '--dry-run', '--json', '--results-dir', resultsDir], {
      ...io,
      out: (t) => full.push(t),
    });
    const plan = JSON.parse(full.join(''));
    expect(plan).toMatchObject({
      cells: 1200,
      stored: 0,
      questions: 200,
      runs: 3,
      calls: { subject: 1200, judge: 2400 },
    });
    expect(plan.tokens.input).toBeGreaterThan(1_000_000);
  });
});
