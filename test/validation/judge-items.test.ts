/**
 * Running a judge over labelled items (`rge judge agree`, `audit`): a first reply that cannot be used is
 * handed over to be settled before its retry is asked, so that a retry that fails leaves no paid call
 * unsettled in the ledger.
 */
import { describe, expect, it } from 'vitest';
import { type ModelReply, type Provider, ZERO_USAGE } from '../../src/providers/types.ts';
import type { AgreementItem } from '../../src/validation/datasets.ts';
import { judgeItems } from '../../src/validation/judge-items.ts';

const ITEM: AgreementItem = {
  id: 'ab-1',
  human: 1,
  subset: 'AttributedQA',
  input: {
    kind: 'judge',
    questionId: 'ab-1',
    question: 'What was revenue in FY24?',
    category: 'grounded-direct',
    expectedBehavior: 'answer',
    goldAnswer: 'Rs 100 crore',
    goldQuotes: [],
    numericGold: [],
    chunks: [],
    answer: 'Rs 100 crore.',
  },
};

describe('judgeItems', () => {
  it("settles an unusable first reply's call before its retry is asked; a failing retry propagates", async () => {
    const settled: string[][] = [];
    let asked = 0;
    const judge: Provider = {
      id: 'fake/judge',
      family: 'fake',
      async complete(): Promise<ModelReply> {
        asked++;
        if (asked > 1) throw new Error('the retry fails');
        const charges = [{ reservation: 'r1', key: 'r1', usd: 0.01 }];
        return { text: 'not a verdict', usage: ZERO_USAGE, latencyMs: 1, costUsd: 0.01, model: 'm', charges };
      },
    };
    await expect(
      judgeItems([ITEM], judge, {
        onJudged: async (charges, judged) => {
          settled.push([...charges.map((c) => c.key), judged === null ? 'before retry' : 'judged']);
        },
      }),
    ).rejects.toThrow(/the retry fails/);
    expect(asked).toBe(2);
    expect(settled).toEqual([['r1', 'before retry']]);
  });
});

describe('judgeItems stopped by a signal (issue 52)', () => {
  it('asks nothing after the stop and ends with its reason, one item after the other or all at once', async () => {
    for (const concurrent of [false, true]) {
      const stop = new AbortController();
      let asked = 0;
      const judge: Provider = {
        id: 'fake/judge',
        family: 'fake',
        async complete(_request, options): Promise<ModelReply> {
          asked++;
          await new Promise((r) => setTimeout(r, 10));
          // the stop comes while the first call is in flight; the calls are aborted with it
          stop.abort(new Error('stopped by SIGTERM'));
          options?.signal?.throwIfAborted();
          throw new Error('not aborted');
        },
      };
      const items = [ITEM, { ...ITEM, id: 'ab-2' }, { ...ITEM, id: 'ab-3' }];
      await expect(judgeItems(items, judge, { signal: stop.signal, concurrent })).rejects.toThrow(
        'stopped by SIGTERM',
      );
      // one after the other: only the first was asked; all at once: each was in flight already
      expect(asked).toBe(concurrent ? 3 : 1);
    }
  });
});
