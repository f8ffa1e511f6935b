/**
 * A case's metadata past FULL_EVAL_CASES (src/vitest/case-meta.ts): trimmed to what the artifact lists,
 * and what cases have in common one shared, frozen instance, in the worker and again in the reporter
 * (after the copy over the wire), without changing what any reader sees (the same JSON).
 */
import type { TaskMeta } from 'vitest';
import { describe, expect, it } from 'vitest';
import { FULL_EVAL_CASES, shareCaseMeta, trimEvalMeta } from '../../src/vitest/case-meta.ts';
import type { RgeRunInfo } from '../../src/vitest/meta.ts';
import { Shared } from '../../src/vitest/shared-values.ts';

const run = { runId: 'fixture-0123456789ab', resultsDir: '/results' } as RgeRunInfo;

/** The metadata vitest-evals and rge leave on case `i` (its own answer, tokens and time). */
function caseTask(i: number): { meta: TaskMeta } {
  const score = (name: string, s: number) => ({
    name,
    score: s,
    metadata: { rationale: `why ${name} ${i}` },
  });
  return {
    meta: {
      rge: {
        subject_id: `eager${''}`,
        question_id: `gd-00${i % 3}`,
        run_index: i,
        prompt_hash: 'a'.repeat(64),
        category: 'grounded-direct',
        reused: true,
        scores: { correctness: 2, grounding: 1, calibration: 2, gfs: 0.8 },
      },
      eval: {
        scores: [
          score('numeric correctness', 1),
          score('numeric grounding', 0.5),
          { name: 'GFS', score: 0.8, metadata: { gated: false, spread: 0 } },
        ],
        avgScore: 0.8,
        thresholdFailed: false,
      },
      harness: {
        name: 'eager (offline/eager)',
        run: {
          output: `answer ${i % 2}`,
          session: {
            events: [{ type: 'message', role: 'assistant', content: `answer ${i % 2}` }],
            metadata: { retrieval: [1, 2] },
          },
          usage: {
            provider: 'offline',
            model: 'eager',
            inputTokens: 4000 + i,
            outputTokens: 38,
            metadata: { cacheReadTokens: 0 },
          },
          timings: { totalMs: 0.25 * i, metadata: { batch: false } },
          artifacts: {
            answer_key: `key-${i}`,
            reply_model: 'eager',
            cost_usd: 0,
            answered_at: `2026-12-05T00:00:0${i % 10}Z`,
          },
          errors: [],
        },
      },
    } as TaskMeta,
  };
}

describe('trimEvalMeta and shareCaseMeta', () => {
  it('leaves the first FULL_EVAL_CASES cases whole', () => {
    const task = caseTask(1);
    const before = JSON.stringify(task.meta);
    trimEvalMeta(task, FULL_EVAL_CASES, run, new Shared());
    expect(JSON.stringify(task.meta)).toBe(before);
  });

  it('trims later cases to the answer, usage, timings and scores, pointing to the full record', () => {
    const task = caseTask(2);
    trimEvalMeta(task, FULL_EVAL_CASES + 1, run, new Shared());
    expect(task.meta.harness?.run.session).toEqual({ events: [], metadata: { trimmed: true } });
    expect(task.meta.harness?.run.artifacts?.full_record).toBe('/results/eager_fixture-0123456789ab.jsonl');
    expect(task.meta.harness?.run.usage.inputTokens).toBe(4002);
    expect(task.meta.eval?.scores).toEqual([
      { name: 'numeric correctness', score: 1 },
      { name: 'numeric grounding', score: 0.5 },
      { name: 'GFS', score: 0.8, metadata: { gated: false } },
    ]);
  });

  it('shares what trimmed cases have in common, in the worker and again after a copy, the JSON unchanged', () => {
    const worker = new Shared();
    const tasks = [3, 4, 5].map((i) => {
      const t = caseTask(i);
      trimEvalMeta(t, FULL_EVAL_CASES + i, run, worker);
      return t;
    });
    const [a, b] = tasks as [{ meta: TaskMeta }, { meta: TaskMeta }];
    expect(a.meta.eval).toBe(b.meta.eval);
    expect(a.meta.harness?.run.session).toBe(b.meta.harness?.run.session);
    expect(a.meta.harness?.run.usage.metadata).toBe(b.meta.harness?.run.usage.metadata);
    expect(a.meta.harness?.run.usage).not.toBe(b.meta.harness?.run.usage);
    expect(a.meta.rge?.scores).toBe(b.meta.rge?.scores);
    expect(Object.isFrozen(a.meta.eval)).toBe(true);
    expect(() => {
      (a.meta.eval as { avgScore: number }).avgScore = 0;
    }).toThrow(TypeError);

    // the reporter's side: each case a fresh copy (as from the worker), shared again, the JSON the same
    const reporter = new Shared();
    const copies = tasks.map((t) => JSON.stringify(t.meta));
    const received = copies.map((json) => JSON.parse(json) as TaskMeta);
    for (const meta of received) shareCaseMeta(meta, reporter);
    expect(received.map((m) => JSON.stringify(m))).toEqual(copies);
    const [ra, rb] = received as [TaskMeta, TaskMeta];
    expect(ra.eval).toBe(rb.eval);
    expect(ra.harness?.run.artifacts?.full_record).toBe(rb.harness?.run.artifacts?.full_record);
    expect(ra.rge?.prompt_hash).toBe(rb.rge?.prompt_hash);
  });

  it('shares only rge metadata of a whole case, leaving its vitest-evals metadata as it was', () => {
    const meta = caseTask(6).meta;
    const evalBefore = meta.eval;
    const harnessBefore = meta.harness;
    shareCaseMeta(meta, new Shared());
    expect(meta.eval).toBe(evalBefore);
    expect(meta.harness).toBe(harnessBefore);
    expect(Object.isFrozen(meta.rge?.scores)).toBe(true);
  });
});
