import { describe, expect, it } from 'vitest';
import {
  createLineProgress,
  estimateRemainingMs,
  formatDuration,
  type Progress,
  progressLine,
  stageProgress,
} from '../../src/util/progress.ts';

/** a clock the test moves by hand */
function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [400, '1s'],
    [45_000, '45s'],
    [59_001, '1m00s'],
    [65_000, '1m05s'],
    [3_600_000, '1h00m'],
    [3_720_000, '1h02m'],
  ])('%d ms -> %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('estimateRemainingMs', () => {
  it('extrapolates the rate so far', () => {
    // 10 of 40 in 5 s: 30 left at 0.5 s each
    expect(estimateRemainingMs(5000, 10, 40)).toBe(15_000);
  });
  it('has no estimate before the first unit or without elapsed time, and none left at the end', () => {
    expect(estimateRemainingMs(5000, 0, 40)).toBeNull();
    expect(estimateRemainingMs(0, 3, 40)).toBeNull();
    expect(estimateRemainingMs(5000, 40, 40)).toBe(0);
  });
});

describe('progressLine', () => {
  it('shows count, percent, eta and the item', () => {
    expect(progressLine('embed', 120, 400, 30_000, 'acme.pdf')).toBe(
      'embed: 120/400 (30%) eta 1m10s acme.pdf',
    );
  });
  it('says how long it took at the end', () => {
    expect(progressLine('extract', 20, 20, 92_000)).toBe('extract: 20/20 (100%) done in 1m32s');
  });
  it('omits the eta when there is no rate yet', () => {
    expect(progressLine('fetch', 0, 14, 0)).toBe('fetch: 0/14 (0%)');
  });
});

describe('createLineProgress (plain lines, CI or not a TTY)', () => {
  it('writes the first line, then at most one per interval, then the last, with an ETA', () => {
    const clock = fakeClock();
    const lines: string[] = [];
    const p = createLineProgress({
      total: 4,
      label: 'embed',
      write: (l) => lines.push(l),
      lineEveryMs: 5000,
      now: clock.now,
    });
    clock.advance(1000);
    p.tick(); // first line
    clock.advance(1000);
    p.tick(); // 1 s after the last line: quiet
    clock.advance(4000);
    p.tick(); // 5 s after the last line: written
    clock.advance(1000);
    p.tick(); // the last, whatever the interval
    p.done();
    expect(lines).toEqual([
      'embed: 1/4 (25%) eta 3s',
      'embed: 3/4 (75%) eta 2s', // 6 s for 3: 2 s each
      'embed: 4/4 (100%) done in 7s',
    ]);
  });

  it('with an interval of Infinity writes the last line only: one summary line for the step (rge eval run under CI)', () => {
    const clock = fakeClock();
    const lines: string[] = [];
    const p = createLineProgress({
      total: 3,
      label: '  embed',
      write: (l) => lines.push(l),
      lineEveryMs: Number.POSITIVE_INFINITY,
      now: clock.now,
    });
    for (let i = 0; i < 3; i++) {
      clock.advance(60_000);
      p.tick();
    }
    expect(lines).toEqual(['  embed: 3/3 (100%) done in 3m00s']);
  });

  it('writes the last line once even when set to the end again', () => {
    const clock = fakeClock();
    const lines: string[] = [];
    const p = createLineProgress({ total: 2, label: 'x', write: (l) => lines.push(l), now: clock.now });
    clock.advance(2000);
    p.set(2);
    p.set(2);
    expect(lines).toEqual(['x: 2/2 (100%) done in 2s']);
  });
});

describe('stageProgress', () => {
  it('makes one progress per stage with its total, ignores chunking, and finishes each at its end', () => {
    const made: { stage: string; total: number; sets: number[]; done: number }[] = [];
    const onStage = stageProgress((stage, total): Progress => {
      const rec = { stage, total, sets: [] as number[], done: 0 };
      made.push(rec);
      return { tick() {}, set: (v) => rec.sets.push(v), done: () => rec.done++ };
    });
    onStage('extract', 1, 2);
    onStage('extract', 2, 2);
    onStage('chunk', 50, 50);
    onStage('embed', 10, 50);
    expect(made).toEqual([
      { stage: 'extract', total: 2, sets: [1, 2], done: 1 },
      { stage: 'embed', total: 50, sets: [10], done: 0 },
    ]);
  });
});
