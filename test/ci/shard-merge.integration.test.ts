/**
 * Sharding, as CI does it, against one unsharded run of the same small eval (12 questions, 1 run; every
 * cell computed afresh each time): `vitest run evals --shard i/2 --reporter=blob` on two "machines" (two
 * results folders; a shard alone writes no rge report), `rge results merge` of their results folders,
 * then `vitest --merge-reports` (the rge reporter is in the config, so it runs on the merge) with the
 * merged folders. The run id does not depend on the slices, Vitest's blobs keep each case's
 * `task.meta.rge`, and the merged report equals the unsharded one in every number: the statistics, the
 * per-cell scores, the budget (estimate and spend, combined from the slices' states). Only the answers'
 * measured latencies differ (wall-clock time of each fresh computation, like a timestamp).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runRge } from '../helpers/cli.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';
import { ROOT, spawnVitest } from './vitest-child.ts';

const SMALL = { RGE_QUESTIONS: '12', RGE_RUNS: '1' };

/** The report's content without the measured latencies (wall-clock durations of the fresh computations). */
function comparable(summary: Record<string, unknown>): Record<string, unknown> {
  const { latency: _latency, ...rest } = summary;
  return rest;
}

function summaryOf(reportsDir: string): { runId: string; summary: Record<string, unknown> } {
  const [runId, ...others] = readdirSync(reportsDir);
  expect(others, 'one report').toEqual([]);
  return {
    runId: runId as string,
    summary: JSON.parse(readFileSync(join(reportsDir, runId as string, 'summary.json'), 'utf8')),
  };
}

function caseNames(reportsDir: string, runId: string): string[] {
  const json = JSON.parse(readFileSync(join(reportsDir, runId, 'vitest-evals.json'), 'utf8')) as {
    testResults: { assertionResults: { fullName: string; status: string }[] }[];
  };
  return json.testResults
    .flatMap((f) => f.assertionResults)
    .map((a) => `${a.fullName}: ${a.status}`)
    .sort();
}

interface Eval {
  /** the run's variables beside the world's and the folders */
  env: Record<string, string>;
  /** its cases (subjects x questions), cell stores (a subject's answers, its judges' verdicts) */
  cases: number;
  stores: number;
}

function shardedEqualsWhole(what: string, run: () => Promise<Eval>): void {
  describe(`${what}: a sharded run merged equals the unsharded run`, () => {
    let dir: string;
    let ev: Eval;
    const log: string[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'rge-shards-'));
      ev = await run();
      const world = ev.env;
      const whole = await spawnVitest(['run', 'evals', '--project', 'evals'], {
        ...SMALL,
        ...world,
        RGE_RESULTS_DIR: join(dir, 'one', 'results'),
        RGE_REPORTS_DIR: join(dir, 'one', 'reports'),
      });
      expect(whole.code, whole.out + whole.err).toBe(0);
      for (const i of [1, 2]) {
        const shard = await spawnVitest(
          [
            'run',
            'evals',
            '--project',
            'evals',
            `--shard=${i}/2`,
            '--reporter=blob',
            `--outputFile.blob=${join(dir, 'blobs', `blob-${i}-2.json`)}`,
          ],
          {
            ...SMALL,
            ...world,
            RGE_RESULTS_DIR: join(dir, `machine-${i}`, 'results'),
            RGE_REPORTS_DIR: join(dir, `machine-${i}`, 'reports'),
          },
        );
        expect(shard.code, shard.out + shard.err).toBe(0);
        log.push(shard.out);
      }
      const merged = await runRge(
        ROOT,
        'results',
        'merge',
        '--into',
        join(dir, 'merged', 'results'),
        join(dir, 'machine-1', 'results'),
        join(dir, 'machine-2', 'results'),
      );
      expect(merged.code, merged.err).toBe(0);
      log.push(merged.out);
      const report = await spawnVitest(['--merge-reports', join(dir, 'blobs')], {
        RGE_RESULTS_DIR: join(dir, 'merged', 'results'),
        RGE_REPORTS_DIR: join(dir, 'merged', 'reports'),
      });
      expect(report.code, report.out + report.err).toBe(0);
      log.push(report.out);
    }, 600_000);

    it('runs each shard on its own slices, writing no report of its own', () => {
      for (const i of [1, 2]) {
        expect(existsSync(join(dir, `machine-${i}`, 'reports')), `machine ${i} wrote a report`).toBe(false);
        const slices = readdirSync(join(dir, `machine-${i}`, 'results', '.runs')).filter((f) =>
          f.includes('.slice-'),
        );
        expect(slices).toHaveLength(2); // 4 slice files, 2 per shard
      }
      expect(log[2]).toMatch(
        new RegExp(
          `merged 2 folder\\(s\\) into .*: \\d+ cell records in ${ev.stores} store\\(s\\) .* 0 conflict\\(s\\)`,
        ),
      );
    });

    it('builds one report of the one run from both shards (same run id, every case, meta kept)', () => {
      const one = summaryOf(join(dir, 'one', 'reports'));
      const merged = summaryOf(join(dir, 'merged', 'reports'));
      expect(merged.runId).toBe(one.runId);
      expect(log[3]).toContain(`rge: ${ev.cases} cases (0 reused from the results store), report written to`);
      expect(caseNames(join(dir, 'merged', 'reports'), merged.runId)).toEqual(
        caseNames(join(dir, 'one', 'reports'), one.runId),
      );
    });

    it('writes the same summary.json as the unsharded run, every number equal', () => {
      const one = summaryOf(join(dir, 'one', 'reports')).summary;
      const merged = summaryOf(join(dir, 'merged', 'reports')).summary;
      expect(comparable(merged)).toEqual(comparable(one));
      // the budget comes from the slices' states, combined on each machine and again after the merge
      const budget = merged.budget as { lines: { calls: number }[] };
      expect(budget.lines.reduce((s, l) => s + l.calls, 0)).toBe(ev.cases * 3);
      expect(Object.keys(merged.latency as object).sort()).toEqual(Object.keys(one.latency as object).sort());
    });
  });
}

// the fixture config's two offline subjects on the test run's fixture world, not fixtures/generated
shardedEqualsWhole('rge pipeline subjects', async () => ({
  env: { ...SMALL, RGE_SET: JSON.stringify(await worldOverrides()) },
  cases: 24,
  stores: 4,
}));

// a user's system: examples/rag-app as a pool of two command workers, over the world's PDFs; its
// thresholds off, so that its failing cases do not fail the shard's exit
shardedEqualsWhole('a command system (examples/rag-app)', async () => {
  const overrides = await worldOverrides();
  const gates = ['correctness', 'grounding', 'calibration', 'gfs'].map((t) => `thresholds.${t}=null`);
  return {
    env: {
      ...SMALL,
      RGE_CONFIG: 'examples/rag-app/rge.yaml',
      RGE_SUBJECTS: 'rag-app-command',
      RGE_SET: JSON.stringify([...overrides, ...gates]),
      RAG_APP_CORPUS: worldPaths().pdfs,
      RAG_APP_CACHE: await mkdtemp(join(tmpdir(), 'rge-shards-rag-app-')),
    },
    cases: 12,
    stores: 3,
  };
});
