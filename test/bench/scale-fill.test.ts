/**
 * The scale bench's fill (bench/scale-fill.ts): runs replayed from a cold base are found by the warm run
 * under the keys it computes itself, so every cell is reused and nothing is computed; a wrong key (a
 * replayed verdict under its source's key) would make the run compute them again.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { multiplyRuns } from '../../bench/scale-fill.ts';
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
      join(dir, 'reports'),
      ...(await worldSetArgs('bm25')),
    ],
    { cwd: root, env: { ...process.env, CI: '1' }, maxBuffer: 1 << 26 },
  );
  return stdout + stderr;
}

describe('multiplyRuns', () => {
  it('replays runs that the warm run reuses whole: every cell found, nothing computed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-scale-fill-'));
    const cold = await evalRun(dir, 2);
    expect(cold).toMatch(/20 cases, 0 reused/);
    expect(cold).toMatch(/answers computed 20, verdicts computed 40/);
    expect(multiplyRuns(join(dir, 'results'), { from: 2, to: 6 })).toBe(2 * 5 * 4);
    const warm = await evalRun(dir, 6);
    expect(warm).toMatch(/60 cases, 60 reused, 0 failed/);
    expect(warm).toMatch(/answers computed 0, verdicts computed 0/);
  }, 300_000);

  it('refuses a range that replays nothing sensible', () => {
    expect(() => multiplyRuns('/nowhere', { from: 0, to: 3 })).toThrow(/from/);
    expect(() => multiplyRuns('/nowhere', { from: 3, to: 2 })).toThrow(/to/);
  });
});
