/**
 * Slices of a run (src/vitest/evals-slices.ts), by hand: questions split into contiguous blocks that
 * cover each question once; the slices' states combined into the run's (sums, unions, the first stop);
 * the run's state file rewritten from the slice files present, ignoring other runs and other splits.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  combineRunStates,
  combineSliceStates,
  parseSliceFile,
  RunState,
  sliceStateFile,
} from '../../src/store/run-state.ts';
import { checkSlice, sliceQuestions } from '../../src/vitest/evals-slices.ts';

const line = (model: string, calls: number, usd: number) => ({
  provider: 'openai',
  model,
  role: 'subject' as const,
  batch: false,
  calls,
  inputTokens: calls * 100,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: calls * 10,
  expectedUsd: usd,
  naiveUsd: usd * 2,
  worstUsd: usd * 4,
  priceSource: 'catalogue',
});

function state(over: Partial<RunState> & { usd: number; calls: number }): RunState {
  const { usd, calls, ...rest } = over;
  return {
    run_id: 'r',
    mode: 'sync',
    started_at: '2026-01-01T00:00:10.000Z',
    finished_at: '2026-01-01T00:01:00.000Z',
    estimate: {
      runId: 'r',
      mode: 'sync',
      lines: [line('a', calls, usd)],
      totals: { calls, expectedUsd: usd, naiveUsd: usd * 2, worstUsd: usd * 4 },
      cells: { total: calls, stored: 0, verdictsStored: 0 },
      assumptions: {
        subjectOutputTokens: 10,
        judgeOutputTokens: 10,
        cacheHitRate: 0.5,
        contextBounded: false,
      },
    },
    errors: {},
    stopped: null,
    warnings: [],
    counts: {
      answers: { computed: calls, reused: 1, failed: 0 },
      verdicts: { computed: 2 * calls, reused: 2, failed: 0 },
      batches: 0,
    },
    spend: {
      usd,
      unknown_usd: 0,
      by_payer: [{ provider: 'openai', model: 'a', role: 'subject', usd, calls }],
    },
    budget_warnings: [],
    ...rest,
  };
}

describe('slices of a run', () => {
  it('splits questions into contiguous blocks, each question in exactly one slice', () => {
    const qs = Array.from({ length: 10 }, (_, i) => `q${i}`);
    const slices = [1, 2, 3, 4].map((i) => sliceQuestions(qs, [i, 4]));
    expect(slices).toEqual([
      ['q0', 'q1', 'q2'],
      ['q3', 'q4'],
      ['q5', 'q6', 'q7'],
      ['q8', 'q9'],
    ]);
    expect(sliceQuestions(qs, [1, 1])).toEqual(qs);
    // fewer questions than slices: some slices are empty
    expect([1, 2, 3, 4].map((i) => sliceQuestions(['a', 'b', 'c'], [i, 4]))).toEqual([
      ['a'],
      ['b'],
      ['c'],
      [],
    ]);
  });

  it('refuses a slice outside 1..n', () => {
    expect(() => checkSlice([0, 4])).toThrow(/1 <= i <= n/);
    expect(() => checkSlice([5, 4])).toThrow(/1 <= i <= n/);
    expect(() => checkSlice([1.5, 4])).toThrow(/1 <= i <= n/);
  });

  it('names slice state files beside the run state file, and reads their names back', () => {
    expect(sliceStateFile('/x/.runs/fixture-abc.json', [2, 4])).toBe(
      '/x/.runs/fixture-abc.slice-2-of-4.json',
    );
    expect(parseSliceFile('fixture-abc.slice-2-of-4.json')).toEqual({ runId: 'fixture-abc', slice: [2, 4] });
    expect(parseSliceFile('fixture-abc.json')).toBeNull();
  });

  it('combines slice states: sums, unions, earliest start, latest end, first stop', () => {
    const one = state({ usd: 0.25, calls: 3, errors: { 'x/q1/run 0': 'timeout' }, warnings: ['w1'] });
    const two = state({
      usd: 0.5,
      calls: 5,
      started_at: '2026-01-01T00:00:05.000Z',
      finished_at: '2026-01-01T00:02:00.000Z',
      errors: { 'x/q9/run 0': 'cap' },
      stopped: 'budget cap reached',
      warnings: ['w1', 'w2'],
    });
    const c = combineRunStates([one, two]);
    expect(c.started_at).toBe('2026-01-01T00:00:05.000Z');
    expect(c.finished_at).toBe('2026-01-01T00:02:00.000Z');
    expect(c.errors).toEqual({ 'x/q1/run 0': 'timeout', 'x/q9/run 0': 'cap' });
    expect(c.stopped).toBe('budget cap reached');
    expect(c.warnings).toEqual(['w1', 'w2']);
    expect(c.counts).toEqual({
      answers: { computed: 8, reused: 2, failed: 0 },
      verdicts: { computed: 16, reused: 4, failed: 0 },
      batches: 0,
    });
    expect(c.spend.usd).toBeCloseTo(0.75, 12);
    expect(c.spend.by_payer).toEqual([
      { provider: 'openai', model: 'a', role: 'subject', usd: 0.75, calls: 8 },
    ]);
    const e = c.estimate as {
      lines: { calls: number; expectedUsd: number }[];
      totals: { calls: number };
      cells: { total: number };
    };
    expect(e.lines).toHaveLength(1);
    expect(e.lines[0]).toMatchObject({ calls: 8, expectedUsd: 0.75 });
    expect(e.totals.calls).toBe(8);
    expect(e.cells.total).toBe(8);
    // a slice still running makes the run unfinished
    expect(combineRunStates([one, { ...two, finished_at: null }]).finished_at).toBeNull();
  });

  it('reads the spend of a state written before issue 52: its unaccounted_usd is the unknown amount', () => {
    const older = JSON.parse(JSON.stringify(state({ usd: 0.25, calls: 3 }))) as Record<string, unknown>;
    const { unknown_usd, ...spend } = (older as { spend: Record<string, unknown> }).spend;
    const read = RunState.parse({ ...older, spend: { ...spend, unaccounted_usd: 0.15 } });
    expect(unknown_usd).toBe(0);
    expect(read.spend.unknown_usd).toBe(0.15);
    expect(read.spend).not.toHaveProperty('unaccounted_usd');
  });

  it("rewrites the run's state file from its slice files with the same n", async () => {
    const runs = join(await mkdtemp(join(tmpdir(), 'rge-slices-')), '.runs');
    mkdirSync(runs, { recursive: true });
    const write = (name: string, s: RunState) => writeFileSync(join(runs, name), JSON.stringify(s));
    write('r.slice-1-of-2.json', state({ usd: 0, calls: 3 }));
    write('r.slice-2-of-2.json', state({ usd: 0, calls: 4 }));
    write('r.slice-1-of-4.json', state({ usd: 0, calls: 100 })); // another split of the run
    write('other.slice-1-of-2.json', state({ usd: 0, calls: 1000 })); // another run
    const combined = await combineSliceStates(join(runs, 'r.json'), 2);
    expect(combined?.counts.answers.computed).toBe(7);
    expect(JSON.parse(readFileSync(join(runs, 'r.json'), 'utf8'))).toEqual(combined);
    expect(await combineSliceStates(join(runs, 'none.json'), 2)).toBeNull();
  });
});
