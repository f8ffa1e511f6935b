/**
 * What `rge eval run` prints (issue 39, defect 9): the fixture run printed about 9,600 lines, a block of
 * eight per case, and its summary scrolled away. Under CI or into a log that is not a terminal each
 * stage says one line (the answers and verdicts, then the cases); `--quiet` says as little on a
 * terminal too, with the estimate in one line; failed cases and errors are printed all the same. Each
 * line once (issue 53). The terminal's own choices (progress, --verbose): test/vitest/terminal-output.test.ts.
 * Real runs on a slice of the fixture world (4 questions x 1 run x 2 subjects), as child processes:
 * Vitest's reporters write to the process's stdout. Which output a run chooses is
 * test/cli/eval-quiet.test.ts (in-process).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnRge } from '../helpers/child.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';

async function evalRun(...extra: string[]): Promise<{ code: number; lines: string[]; err: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'rge-quiet-'));
  const sets = (await worldOverrides()).flatMap((s) => ['--set', s]);
  const r = await spawnRge([
    'eval',
    'run',
    '--config',
    'configs/fixture.yaml',
    ...sets,
    '--questions',
    '4',
    '--runs',
    '1',
    '--results-dir',
    join(dir, 'results'),
    '--reports-dir',
    join(dir, 'reports'),
    ...extra,
  ]);
  const lines = `${r.err}${r.out}`.split('\n').filter((l) => l.trim() !== '');
  return { code: r.code, lines, err: r.err };
}

/**
 * A case's line as vitest-evals' reporter prints it ("... > extractive > grounded-direct › gd-001 › run 0")
 * or one of its score lines; not rge's list of failed cases ("  failed: NAME: MESSAGE").
 */
const perCase = (l: string) => !l.startsWith('  failed: ') && (/ › run \d/.test(l) || /score\s/.test(l));

describe('rge eval run under CI (spawnRge sets CI=1; its output is a pipe)', () => {
  it('says one line per stage, not a line per case: 8 cases, 6 lines in all, each once', async () => {
    const { code, lines } = await evalRun();
    expect(code).toBe(0);
    expect(lines.filter(perCase)).toEqual([]);
    expect(lines.filter((l) => l.startsWith('progress: '))).toEqual([
      'progress: 8 answers and 16 verdicts done, 0 failed, 0 calls to go',
    ]);
    expect(lines.filter((l) => l.startsWith('cases: '))).toHaveLength(1);
    expect(lines.find((l) => l.startsWith('cases: '))).toMatch(
      /^cases: 8 passed, 0 failed in 4 files \(\d+\.\d s\)$/,
    );
    // the fixture config gates nothing: no pass rate (it said "pass rate 100.0%")
    expect(
      lines.some((l) =>
        l.startsWith('8 cases, 0 reused, 0 failed (recorded, not gated: every threshold is null); report '),
      ),
    ).toBe(true);
    expect(lines.some((l) => l.startsWith('vitest-evals: JSON artifact written to'))).toBe(true);
    // the plan's "questions: the first 4 of 200" note, the two stage lines, the artifact, and the run's
    // summary and what-was-used lines: each once (issue 53: the rge report said the report's path and
    // the judges line again)
    expect(lines).toHaveLength(6);
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.filter((l) => l.includes('summary.md'))).toHaveLength(1);
    expect(lines.filter((l) => /^(rge: )?judges /.test(l))).toHaveLength(1);
  }, 300_000);
});

describe('rge eval run --quiet', () => {
  it('hides no failure: the failed cases are listed on stderr and the run exits 1, in under 20 lines', async () => {
    const { code, lines, err } = await evalRun('--quiet', '--set', 'thresholds.gfs=0.99');
    expect(code).toBe(1);
    expect(lines.filter(perCase)).toEqual([]);
    expect(lines.some((l) => /^8 cases, 0 reused, \d+ failed \(pass rate \d+\.\d%\)/.test(l))).toBe(true);
    const summary = lines.find((l) => l.startsWith('cases: ')) ?? '';
    const failed = Number(/, (\d+) failed/.exec(summary)?.[1]);
    expect(failed).toBeGreaterThan(0);
    // every failed case named, with the matcher's message
    expect(
      err.split('\n').filter((l) => /^ {2}failed: .* GFS 0\.\d+ < threshold 0\.99/.test(l)),
    ).toHaveLength(failed);
    expect(lines.length).toBeLessThan(20);
    expect(lines.filter((l) => l.includes('summary.md'))).toHaveLength(1);
    expect(lines.filter((l) => /^(rge: )?judges /.test(l))).toHaveLength(1);
  }, 300_000);
});
