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
 * Asks `provider` for its verdict on `request` (one retry on an unusable reply). `first` is a reply a
 * batch already returned: it is the first attempt, and its charge is the batch runner's to settle, so
 * `unsettled` holds only the charges of the calls made here.
 */
export async function issueJudgeCall(
  provider: Provider,
  request: ModelRequest,
  opts: Pick<CallOptions, 'signal' | 'beforeSend'> & { first?: ModelReply | undefined } = {},
): Promise<{ result: JudgeCallResult; unsettled: CallCharge[] }> {
  const first = opts.first;
  const judged = await judgeCaseCharged(provider, request, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.beforeSend ? { beforeSend: opts.beforeSend } : {}),
    ...(first ? { first } : {}),
    priority: JUDGE_PRIORITY,
  });
  return {
    result: {
      outcome: judged.outcome,
      usage: judged.outcome.usage ?? { ...ZERO_USAGE },
      batch: judged.batch,
      charges: judged.charges,
    },
    unsettled: judged.charges.filter((c) => !first?.charges?.some((f) => f.key === c.key)),
  };
}
