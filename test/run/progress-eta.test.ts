import { describe, expect, it } from 'vitest';
import type { RunSession } from '../../src/run/session/open.ts';
import { MIN_CALLS_FOR_ETA, StageContext, type StageOutput } from '../../src/run/sync/stage-context.ts';

/** a StageContext on a clock the test moves by hand, its lines collected */
function context(output?: StageOutput) {
  let t = 1_000_000;
  const lines: string[] = [];
  const ctx = new StageContext({} as RunSession, {
    log: (l) => lines.push(l),
    now: () => t,
    ...(output ? { output } : {}),
  });
  return { ctx, lines, advance: (ms: number) => (t += ms) };
}

/** one call finished (what sync.ts does after a cell is stored) */
function finish(ctx: StageContext): void {
  ctx.counts.answers.computed++;
  ctx.progress();
}

describe('the progress line of a run (issue 39, defect 5)', () => {
  it('gives no time left before enough calls finished, and measures the rate without the start-up', () => {
    const { ctx, lines, advance } = context();
    ctx.expectedCalls = 2400;
    advance(10_000); // the start-up: index, plan, the first replies' latency
    finish(ctx); // the first call, 10 s in: the old line said "about 23990 s left"
    expect(lines).toEqual([
      'progress: 1 answers and 0 verdicts done, 0 failed, 2399 calls to go, estimating the time left...',
    ]);
    advance(5000);
    finish(ctx);
    expect(lines.at(-1)).toMatch(/estimating the time left\.\.\.$/);
    // then one call every 100 ms
    for (let i = 0; i < 98; i++) {
      advance(100);
      finish(ctx);
    }
    // the last line, 20 s in: 52 done, 51 of them in the 10 s since the first finished
    const last = lines.at(-1) ?? '';
    const secs = Number(/about (\d+) s left/.exec(last)?.[1]);
    // 2348 left at 51 per 10 s is 461 s; at the rate from the start (52 in 20 s) it would be 904 s
    expect(last).toMatch(/^progress: 52 answers/);
    expect(secs).toBe(461);
  });

  it(`says "estimating" until ${MIN_CALLS_FOR_ETA} calls finished after the first`, () => {
    const { ctx, lines, advance } = context();
    ctx.expectedCalls = 100;
    for (let i = 0; i < MIN_CALLS_FOR_ETA; i++) {
      advance(6000);
      finish(ctx);
    }
    expect(lines.every((l) => l.endsWith('estimating the time left...'))).toBe(true);
    advance(6000);
    finish(ctx);
    // 5 calls in the 30 s since the first: 6 s each, 94 left
    expect(lines.at(-1)).toMatch(/, about 564 s left$/);
  });

  it('says nothing of time at the end', () => {
    const { ctx, lines } = context();
    ctx.expectedCalls = 1;
    finish(ctx);
    ctx.progress(true);
    expect(lines.at(-1)).toBe('progress: 1 answers and 0 verdicts done, 0 failed, 0 calls to go');
  });

  for (const output of ['summary', 'quiet'] as const)
    it(`says one line, at the stage's end, when its output is '${output}' (CI, a log, --quiet; issue 39, defect 9)`, () => {
      const { ctx, lines, advance } = context(output);
      ctx.expectedCalls = 100;
      for (let i = 0; i < 100; i++) {
        advance(6000); // ten minutes: 120 lines every 5 s would have been said
        finish(ctx);
      }
      expect(lines).toEqual([]);
      ctx.progress(true);
      expect(lines).toEqual(['progress: 100 answers and 0 verdicts done, 0 failed, 0 calls to go']);
    });
});
