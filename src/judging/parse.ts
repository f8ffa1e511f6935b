/**
 * Asking a judge and reading its verdict. A reply is parsed as JSON (a fenced ```json block is
 * accepted) and validated against `JudgeVerdict`. A reply that fails is retried ONCE, with the failed
 * reply and the validation error appended to the conversation (a reply without text is not sent back:
 * the case's turn says it was empty); a second failure is recorded as
 * `unscored` with the raw text and the error, never as a score of 0 (a failure is data). A reply that
 * did not end on its own (cut at the token limit, a refusal, a safety stop) is unscored at once, with
 * its stop: asking again at the same limit would be cut again.
 */
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

/** A judge outcome with the billed calls behind it (stored beside the outcome, settled after). */
export interface JudgedCase {
  outcome: JudgeOutcome;
  charges: CallCharge[];
  batch: boolean;
}

/**
 * Asks `provider` to judge the case of `request` and returns its outcome: `scored` with the verdict,
 * or `unscored` with the last raw reply and the error after one retry. An error the provider throws
 * (network, budget cap) is not a reply and propagates to the caller. Latency, cost, tokens and the
 * billed calls add up over the attempts. `first` is a reply already obtained (from a batch): it counts
 * as the first attempt, and only a retry is asked of `provider`.
 */
export async function judgeCase(
  provider: Provider,
  request: ModelRequest,
  opts: CallOptions & { first?: ModelReply } = {},
): Promise<JudgeOutcome> {
  return (await judgeCaseCharged(provider, request, opts)).outcome;
}

export async function judgeCaseCharged(
  provider: Provider,
  request: ModelRequest,
  opts: CallOptions & { first?: ModelReply } = {},
): Promise<JudgedCase> {
  let messages: ChatMessage[] = [...request.messages];
  let latencyMs = 0;
  let costUsd = 0;
  let usage: Usage = ZERO_USAGE;
  const charges: CallCharge[] = [];
  let raw = '';
  let error = '';
  const callOptions = {
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.beforeSend ? { beforeSend: opts.beforeSend } : {}),
    priority: opts.priority ?? 5,
  };
  for (let attempt = 1; attempt <= MAX_JUDGE_ATTEMPTS; attempt++) {
    const reply =
      attempt === 1 && opts.first
        ? opts.first
        : await provider.complete({ ...request, messages: [...messages] }, callOptions);
    latencyMs += reply.latencyMs;
    costUsd += reply.costUsd;
    usage = addUsage(usage, reply.usage);
    charges.push(...(reply.charges ?? []));
    const text = reply.text;
    raw = text;
    const cost = { latencyMs, costUsd, usage };
    if (reply.stop && reply.stop.kind !== 'complete')
      return {
        outcome: {
          ...outcome(
            provider,
            'unscored',
            null,
            raw,
            attempt,
            stopMessage(reply.stop, request.maxTokens),
            cost,
          ),
          stop: reply.stop,
        },
        charges,
        batch: Boolean(opts.first?.batch),
      };
    const parsed = parseVerdict(text);
    if (parsed.ok)
      return {
        outcome: outcome(provider, 'scored', parsed.verdict, raw, attempt, null, cost),
        charges,
        batch: Boolean(opts.first?.batch),
      };
    error = parsed.error;
    messages = retryConversation(messages, text, error);
  }
  return {
    outcome: outcome(provider, 'unscored', null, raw, MAX_JUDGE_ATTEMPTS, error, {
      latencyMs,
      costUsd,
      usage,
    }),
    charges,
    batch: Boolean(opts.first?.batch),
  };
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
