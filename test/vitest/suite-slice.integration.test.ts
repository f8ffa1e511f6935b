/**
 * The README's main job, `npx vitest run evals`, end to end on a slice: one question of each category
 * (RGE_CASES), one run, both offline subjects of configs/fixture.yaml, in a child Vitest as a user runs
 * it. `npm test` runs this instead of the whole 1,200-case suite. Everything the run writes (the cell
 * stores, the published rows, the rge report and vitest-evals' artifact) goes to the folders
 * RGE_RESULTS_DIR and RGE_REPORTS_DIR name, a temporary folder here, and the corpus is the test run's
 * fixture world (RGE_SET): nothing lands in the working tree.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnVitest } from '../ci/vitest-child.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';

const CASES = ['gd-001', 'gm-001', 'adv-001', 'ood-001'];

describe('npx vitest run evals, on a slice in a temporary folder', () => {
  let dir: string;
  let outcome: { code: number; out: string; err: string };
  let runId: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-suite-slice-'));
    outcome = await spawnVitest(['run', 'evals'], {
      RGE_CASES: CASES.join(','),
      RGE_RUNS: '1',
      // every case with its scores, as vitest-evals prints it (the default says a line per file:
      // test/vitest/report-ui.test.ts)
      RGE_VERBOSE: '1',
      RGE_RESULTS_DIR: join(dir, 'results'),
      RGE_REPORTS_DIR: join(dir, 'reports'),
      RGE_SET: JSON.stringify(await worldOverrides()),
    });
    runId = /report written to .*[\\/](fixture-[0-9a-f]{12})[\\/]summary\.md/.exec(outcome.out)?.[1] ?? '';
  }, 600_000);

  it('runs one case per subject and question, and passes (the fixture config records, never gates)', () => {
    expect(outcome.code, outcome.out + outcome.err).toBe(0);
    expect(outcome.out).toMatch(/rge: 8 cases \(0 reused from the results store\), report written to/);
    for (const id of CASES) expect(outcome.out).toContain(`${id} › run 0`);
    expect(outcome.out.split('\n').filter((l) => /^\s+score\s+GFS /.test(l))).toHaveLength(8);
    expect(runId).not.toBe('');
  });

  it('writes the report, the artifact, the rows and the cells into the folders it was given', () => {
    const report = join(dir, 'reports', runId);
    expect(readdirSync(report).sort()).toEqual([
      'gfs.svg',
      'summary.json',
      'summary.md',
      'vitest-evals.json',
    ]);
    const summary = JSON.parse(readFileSync(join(report, 'summary.json'), 'utf8')) as { partial: unknown };
    expect(summary.partial).toBeNull(); // the slice is the whole of its run: a full report
    const md = readFileSync(join(report, 'summary.md'), 'utf8');
    for (const category of ['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain'])
      expect(md).toContain(category);
    const results = join(dir, 'results');
    expect(
      readdirSync(results)
        .filter((f) => f.endsWith('.jsonl'))
        .sort(),
    ).toEqual([`eager_${runId}.jsonl`, `extractive_${runId}.jsonl`]);
    expect(readdirSync(join(results, 'cells', 'answers')).length).toBeGreaterThan(0);
  });

  it('writes nothing of the run into the working tree', () => {
    expect(existsSync(join(ROOT, 'reports', runId))).toBe(false);
    expect(existsSync(join(ROOT, 'reports', `${runId}-partial`))).toBe(false);
    for (const subject of ['extractive', 'eager'])
      expect(existsSync(join(ROOT, 'data', 'results', `${subject}_${runId}.jsonl`))).toBe(false);
    expect(existsSync(join(ROOT, 'data', 'results', '.runs', `${runId}.json`))).toBe(false);
  });
});
