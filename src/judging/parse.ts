/**
 * Asking a judge and reading its verdict. A reply is parsed as JSON (a fenced ```json block is
 * accepted) and validated against `JudgeVerdict`. A reply that fails is retried ONCE, with the failed
 * reply and the validation error appended to the conversation (a reply without text is not sent back:
 * the case's turn says it was empty); a second failure is recorded as `unscored` with the raw text and
 * the error, never as a score of 0 (a failure is data). A reply that did not end on its own (cut at the
 * token limit, a refusal, a safety stop) is unscored at once, with its stop: asking again at the same
 * limit would be cut again. The first reply was paid for: the caller keeps it before its retry is asked
 * (`beforeRetry`); a retry the provider refuses as a request leaves the case unscored with that reply,
 * and one that fails otherwise propagates, for a later run to ask again (only the retry).
 */

import { CallError } from '../providers/live/adapter.ts';
import {
  addUsage,
  type CallCharge,
  type CallOptions,
  type ChatMessage,
  type ModelReply,
  type ModelRequest,
  type Provider,
  type StopInfo,
  type Usage,
  ZERO_USAGE,
} from '../providers/types.ts';
import { errorMessage } from '../util/errors.ts';
import { type JudgeOutcome, JudgeVerdict } from './verdict.ts';

/** How many replies a case may take: the first and one retry. */
export const MAX_JUDGE_ATTEMPTS = 2;

export type VerdictParse = { ok: true; verdict: JudgeVerdict } | { ok: false; error: string };

