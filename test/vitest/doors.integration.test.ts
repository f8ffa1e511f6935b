/**
 * The two front doors of a run, as users run them (child processes): `npx vitest run evals` reads its
 * request from RGE_* variables, `rge eval run` from its flags. Each plans the run once, in the process
 * that starts it, and hands the plan to Vitest's eval files, which run on two workers in four slices
 * and plan nothing; a narrowed run says which questions it covers once per plan, so counting that line
 * counts the plans. A bad variable is a usage error naming it: exit 2, one line, no stack trace.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, spawnVitest } from '../ci/vitest-child.ts';
import { spawnNode } from '../helpers/child.ts';
import { worldOverrides, worldSetArgs } from '../helpers/fixture-world.ts';

/** The lines a plan of a run narrowed to the first N questions says (one per plan). */
const planNotes = (err: string, n: number) =>
  err.split('\n').filter((l) => l.startsWith(`questions: the first ${n} of 200 questions`));

describe('the front doors plan a run once', () => {
  it('npx vitest run evals: planned in the global setup, not in the eval files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-door-vitest-'));
    const run = await spawnVitest(['run', 'evals'], {
      RGE_QUESTIONS: '8',
      RGE_RUNS: '1',
      RGE_RESULTS_DIR: join(dir, 'results'),
      RGE_REPORTS_DIR: join(dir, 'reports'),
      RGE_SET: JSON.stringify(await worldOverrides()),
    });
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(/rge: 16 cases \(0 reused from the results store\)/);
    expect(planNotes(run.err, 8)).toHaveLength(1);
  }, 600_000);

  it('rge eval run: planned by the command; its flags win over RGE_* variables the eval files never read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-door-cli-'));
    const run = await spawnNode(
      'bin/rge.mjs',
      [
        'eval',
        'run',
        '--questions',
        '8',
        '--runs',
        '1',
        '--results-dir',
        join(dir, 'results'),
        '--reports-dir',
        join(dir, 'reports'),
        ...(await worldSetArgs()),
      ],
      // variables that would narrow the run differently if an eval file read them
      childEnv({ RGE_QUESTIONS: '3', RGE_RUNS: '2', RGE_SAMPLE: '5', RGE_STAGES: 'run' }),
    );
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(/^16 cases, 0 reused, 0 failed/m);
    expect(planNotes(run.err, 8)).toHaveLength(1);
    expect(planNotes(run.err, 3)).toHaveLength(0);
  }, 600_000);
});

describe('a bad variable at the vitest door', () => {
  for (const [name, value, message] of [
    ['RGE_SAMPLE', 'abc', 'rge: RGE_SAMPLE must be a positive integer, got "abc"'],
    ['RGE_RUNS', '0', 'rge: RGE_RUNS must be a positive integer, got "0"'],
  ] as const)
    it(`${name}=${value}: exit 2, naming the variable, before anything runs`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'rge-door-bad-'));
      const run = await spawnVitest(['run', 'evals'], {
        [name]: value,
        RGE_RESULTS_DIR: join(dir, 'results'),
        RGE_REPORTS_DIR: join(dir, 'reports'),
      });
      expect(run.code, run.out + run.err).toBe(2);
      expect(run.err.split('\n')).toContain(message);
      expect(run.err).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
      expect(run.out).not.toMatch(/cases|passed|failed/);
    }, 120_000);
});
