/**
 * The scale bench's fill (bench/scale-fill.ts): runs replayed from a cold base are found by the warm run
 * under the keys it computes itself, so every cell is reused and nothing is computed, its checks
 * included; a wrong key (a replayed verdict under its source's key) would make the run compute them again.
 * And its floor (bench/scale-floor.ts) on that folder: the GFS means of the warm run's summary.json.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { multiplyRuns } from '../../bench/scale-fill.ts';
import { floorRun } from '../../bench/scale-floor.ts';
import { worldSetArgs } from '../helpers/fixture-world.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

async function evalRun(dir: string, runs: number): Promise<string> {
  const { stdout, stderr } = await run(
    process.execPath,
    [
      join(root, 'bin/rge.mjs'),
      'eval',
      'run',
      '--config',
      'configs/fixture.yaml',
      '--quiet',
      '--questions',
      '5',
      '--runs',
      String(runs),
      '--results-dir',
      join(dir, 'results'),
      '--reports-dir',
      join(dir, `reports-${runs}`),
      ...(await worldSetArgs('bm25')),
    ],
    { cwd: root, env: { ...process.env, CI: '1' }, maxBuffer: 1 << 26 },
  );
  return stdout + stderr;
}

/** The records of the folder's check stores (the checks stage's, src/run/answer-checks.ts). */
function checkRecords(dir: string): number {
  const checks = join(dir, 'results', 'cells', 'checks');
  return readdirSync(checks)
    .filter((f) => f.endsWith('.jsonl'))
    .reduce((n, f) => n + readFileSync(join(checks, f), 'utf8').trim().split('\n').length, 0);
}

describe('multiplyRuns', () => {
  /** a folder filled as the bench fills it: 2 runs cold, replayed to 6, then run warm */
  let dir: string;
  let cold: string;
  let warm: string;
  const checks: Record<'cold' | 'filled' | 'warm', number> = { cold: 0, filled: 0, warm: 0 };
  let replayed: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-scale-fill-'));
    cold = await evalRun(dir, 2);
    checks.cold = checkRecords(dir);
    replayed = multiplyRuns(join(dir, 'results'), { from: 2, to: 6 });
    checks.filled = checkRecords(dir);
    warm = await evalRun(dir, 6);
    checks.warm = checkRecords(dir);
  }, 300_000);

  it('replays runs that the warm run reuses whole: every cell found, nothing computed', () => {
    expect(cold).toMatch(/20 cases, 0 reused/);
    expect(cold).toMatch(/answers computed 20, verdicts computed 40/);
    expect(checks.cold).toBe(20);
    expect(replayed).toBe(2 * 5 * 4);
    expect(checks.filled).toBe(60);
    expect(warm).toMatch(/60 cases, 60 reused, 0 failed/);
    expect(warm).toMatch(/answers computed 0, verdicts computed 0/);
    // every replayed answer's checks found: the checks stage stored none
    expect(checks.warm).toBe(60);
  });

  it("gives the floor rge's GFS means on the filled folder, and a seeded interval around the first", () => {
    const reports = join(dir, 'reports-6');
    const [runId] = readdirSync(reports);
    const summary = JSON.parse(readFileSync(join(reports, runId as string, 'summary.json'), 'utf8')) as {
      gfs: Record<string, { all: { primary: { estimate: number } } }>;
    };
    const floor = floorRun(join(dir, 'results'));
    expect(floor.cases).toBe(60);
    // 60 answers and 120 verdicts
    expect(floor.lines).toBe(180);
    expect(Object.keys(floor.means).sort()).toEqual(Object.keys(summary.gfs).sort());
    // the same cases' scores, added in another order
    for (const [subject, mean] of Object.entries(floor.means))
      expect(mean).toBeCloseTo(summary.gfs[subject]?.all.primary.estimate as number, 12);
    const { subject, low, high } = floor.interval;
    expect(subject).toBe(Object.keys(floor.means).sort()[0]);
    expect(low).toBeLessThanOrEqual(floor.means[subject] as number);
    expect(high).toBeGreaterThanOrEqual(floor.means[subject] as number);
    expect(high).toBeGreaterThan(low);
    expect(floorRun(join(dir, 'results')).interval).toEqual(floor.interval);
  });

  it('refuses a range that replays nothing sensible', () => {
    expect(() => multiplyRuns('/nowhere', { from: 0, to: 3 })).toThrow(/from/);
    expect(() => multiplyRuns('/nowhere', { from: 3, to: 2 })).toThrow(/to/);
  });
});
