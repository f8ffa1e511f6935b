/**
 * Ctrl-C during a run of `rge eval watch` (issue 53) leaves the results folder as it leaves it after
 * `rge eval run`: the stages stop (no new cell starts, the cell in flight is aborted), every file of the
 * folder is whole (no half-written line), the watch ends with 130, and `rge eval run` then resumes: it
 * asks only the cells not stored, and no cell is stored twice. The subject is a slow module system (one
 * question at a time), so the stop comes mid-run.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnRge } from '../helpers/child.ts';
import { moduleApp, storedAnswers, tornFiles, WatchChild, watchWorld } from './watch/child.ts';

const QUESTIONS = 12;

describe('rge eval watch stopped mid-run', () => {
  let watch: WatchChild | undefined;
  afterAll(async () => {
    await watch?.stop();
  });

  it('stops as a run stops, leaves no half-written file, and rge eval run resumes asking only the rest', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-eval-watch-stop-'));
    await writeFile(join(dir, 'slow.mjs'), moduleApp(250));
    const config = await watchWorld(dir, [
      {
        id: 'slow',
        provider: 'module',
        module: 'slow.mjs',
        model: 'slow',
        family: 'test-slow',
        concurrency: 1,
      },
    ]);
    const folders = ['--results-dir', join(dir, 'results'), '--reports-dir', join(dir, 'reports')];
    const narrowing = ['--config', config, '--questions', String(QUESTIONS)];
    watch = new WatchChild([...narrowing, ...folders]);
    const stored = () => {
      try {
        return storedAnswers(join(dir, 'results')).byStore.module__slow ?? 0;
      } catch {
        return 0; // no store yet
      }
    };
    const deadline = Date.now() + 120_000;
    while (stored() < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    watch.signal('SIGINT');
    expect(await watch.exited).toBe(130);
    const out = watch.output;
    expect(out).toMatch(/Ctrl-C \(SIGINT\) received: stopping: no new call starts/);
    expect(out).toMatch(
      /^rge: stopped by Ctrl-C \(SIGINT\): .*rerun the same command to resume \(this run: \d+ answers/m,
    );
    expect(out).not.toMatch(/^watching /m);
    const before = stored();
    expect(before).toBeGreaterThanOrEqual(3);
    expect(before).toBeLessThan(QUESTIONS);
    expect(tornFiles(join(dir, 'results'))).toEqual([]);

    const resumed = await spawnRge(['eval', 'run', ...narrowing, ...folders]);
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.out).toMatch(
      new RegExp(`^${QUESTIONS} cases, .* answers computed ${QUESTIONS - before}, verdicts computed`, 'm'),
    );
    expect(storedAnswers(join(dir, 'results'))).toEqual({
      byStore: { module__slow: QUESTIONS },
      duplicates: 0,
    });
  }, 600_000);
});
