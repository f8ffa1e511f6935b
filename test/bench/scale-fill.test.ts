/**
 * The scale bench's fill (bench/scale-fill.ts): runs replayed from a cold base are found by the warm run
 * under the keys it computes itself, so every cell is reused and nothing is computed; a wrong key (a
 * replayed verdict under its source's key) would make the run compute them again. The runs are the
 * stages of `rge eval run` in this process (its Vitest cases read the same cells: their rows are built
 * here too); the bench runs them through `rge eval run`.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { multiplyRuns } from '../../bench/scale-fill.ts';
import { fixtureStages } from './fixture-stages.ts';

describe('multiplyRuns', () => {
  it('replays runs that the warm run reuses whole: every cell found, nothing computed', async () => {
    const resultsDir = join(await mkdtemp(join(tmpdir(), 'rge-scale-fill-')), 'results');
    const cold = await fixtureStages(resultsDir, 2);
    expect(cold.rows).toHaveLength(20);
    expect(cold.counts.answers).toEqual({ computed: 20, reused: 0, failed: 0 });
    expect(cold.counts.verdicts).toEqual({ computed: 40, reused: 0, failed: 0 });
    expect(multiplyRuns(resultsDir, { from: 2, to: 6 })).toBe(2 * 5 * 4);
    const warm = await fixtureStages(resultsDir, 6);
    expect(warm.rows).toHaveLength(60);
    expect(warm.counts.answers).toEqual({ computed: 0, reused: 60, failed: 0 });
    expect(warm.counts.verdicts).toEqual({ computed: 0, reused: 120, failed: 0 });
    // a replayed run's case is its source run's answer and verdicts, under its own run index
    const byCell = new Map(warm.rows.map((r) => [`${r.subject_id}/${r.question_id}/${r.run_index}`, r]));
    for (const row of warm.rows.filter((r) => r.run_index >= 2)) {
      const source = byCell.get(`${row.subject_id}/${row.question_id}/${row.run_index % 2}`);
      expect(row.answer).toBe(source?.answer);
      expect(row.scores).toEqual(source?.scores);
    }
  }, 300_000);

  it('refuses a range that replays nothing sensible', () => {
    expect(() => multiplyRuns('/nowhere', { from: 0, to: 3 })).toThrow(/from/);
    expect(() => multiplyRuns('/nowhere', { from: 3, to: 2 })).toThrow(/to/);
  });
});
