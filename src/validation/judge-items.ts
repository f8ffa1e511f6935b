/**
 * Running a judge over a labelled dataset: each item through the same prompt rendering and parser as a
 * run's judges (one retry on an unparseable reply, then unscored), one after the other or all at once.
 */

import { type JudgedCase, judgeCaseCharged } from '../judging/parse.ts';
import {
  builtInJudgePrompt,
  type JudgeModel,
  type JudgePrompt,
  renderJudgeRequest,
} from '../judging/prompt.ts';
import type { JudgeOutcome } from '../judging/verdict.ts';
import type { CallCharge, Provider } from '../providers/types.ts';
import type { AgreementItem } from './datasets.ts';

export interface JudgeItemsOptions {
  /** the judge as the prompt names it (a run config's judge entry); default from the provider */
  model?: JudgeModel;
  /** the judge prompt (a run config's, `resolveJudgePrompt`); default the canonical built-in one */
  prompt?: JudgePrompt;
  /**
   * ask about every item at once (live judges: the provider's limiter paces the calls); default one
   * item after the other. The first error stops the calls still waiting and is thrown once every call
   * has ended, so that what was billed is settled.
   */
  concurrent?: boolean;
  /** the answer before the retrieved chunks (the judge audit's position probe) */
  answerFirst?: boolean;
  /**
   * called with each item's billed calls as soon as it is judged (to settle them in a ledger), and with
   * an unusable first reply's before its retry is asked (`judged` null): a retry that fails then leaves
   * no paid call unsettled (a call settled twice counts once)
   */
  onJudged?: (charges: readonly CallCharge[], judged: JudgedCase | null) => Promise<void>;
  /**
   * a stop (a signal): no item is asked after it aborts, the calls in flight are aborted (their
   * reservations released), and its reason is thrown once every call has ended
   */
  signal?: AbortSignal;
}

/**
 * Judges every item with `judge` through the same prompt rendering and parser as a run's judges (one
 * retry on an unparseable reply, then unscored); the outcomes are in the order of the items.
 */
export async function judgeItems(
  items: readonly AgreementItem[],
  judge: Provider,
  opts: JudgeItemsOptions = {},
): Promise<JudgeOutcome[]> {
  const model = opts.model ?? {
    id: judge.id,
    model: judge.id,
    family: judge.family,
    parameters: { temperature: 0 },
  };
  const prompt = opts.prompt ?? builtInJudgePrompt();
  const controller = new AbortController();
  const stop = opts.signal;
  const follow = () => controller.abort(stop?.reason);
  if (stop?.aborted) follow();
  else stop?.addEventListener('abort', follow, { once: true });
  const one = async (item: AgreementItem): Promise<JudgeOutcome> => {
    // a stop, or another item's error, asks nothing more
    controller.signal.throwIfAborted();
    const request = renderJudgeRequest(item.input, model, prompt, {
      answerFirst: opts.answerFirst === true,
    });
    const judged = await judgeCaseCharged(judge, request, {
      signal: controller.signal,
      beforeRetry: async (reply) => {
        await opts.onJudged?.(reply.charges ?? [], null);
      },
    });
    await opts.onJudged?.(judged.charges, judged);
    return judged.outcome;
  };
  try {
    return await judgeAll(items, controller, opts.concurrent === true, one);
  } finally {
    stop?.removeEventListener('abort', follow);
  }
}

/**
 * Every item, one after the other or all at once: the first error (or a stop) aborts the calls still
 * waiting, and is thrown once every call has ended (so that what was billed is settled).
 */
async function judgeAll(
  items: readonly AgreementItem[],
  controller: AbortController,
  concurrent: boolean,
  one: (item: AgreementItem) => Promise<JudgeOutcome>,
): Promise<JudgeOutcome[]> {
  if (!concurrent) {
    const outcomes: JudgeOutcome[] = [];
    try {
      for (const item of items) outcomes.push(await one(item));
    } catch (err) {
      // a call cut by a stop fails as an aborted call: the stop is why
      throw controller.signal.aborted ? controller.signal.reason : err;
    }
    return outcomes;
  }
  const settled = await Promise.allSettled(
    items.map(async (item) => {
      try {
        return await one(item);
      } catch (err) {
        if (!controller.signal.aborted) controller.abort(err);
        throw err;
      }
    }),
  );
  if (controller.signal.aborted) throw controller.signal.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<JudgeOutcome>).value);
}
