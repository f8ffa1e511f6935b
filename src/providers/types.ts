/**
 * One interface for every model call, subject or judge, live or offline. Live providers (Anthropic,
 * OpenAI, Gemini; a later issue) send `system` + `messages`; offline providers compute their reply from
 * `structured`, the same information in typed form, and ignore the text. Everything a reply costs is in
 * `usage`, `latencyMs` and `costUsd`, so the budget ledger and reports never ask the provider again.
 */
import { z } from 'zod';
import type { DerivableGold } from '../analysis/derivation.ts';

/**
 * One turn of a conversation. `cacheBreak` (a character offset into `content`) marks the end of a prefix
 * worth caching: the part of the message that is identical across the runs of a cell and across the
 * judge calls of a question (the retrieved context). Providers with explicit caching (Anthropic) put a
 * cache breakpoint there; the others cache prefixes automatically. It never changes the text sent.
 */
export const ChatMessage = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  cacheBreak: z.number().int().min(0).optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/** A retrieved chunk as subjects and judges see it. */
/**
 * A passage a subject answered from and a judge reads: one of rge's chunks (its company, fiscal year,
 * heading and pages), or one of a system's own contexts (its source and score; no company, and pages
 * [0, 0] when it names no page).
 */
export interface ContextChunk {
  id: string;
  /** the company of rge's corpus; '' for a system's own passage */
  company: string;
  fy: string | null;
  heading: string | null;
  /** first and last page, 1-based; [0, 0] when the passage names no page */
  pages: readonly [number, number];
  text: string;
  /** a system's passage: the document it comes from, as the system names it */
  source?: string | undefined;
  /** a system's passage: its retriever's score */
  score?: number | undefined;
}

/** What a subject is asked: the question and the retrieved chunks (top-k, fixed across models). */
export interface SubjectInput {
  kind: 'subject';
  questionId: string;
  question: string;
  chunks: readonly ContextChunk[];
}

/** What a judge is shown: the case, the expected behaviour, the gold answer and the subject's answer. */
export interface JudgeInput {
  kind: 'judge';
  questionId: string;
  question: string;
  category: string;
  expectedBehavior: 'answer' | 'answer-with-caveat' | 'refuse';
  goldAnswer: string;
  goldQuotes: readonly string[];
  /** the figures the answer must state; a computed one with the arithmetic that computes it */
  numericGold: readonly DerivableGold[];
  chunks: readonly ContextChunk[];
  answer: string;
}

/** OpenAI's reasoning efforts, spelled as the API takes them (the SDK's `ReasoningEffort`). */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
/** Gemini's thinking levels, as a run config spells them (sent as the SDK's `ThinkingLevel` enum: LOW, ...). */
export const THINKING_LEVELS = ['minimal', 'low', 'medium', 'high'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/**
 * The sampling and reasoning parameters a request sends, resolved from the run config and the model's
 * contract (`contract.ts`): what is absent is not sent. `seed` says whether the cell's seed
 * (`ModelRequest.seed`) is sent. The adapters map each field to the SDK's own field, one to one.
 */
export const RequestParameters = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
  thinking_level: z.enum(THINKING_LEVELS).optional(),
  seed: z.boolean().optional(),
});
export type RequestParameters = z.infer<typeof RequestParameters>;

/**
 * The parameters as they enter a request's identity (prompt and verdict hashes): the temperature under
 * its old key, the rest under `parameters` only when there is any, so that a request that sends a
 * temperature alone (offline baselines, heuristic judges) keeps the identity it had before rge sent
 * anything else.
 */
export function parametersIdentity(p: RequestParameters): {
  temperature?: number;
  parameters?: Omit<RequestParameters, 'temperature'>;
} {
  const { temperature, ...rest } = p;
  return {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(Object.keys(rest).length > 0 ? { parameters: rest } : {}),
  };
}

export interface ModelRequest {
  model: string;
  system: string;
  messages: readonly ChatMessage[];
  /** what is sent besides the prompt: sampling and reasoning parameters (absent = not sent) */
  parameters: RequestParameters;
  /** the output token limit sent (for Gemini 3 it includes the thinking allowance, see contract.ts) */
  maxTokens: number;
  /** JSON Schema the reply must follow (structured output), when the caller parses JSON */
  jsonSchema?: Record<string, unknown>;
  /** the typed form of the prompt, for offline providers */
  structured?: SubjectInput | JudgeInput;
  /** identifies the cell, for replay and for seeding sampling at temperature > 0 */
  cell?: { questionId: string; runIndex: number; subjectId?: string; seed: string };
  /**
   * the cell's sampling seed (derived from the run seed, question and run index); sent when
   * `parameters.seed`. A subject's request has one, a judge's none. A best effort at most at the
   * provider: no determinism follows from it.
   */
  seed?: number;
}

