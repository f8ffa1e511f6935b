/**
 * With vitest-evals carrying the cases, rge's matchers still gate: a run whose config sets a GFS
 * threshold (here 0.9, through RGE_SET as `rge eval run --set` passes it) fails the cases below it with
 * the matcher's message, while vitest-evals' judges only record (no threshold of theirs fails a case);
 * the rge report and the JSON artifact are written all the same.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { spawnVitest } from '../ci/vitest-child.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';

it('fails the cases below a non-null threshold, and only those', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rge-gating-'));
  const outcome = await spawnVitest(['run', 'evals', '--project', 'evals'], {
    RGE_RESULTS_DIR: join(dir, 'results'),
    RGE_REPORTS_DIR: join(dir, 'reports'),
    RGE_QUESTIONS: '3',
    RGE_RUNS: '1',
    RGE_SET: JSON.stringify([...(await worldOverrides()), 'thresholds.gfs=0.9']),
  });
  expect(outcome.code).toBe(1);
  expect(outcome.out).toMatch(/gd-00\d: GFS 0\.\d+ < threshold 0\.9/);
  expect(outcome.out).toMatch(/rge: 6 cases .*report written to/);
  const artifact = /JSON artifact written to (\S+)/.exec(outcome.out)?.[1] as string;
  const cases = (
    JSON.parse(readFileSync(artifact, 'utf8')) as {
      testResults: {
        assertionResults: {
          status: string;
          failureMessages: string[];
          meta: { eval?: { scores: { name: string; score: number | null }[]; thresholdFailed: boolean } };
        }[];
      }[];
    }
  ).testResults
    .flatMap((f) => f.assertionResults)
    .filter((a) => a.status !== 'skipped');
  expect(cases).toHaveLength(6);
  for (const c of cases) {
    const gfs = c.meta.eval?.scores.find((s) => s.name === 'GFS')?.score as number;
    expect(c.status).toBe(gfs >= 0.9 ? 'passed' : 'failed');
    expect(c.meta.eval?.thresholdFailed).toBe(false);
    if (c.status === 'failed') expect(c.failureMessages.join('\n')).toMatch(/GFS .* < threshold 0\.9/);
  }
  expect(cases.some((c) => c.status === 'failed')).toBe(true);
  expect(cases.some((c) => c.status === 'passed')).toBe(true);
}, 300_000);
