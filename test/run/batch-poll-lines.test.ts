/**
 * The line a batch's poll says (issue 39, defect 9): on a terminal, one whenever its counts change; under
 * CI, into a log or with --quiet (the stages' output 'summary' or 'quiet'), one when its state changes,
 * so an hour-long batch says a few lines, not one per poll.
 */
import { describe, expect, it } from 'vitest';
import { type BatchGroup, poll } from '../../src/run/batch/calls.ts';
import type { RunSession } from '../../src/run/session/open.ts';
import { StageContext, type StageOutput } from '../../src/run/sync/stage-context.ts';
import type { BatchRecord } from '../../src/store/batch-records.ts';

/** The polls of one batch of 10 items: in progress with 0, 4 and 9 done, then ended with 10. */
const POLLS = [
  { state: 'in_progress', done: 0, waiting: 10, failed: 0, ended: false },
  { state: 'in_progress', done: 4, waiting: 6, failed: 0, ended: false },
  { state: 'in_progress', done: 9, waiting: 1, failed: 0, ended: false },
  { state: 'ended', done: 10, waiting: 0, failed: 0, ended: true },
];

async function linesOf(output: StageOutput | undefined): Promise<string[]> {
  const lines: string[] = [];
  const run = { plan: { config: { batch: { poll_interval_ms: 1000 } } } } as unknown as RunSession;
  const ctx = new StageContext(run, { log: (l) => lines.push(l), ...(output ? { output } : {}) });
  let at = 0;
  const group = {
    batch: { progress: async () => POLLS[at++] },
  } as unknown as BatchGroup;
  const record = {
    id: 'rge-b1',
    remote_id: 'msgbatch_1',
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    role: 'judge',
    items: Array.from({ length: 10 }, (_, i) => ({ custom_id: `c${i}`, key: `k${i}` })),
  } as unknown as BatchRecord;
  const last = new Map<string, string>();
  for (let i = 0; i < POLLS.length; i++) await poll(ctx, group, [record], last);
  return lines;
}

describe('a batch poll line', () => {
  it('on a terminal: one per change of counts', async () => {
    expect(await linesOf(undefined)).toEqual([
      'batch rge-b1 (anthropic/claude-sonnet-4-6, verdicts): in_progress, 0 done, 10 waiting, 0 failed',
      'batch rge-b1 (anthropic/claude-sonnet-4-6, verdicts): in_progress, 4 done, 6 waiting, 0 failed',
      'batch rge-b1 (anthropic/claude-sonnet-4-6, verdicts): in_progress, 9 done, 1 waiting, 0 failed',
      'batch rge-b1 (anthropic/claude-sonnet-4-6, verdicts): ended, 10 done, 0 waiting, 0 failed',
    ]);
  });

  for (const output of ['summary', 'quiet'] as const)
    it(`with output '${output}': one per change of state`, async () => {
      expect(await linesOf(output)).toEqual([
        'batch rge-b1 (anthropic/claude-sonnet-4-6, verdicts): in_progress, 0 done, 10 waiting, 0 failed',
        'batch rge-b1 (anthropic/claude-sonnet-4-6, verdicts): ended, 10 done, 0 waiting, 0 failed',
      ]);
    });
});
