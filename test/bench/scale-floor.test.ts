/**
 * The scale bench's folders and its floor (issue 53). A folder filled as the bench fills it (2 runs
 * computed, replayed to 6 by bench/scale-fill.ts) is warm for its checks too: the replayed answers'
 * check records are found, so the stages compute none. And the floor (bench/scale-floor.ts, no rge
 * code) reads that folder's JSONL lines and gives each subject's mean GFS as rge's case rows have it,
 * with a seeded bootstrap interval. The stages run in this process (as `rge eval run` runs them).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { multiplyRuns } from '../../bench/scale-fill.ts';
import { floorRun } from '../../bench/scale-floor.ts';
import { fixtureStages } from './fixture-stages.ts';

/** The records of the folder's check stores (the checks stage's, src/run/stages/answer-checks.ts). */
function checkRecords(resultsDir: string): number {
  const checks = join(resultsDir, 'cells', 'checks');
  return readdirSync(checks)
    .filter((f) => f.endsWith('.jsonl'))
    .reduce((n, f) => n + readFileSync(join(checks, f), 'utf8').trim().split('\n').length, 0);
}

describe("the scale bench's folder and its floor", () => {
  let results: string;
  const checks = { cold: 0, filled: 0, warm: 0 };
  let warm: Awaited<ReturnType<typeof fixtureStages>>;

  beforeAll(async () => {
    results = join(await mkdtemp(join(tmpdir(), 'rge-scale-floor-')), 'results');
    await fixtureStages(results, 2);
    checks.cold = checkRecords(results);
    multiplyRuns(results, { from: 2, to: 6 });
    checks.filled = checkRecords(results);
    warm = await fixtureStages(results, 6);
    checks.warm = checkRecords(results);
  }, 300_000);

  it("replays each answer's checks with it: the warm stages compute none", () => {
    expect(checks.cold).toBe(20);
    expect(checks.filled).toBe(60);
    expect(warm.counts.answers).toEqual({ computed: 0, reused: 60, failed: 0 });
    expect(warm.counts.verdicts).toEqual({ computed: 0, reused: 120, failed: 0 });
    expect(checks.warm).toBe(60);
  });

  it("gives each subject's mean GFS of rge's rows, and a seeded interval around the first", () => {
    const floor = floorRun(results);
    expect(floor.cases).toBe(60);
    // 60 answers and 120 verdicts
    expect(floor.lines).toBe(180);
    const subjects = [...new Set(warm.rows.map((r) => r.subject_id))].sort();
    expect(Object.keys(floor.means).sort()).toEqual(subjects);
    for (const subject of subjects) {
      const gfs = warm.rows.filter((r) => r.subject_id === subject).map((r) => r.scores.gfsPrimary as number);
      // the same cases' scores, added in another order
      expect(floor.means[subject]).toBeCloseTo(gfs.reduce((s, x) => s + x, 0) / gfs.length, 12);
    }
    const { subject, low, high } = floor.interval;
    expect(subject).toBe(subjects[0]);
    expect(low).toBeLessThanOrEqual(floor.means[subject] as number);
    expect(high).toBeGreaterThanOrEqual(floor.means[subject] as number);
    expect(high).toBeGreaterThan(low);
    expect(floorRun(results).interval).toEqual(floor.interval);
  });
});
