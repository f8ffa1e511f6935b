/**
 * Issuing a judge call for a run's stage: the call's priority, the verdict with its retry (judgeCaseCharged),
 * the parts of the stored verdict record that the judging stage owns (outcome, usage, batch, charges),
 * and which of the charges are still to be settled. The run (above) keys, stores and settles them.
 */
import {
  type CallCharge,
  type CallOptions,
  type ModelReply,
  type ModelRequest,
  type Provider,
  type Usage,
  ZERO_USAGE,
} from '../providers/types.ts';
import { judgeCaseCharged } from './parse.ts';
import type { JudgeOutcome } from './verdict.ts';

/** Bottleneck priority of a judge call: before subject calls (5), so that started cells finish. */
export const JUDGE_PRIORITY = 3;

/** What a judge call puts in its verdict record, in the record's key order. */
export interface JudgeCallResult {
  outcome: JudgeOutcome;
  usage: Usage;
  batch: boolean;
  charges: CallCharge[];
}

/**
 * Asks `provider` for its verdict on `request` (one retry on an unusable reply). `first` is a reply
 * already paid for (a batch's, or a first reply kept when its retry failed): it is the first attempt.
 * `beforeRetry` keeps an unusable reply (and settles it) before its retry is asked. `unsettled` holds the
 * charges of the calls made here that nobody has settled yet: not `first`'s (the batch runner's, or
 * settled when it was kept), nor those of a reply `beforeRetry` kept.
 */
export async function issueJudgeCall(
  provider: Provider,
  request: ModelRequest,
  opts: Pick<CallOptions, 'signal' | 'beforeSend'> & {
    first?: ModelReply | undefined;
    beforeRetry?: (reply: ModelReply) => Promise<void>;
  } = {},
): Promise<{ result: JudgeCallResult; unsettled: CallCharge[] }> {
  const settled = new Set((opts.first?.charges ?? []).map((c) => c.key));
  const judged = await judgeCaseCharged(provider, request, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.beforeSend ? { beforeSend: opts.beforeSend } : {}),
    ...(opts.first ? { first: opts.first } : {}),
    beforeRetry: async (reply) => {
      await opts.beforeRetry?.(reply);
      if (opts.beforeRetry) for (const c of reply.charges ?? []) settled.add(c.key);
    },
    priority: JUDGE_PRIORITY,
  });
  return {
    result: {
      outcome: judged.outcome,
      usage: judged.outcome.usage ?? { ...ZERO_USAGE },
      batch: judged.batch,
      charges: judged.charges,
    },
    unsettled: judged.charges.filter((c) => !settled.has(c.key)),
  };
}