/**
 * Why a reply ended, in rge's words: `complete` (the model finished), `truncated` (the output token limit
 * cut it: Anthropic `max_tokens`, OpenAI `length`, Gemini `MAX_TOKENS`), `refusal` (the model or the
 * provider declined: Anthropic `refusal`, an OpenAI `refusal` message), `safety` (a content filter stopped
 * it: OpenAI `content_filter`, Gemini `SAFETY`, `RECITATION`, `PROHIBITED_CONTENT`, a blocked prompt, ...)
 * or `other` (any other reason the provider gives). `reason` is the provider's own word.
 */
export const STOP_KINDS = ['complete', 'truncated', 'refusal', 'safety', 'other'] as const;
export const StopInfo = z
  .strictObject({ kind: z.enum(STOP_KINDS), reason: z.string() })
  .describe("why the reply ended: rge's kind and the provider's own reason");
export type StopInfo = z.infer<typeof StopInfo>;
export type StopKind = StopInfo['kind'];

/** The stop of a reply computed here (offline providers, replay): it finished. */
export const COMPLETE: StopInfo = { kind: 'complete', reason: 'complete' };

/** Per-call options: cancellation (every live call takes an AbortSignal) and batch pricing. */
export interface CallOptions {
  signal?: AbortSignal;
  /** scheduling priority where calls queue for a rate limit: 0 first, 9 last (default 5) */
  priority?: number;
  /**
   * Run when a paid call has its rate-limit slot, before its budget is reserved and it is sent (again
   * on each attempt): a run claims the call's cell here, so that a process claims only what it is about
   * to send (run/leases.ts). An error it throws ends the call as it is, never retried. Free providers
   * (offline, replay) do not call it.
   */
  beforeSend?: () => Promise<void>;
}

/**
 * Tokens of one call. `inputTokens` are the input tokens billed at the full input price, i.e. WITHOUT the
 * tokens read from or written to a prompt cache (Anthropic reports them this way; OpenAI's and Gemini's
 * prompt counts include cached tokens and their adapters subtract them). `outputTokens` include any
 * reasoning or thinking tokens, which are billed as output.
 */
export const Usage = z.strictObject({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  cacheReadTokens: z.number().int().min(0),
  cacheWriteTokens: z.number().int().min(0),
});
export type Usage = z.infer<typeof Usage>;

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/**
 * What one call cost and which budget reservation pays for it: stored with the record the call produced
 * and settled in the ledger after the record is stored, so a crash between the two is recovered from
 * the record. `key` is unique per billed call (a sync call's reservation id, or batch id + item id).
 */
export const CallCharge = z.strictObject({
  reservation: z.string().nullable(),
  key: z.string(),
  usd: z.number().min(0),
});
export type CallCharge = z.infer<typeof CallCharge>;

export interface ModelReply {
  text: string;
  /** the reply parsed as JSON when a jsonSchema was requested and the text parsed */
  json?: unknown;
  usage: Usage;
  latencyMs: number;
  costUsd: number;
  /** the model that answered, as the provider names it */
  model: string;
  /** for replay: the chunk ids recorded with the answer, if any */
  retrievedIds?: readonly string[];
  /** the billed calls behind this reply (live providers); none for free ones */
  charges?: CallCharge[];
  /** true when the reply came from a batch (priced at the batch discount) */
  batch?: boolean;
  /** why the reply ended (live providers; absent = complete) */
  stop?: StopInfo;
}

export interface Provider {
  /** e.g. "offline/extractive", "heuristic/numeric", "anthropic/claude-sonnet-4-5" */
  readonly id: string;
  /** the model family; no judge may judge a subject of its own family */
  readonly family: string;
  /**
   * For providers whose behaviour is code or data of ours (offline baselines, heuristic judges,
   * replay files): a version that changes when their output may change. It is part of the run id, so
   * stored results of an older version are never reused.
   */
  readonly version?: string;
  complete(request: ModelRequest, options?: CallOptions): Promise<ModelReply>;
}

/** The total of two usages. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}
