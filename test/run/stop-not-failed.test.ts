import { describe, expect, it } from 'vitest';
import type { RunSession } from '../../src/run/session/open.ts';
import type { SubjectCell } from '../../src/run/session/work.ts';
import { StageContext } from '../../src/run/sync/stage-context.ts';
import { syncAnswer } from '../../src/run/sync/sync.ts';

/** a run whose subject's call rejects as an aborted call does, before it is sent */
function abortingRun(): RunSession {
  return {
    answers: () => ({ get: () => undefined }),
    subjectOf: () => ({
      answer: async () => {
        throw new Error('This operation was aborted');
      },
    }),
  } as unknown as RunSession;
}

const cell = {
  subject: { id: 's', provider: 'p', model: 'm' },
  id: 'c1',
  key: 'k1',
} as unknown as SubjectCell;

describe('calls aborted by Ctrl-C (issue 39, defect 4)', () => {
  it('are not counted as failed in the progress', async () => {
    const controller = new AbortController();
    controller.abort();
    const ctx = new StageContext(abortingRun(), { signal: controller.signal });
    expect(await syncAnswer(ctx, cell)).toBeNull();
    expect(ctx.counts.answers.failed).toBe(0);
  });

  it('a call that fails with no stop is counted as failed', async () => {
    const ctx = new StageContext(abortingRun(), {});
    expect(await syncAnswer(ctx, cell)).toBeNull();
    expect(ctx.counts.answers.failed).toBe(1);
  });
});