/** The JSON text of a reply: the body of a fenced code block when there is one, else the trimmed text. */
export function extractJsonText(text: string): string {
  const fenced = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```/.exec(text);
  if (fenced?.[1] !== undefined) return fenced[1].trim();
  const trimmed = text.trim();
  // Prose around a bare object: take the outermost braces.
  if (!trimmed.startsWith('{')) {
    const start = trimmed.indexOf('{');
    const end = trimmed.lastIndexOf('}');
    if (start >= 0 && end > start) return trimmed.slice(start, end + 1);
  }
  return trimmed;
}

/** Parses and validates one reply text as a verdict; the error says what is wrong, field by field. */
export function parseVerdict(text: string): VerdictParse {
  let json: unknown;
  try {
    json = JSON.parse(extractJsonText(text));
  } catch (err) {
    return { ok: false, error: `reply is not JSON (${errorMessage(err)})` };
  }
  const parsed = JudgeVerdict.safeParse(json);
  if (parsed.success) return { ok: true, verdict: parsed.data };
  const issues = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
  return { ok: false, error: `reply does not follow the verdict schema: ${issues.join('; ')}` };
}

/** The message appended after a failed reply, asking for a corrected one. */
export function retryMessage(error: string): string {
  return (
    `Your reply could not be used: ${error}. Reply again with one JSON object that follows the ` +
    'JSON Schema given in the instructions, and nothing else.'
  );
}

/**
 * The conversation that asks again after an unusable reply `reply`: the reply as the assistant's turn,
 * then a user turn that says what was wrong. A reply without text (empty or whitespace only) is not
 * sent back, since the APIs refuse a turn without text: Anthropic answers 400 "messages: text content
 * blocks must be non-empty" (and "... must contain non-whitespace text" for whitespace), Gemini 400
 * "Unable to submit request because it has an empty text parameter" (OpenAI takes an empty assistant
 * content, but it tells the judge nothing). The case's own user turn says instead that the reply was
 * empty: the turns keep alternating and end on the user's, as Gemini's multi-turn rule asks, and its
 * cache breakpoint stays where it was.
 */
export function retryConversation(
  messages: readonly ChatMessage[],
  reply: string,
  error: string,
): ChatMessage[] {
  if (reply.trim() !== '')
    return [
      ...messages,
      { role: 'assistant', content: reply },
      { role: 'user', content: retryMessage(error) },
    ];
  const note =
    'Your previous reply to this request was empty. Reply again with one JSON object that follows the ' +
    'JSON Schema given in the instructions, and nothing else.';
  const last = messages.at(-1);
  if (last?.role === 'user')
    return [...messages.slice(0, -1), { ...last, content: `${last.content}\n\n${note}` }];
  return [...messages, { role: 'user', content: note }];
}

/** HTTP statuses by which a provider refuses a request as it is: invalid (400), too large (413), unprocessable (422). */
const REQUEST_REFUSED_STATUSES = new Set([400, 413, 422]);

/**
 * Is `err` a provider's refusal of the request itself? The same request sent again is refused again, so
 * a retry refused so is definitive: the case is unscored with the reply it has. Any other failure (the
 * attempts used up on 429s, 5xx or timeouts; the budget cap; an abort; another process taking the cell)
 * is not: it propagates, and a later run asks again.
 */
export function isRequestRefused(err: unknown): boolean {
  return err instanceof CallError && err.status !== null && REQUEST_REFUSED_STATUSES.has(err.status);
}

/** A judge outcome with the billed calls behind it (stored beside the outcome, settled after). */
export interface JudgedCase {
  outcome: JudgeOutcome;
  charges: CallCharge[];
  batch: boolean;
}

export interface JudgeCaseOptions extends CallOptions {
  /**
   * a reply already paid for: a batch's, or a first reply kept when its retry failed in an earlier run.
   * It is the first attempt, and only a retry is asked of the provider.
   */
  first?: ModelReply | undefined;
  /**
   * called with an unusable reply before its retry is asked, so that the caller keeps the paid reply (a
   * retry that then fails loses nothing, and a later run asks only the retry)
   */
  beforeRetry?: (reply: ModelReply) => Promise<void>;
}

/** What the attempts of a case add up to: latency, cost, tokens and the billed calls. */
class AttemptTotals {
  latencyMs = 0;
  costUsd = 0;
  usage: Usage = ZERO_USAGE;
  readonly charges: CallCharge[] = [];

  add(reply: ModelReply): void {
    this.latencyMs += reply.latencyMs;
    this.costUsd += reply.costUsd;
    this.usage = addUsage(this.usage, reply.usage);
    this.charges.push(...(reply.charges ?? []));
  }

  get cost(): { latencyMs: number; costUsd: number; usage: Usage } {
    return { latencyMs: this.latencyMs, costUsd: this.costUsd, usage: this.usage };
  }
}

/**
 * Asks `provider` to judge the case of `request` and returns its outcome: `scored` with the verdict,
 * or `unscored` with the last raw reply and the error after one retry. An error the provider throws
 * (network, budget cap) is not a reply and propagates to the caller, except the provider's refusal of
 * the retry request (`isRequestRefused`), after which the case is unscored with the first reply and
 * both errors. Latency, cost, tokens and the billed calls add up over the attempts.
 */
export async function judgeCase(
  provider: Provider,
  request: ModelRequest,
  opts: JudgeCaseOptions = {},
): Promise<JudgeOutcome> {
  return (await judgeCaseCharged(provider, request, opts)).outcome;
}

export async function judgeCaseCharged(
  provider: Provider,
  request: ModelRequest,
  opts: JudgeCaseOptions = {},
): Promise<JudgedCase> {
  let messages: ChatMessage[] = [...request.messages];
  const totals = new AttemptTotals();
  const batch = Boolean(opts.first?.batch);
  const callOptions = {
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.beforeSend ? { beforeSend: opts.beforeSend } : {}),
    priority: opts.priority ?? 5,
  };
  const judged = (o: JudgeOutcome): JudgedCase => ({ outcome: o, charges: totals.charges, batch });
  let raw = '';
  let error = '';
  for (let attempt = 1; attempt <= MAX_JUDGE_ATTEMPTS; attempt++) {
    let reply: ModelReply;
    try {
      reply =
        attempt === 1 && opts.first
          ? opts.first
          : await provider.complete({ ...request, messages: [...messages] }, callOptions);
    } catch (err) {
      if (attempt === 1 || !isRequestRefused(err)) throw err;
      const both = `${error}; its retry was refused: ${errorMessage(err)}`;
      return judged(outcome(provider, 'unscored', null, raw, attempt, both, totals.cost));
    }
    totals.add(reply);
    raw = reply.text;
    if (reply.stop && reply.stop.kind !== 'complete') {
      const why = stopMessage(reply.stop, request.maxTokens);
      return judged({
        ...outcome(provider, 'unscored', null, raw, attempt, why, totals.cost),
        stop: reply.stop,
      });
    }
    const parsed = parseVerdict(raw);
    if (parsed.ok)
      return judged(outcome(provider, 'scored', parsed.verdict, raw, attempt, null, totals.cost));
    error = parsed.error;
    if (attempt < MAX_JUDGE_ATTEMPTS) {
      await opts.beforeRetry?.(reply);
      messages = retryConversation(messages, raw, error);
    }
  }
  return judged(outcome(provider, 'unscored', null, raw, MAX_JUDGE_ATTEMPTS, error, totals.cost));
}

/** Why a reply that did not end on its own cannot be scored. */
export function stopMessage(stop: StopInfo, maxTokens: number): string {
  switch (stop.kind) {
    case 'truncated':
      return `the reply was cut at the output limit (${stop.reason}, ${maxTokens} tokens): not scored as a complete reply`;
    case 'refusal':
      return `the model refused (${stop.reason})`;
    case 'safety':
      return `a safety filter stopped the reply (${stop.reason})`;
    default:
      return `the reply ended for another reason (${stop.reason})`;
  }
}

function outcome(
  provider: Provider,
  status: JudgeOutcome['status'],
  verdict: JudgeVerdict | null,
  raw: string,
  attempts: number,
  error: string | null,
  cost: { latencyMs: number; costUsd: number; usage: Usage },
): JudgeOutcome {
  return {
    judgeId: provider.id,
    family: provider.family,
    status,
    verdict,
    raw,
    attempts,
    error,
    latencyMs: cost.latencyMs,
    costUsd: cost.costUsd,
    usage: cost.usage,
  };
}
