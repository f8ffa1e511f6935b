/**
 * What a live provider adapter does and nothing more: map rge's `ModelRequest` to one SDK call and the
 * SDK's reply back to text, usage and model; submit, poll and read batches. Retries, rate limits,
 * pricing and the budget are NOT here: `../metered.ts` wraps every adapter the same way. The adapters
 * turn every SDK error into a `CallError` saying whether it is worth retrying and after how long.
 */
import type { ModelContract } from '../catalogue.ts';
import { requestIssues } from '../contract.ts';
import type { ModelRequest, StopInfo, Usage } from '../types.ts';

export interface RawReply {
  text: string;
  usage: Usage;
  /** the model that answered, as the provider names it */
  model: string;
  /** why the reply ended (complete, truncated at the token limit, a refusal, a safety stop) */
  stop: StopInfo;
  /** how long the provider's rate-limit headers ask every caller to wait (none left until a reset) */
  pauseMs?: number | null;
}

/**
 * The wait a successful reply's rate-limit headers imply: when no request (or token) is left in the
 * window, the time until it resets; else null.
 */
export function exhaustedPauseMs(headers: HeaderBag, now: number = Date.now()): number | null {
  for (const [remaining, reset] of [
    ['anthropic-ratelimit-requests-remaining', 'anthropic-ratelimit-requests-reset'],
    ['anthropic-ratelimit-tokens-remaining', 'anthropic-ratelimit-tokens-reset'],
    ['x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
    ['x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
  ] as const) {
    if (header(headers, remaining) !== '0') continue;
    const value = header(headers, reset);
    if (value === null) continue;
    const date = Date.parse(value);
    if (Number.isFinite(date) && /\d{4}-\d\d-\d\d/.test(value)) return Math.max(0, date - now);
    const duration = durationMs(value);
    if (duration !== null) return duration;
  }
  return null;
}

/**
 * The client options rge gives the Anthropic and OpenAI SDKs: no retries of their own (`../metered.ts`
 * retries, counting each attempt against the budget), the run's timeout, no logging.
 */
export function sdkClientOptions(opts: LiveAdapterOptions) {
  return {
    apiKey: opts.apiKey,
    ...(opts.baseURL ? { baseURL: opts.baseURL } : {}),
    maxRetries: 0,
    timeout: opts.timeoutMs,
    logLevel: 'off' as const,
  };
}

/** What every live adapter is built with. */
export interface LiveAdapterOptions {
  apiKey: string;
  baseURL?: string;
  timeoutMs: number;
  /** the model's contract: a request whose parameters it forbids is refused before it is sent */
  contract: ModelContract;
}

export interface BatchItem {
  customId: string;
  request: ModelRequest;
}

/**
 * What identifies a batch rge submitted, for a lookup at its provider: the tag it was submitted under
 * (OpenAI `metadata.rge_tag`, Gemini `displayName`), the custom-id prefix every one of its items
 * carries (how an Anthropic batch, which keeps no tag, is told once its results can be read), its size
 * and when its submission started.
 */
export interface TagQuery {
  tag: string;
  customIdPrefix: string;
  items: number;
  submittedAfterMs: number;
}

/** A batch found at a provider by a lookup (`BatchAdapter.findTagged`). */
export interface RemoteBatch {
  id: string;
  /** the query's tag it answers */
  tag: string;
  /**
   * false for an Anthropic batch still running that only its size and creation time tie to the query
   * (its custom ids can be read once it has ended); the batch runner checks its items when it collects
   */
  verified: boolean;
  createdMs: number;
  items: number;
  ended: boolean;
  state: string;
}

/** The slack a lookup allows between rge's clock and the provider's when it lists recent batches. */
export const LOOKUP_SLACK_MS = 60_000;

/** The earliest creation time a lookup for `queries` lists back to. */
export function lookupSince(queries: readonly TagQuery[]): number {
  return Math.min(...queries.map((q) => q.submittedAfterMs)) - LOOKUP_SLACK_MS;
}

export interface BatchProgress {
  /** true once the provider will process no more items (ended, expired, failed or cancelled) */
  ended: boolean;
  state: string;
  done: number;
  waiting: number;
  failed: number;
}

export type BatchItemResult =
  | { customId: string; ok: true; reply: RawReply }
  | { customId: string; ok: false; error: string; expired: boolean };

/** A file a provider keeps for a batch: its input (uploaded by rge), its output or error file (the provider's). */
export interface RemoteFile {
  id: string;
  kind: 'input' | 'output' | 'error';
}

/**
 * The files a provider keeps for batches until they are deleted (OpenAI's Files API; Anthropic and
 * Gemini keep none a client must delete).
 */
export interface BatchFiles {
  /** A batch's files: its input, and its output and error files once it has ended. */
  of(batchId: string, signal?: AbortSignal): Promise<RemoteFile[]>;
  /** The input files uploaded under `tag` (a submission cut short may have left one without a batch). */
  uploadedAs(tag: string, signal?: AbortSignal): Promise<RemoteFile[]>;
  /** Deletes a file; one already gone counts as deleted. */
  delete(fileId: string, signal?: AbortSignal): Promise<void>;
}

/**
 * Largest number of items and bytes of requests one batch of each provider may hold (the run's batches
 * and the dry run's batch plan split by them).
 */
export const BATCH_LIMITS = {
  anthropic: { items: 100_000, bytes: 200 * 1024 * 1024 },
  openai: { items: 50_000, bytes: 190 * 1024 * 1024 },
  /** inline requests are limited to 20 MB per batch */
  gemini: { items: 10_000, bytes: 18 * 1024 * 1024 },
} satisfies Record<string, { items: number; bytes: number }>;

/** A provider's batch limits, or null when its calls cannot go in a batch. */
export function batchLimitsOf(provider: string): { items: number; bytes: number } | null {
  return (BATCH_LIMITS as Record<string, { items: number; bytes: number }>)[provider] ?? null;
}

/** The batch API of a provider (Anthropic Message Batches, OpenAI Batch + Files, Gemini batch mode). */
export interface BatchAdapter {
  /** Largest number of items and bytes of requests one batch may hold. */
  readonly limits: { items: number; bytes: number };
  /** The files the provider keeps for its batches, where it keeps any. */
  readonly files?: BatchFiles;
  /**
   * Submits the items; `tag` is stored with the batch where the API allows, to find it after a crash.
   * Where the items go up as a file first, `onUpload` is told the file before the batch is created.
   */
  submit(
    items: readonly BatchItem[],
    tag: string,
    signal?: AbortSignal,
    onUpload?: (file: RemoteFile) => Promise<void>,
  ): Promise<string>;
  /**
   * The batches at the provider that answer the queries: created since the earliest submission (a
   * minute's slack for clocks), carrying a query's tag, or where the API keeps no tag (Anthropic), the
   * custom ids of a query's items (an ended batch), or its size and a creation time within ten minutes
   * of its submission (a running one: `verified` false). Batches are listed, not created: a lookup
   * costs nothing.
   */
  findTagged(queries: readonly TagQuery[], signal?: AbortSignal): Promise<RemoteBatch[]>;
  /** Asks the provider to cancel a batch (items already run are billed; one already ended stays so). */
  cancel(batchId: string, signal?: AbortSignal): Promise<void>;
  /** `items` is the batch's size, for providers whose status does not count items. */
  progress(batchId: string, items: number, signal?: AbortSignal): Promise<BatchProgress>;
  /** Per-item results of an ended batch; items missing from the provider's output come back as errors. */
  results(batchId: string, customIds: readonly string[], signal?: AbortSignal): Promise<BatchItemResult[]>;
}

export interface LiveAdapter {
  readonly provider: string;
  /** one call; throws `CallError` */
  complete(request: ModelRequest, signal?: AbortSignal): Promise<RawReply>;
  readonly batch?: BatchAdapter;
}

/**
 * Refuses, before anything is sent, a request that states a parameter the model's contract forbids: a
 * `CallError` not worth retrying, naming each parameter.
 */
export function refuseForbidden(contract: ModelContract, provider: string, request: ModelRequest): void {
  const refused = requestIssues(contract, provider, request.model, request.parameters);
  if (refused.length > 0)
    throw new CallError(`${provider}: not sent: ${refused.join('; ')}`, null, false, null);
}

/** A failed call, classified: whether another attempt may succeed and how long the provider asks to wait. */
export class CallError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null,
    /**
     * a batch create that may have been carried out all the same: sent, and not refused by an answer
     * (`createFailure`); its batch may exist
     */
    readonly outcomeUnknown = false,
  ) {
    super(message);
    this.name = 'CallError';
  }
}

/**
 * A failed batch create, as much as the client knows of it. A create the provider answered with a 4xx
 * was refused: no batch. Any other failure came after the request was sent (a timeout, a connection
 * lost or reset, an abort, a reply that could not be read, a 5xx of the provider or of a gateway before
 * it), and the batch may exist: `outcomeUnknown`, so that it is looked up before its items are asked
 * again. A create aborted before it was sent is refused by the adapter itself (`notSentIfAborted`).
 */
export function createFailure(err: Error): Error {
  if (!(err instanceof CallError) || (err.status !== null && err.status < 500)) return err;
  return new CallError(err.message, err.status, err.retryable, err.retryAfterMs, true);
}

/** Whether an error of a batch create leaves the batch's existence unknown (`createFailure`). */
export function outcomeUnknown(err: unknown): boolean {
  return err instanceof CallError && err.outcomeUnknown;
}

/** A create about to be sent under an aborted signal is not sent: a definite failure. */
export function notSentIfAborted(provider: string, signal?: AbortSignal): void {
  if (signal?.aborted)
    throw new CallError(`${provider}: aborted (the batch was not sent)`, null, false, null);
}

/** HTTP statuses worth another attempt: rate limits, server errors, overload (Anthropic 529), timeouts. */
export const RETRYABLE_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);

/** Response headers as the SDKs give them (fetch `Headers`), or a plain record. */
type HeaderBag = Headers | Record<string, string | undefined> | undefined;

/** A header's value, its name matched without case; an empty value counts as absent. */
function header(headers: HeaderBag, name: string): string | null {
  if (!headers) return null;
  let value: string | null | undefined;
  if (headers instanceof Headers) value = headers.get(name);
  else {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
    value = key === undefined ? null : headers[key];
  }
  return value === undefined || value === null || value.trim() === '' ? null : value;
}

/**
 * How long a provider asks a client to wait: `retry-after-ms`, else `retry-after` (seconds or an HTTP
 * date), else the rate-limit reset headers (`x-ratelimit-reset-requests` like "1s" / "6m0s"), else null.
 */
export function retryAfterMs(headers: HeaderBag, now: number = Date.now()): number | null {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = header(headers, 'retry-after');
  if (after !== null) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
    const reset = header(headers, name);
    const parsed = reset === null ? null : durationMs(reset);
    if (parsed !== null) return parsed;
  }
  const anthropicReset = header(headers, 'anthropic-ratelimit-requests-reset');
  if (anthropicReset !== null) {
    const date = Date.parse(anthropicReset);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return null;
}

/** Parses durations as providers write them: "20ms", "1.5s", "6m0s", "30s". */
export function durationMs(text: string): number | null {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let matched = false;
  for (const m of text.matchAll(re)) {
    matched = true;
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
  }
  return matched ? total : null;
}

/** Is this error an abort requested by our own signal (not a timeout)? */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return Boolean(signal?.aborted) || (err instanceof Error && /aborted|AbortError/i.test(err.name));
}

/**
 * The error classes a Stainless-generated SDK (`@anthropic-ai/sdk`, `openai`) exports, by role; both
 * SDKs' classes fit, so one classification serves both.
 */
export interface SdkErrorClasses {
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIError: abstract new (...args: never[]) => Error & { status: number | undefined; headers: HeaderBag };
}

/**
 * A `CallError` for an error of a Stainless SDK: our own abort (not retryable), a timeout or lost
 * connection (retryable), an HTTP status (retryable when `RETRYABLE_STATUSES` has it, with the wait the
 * headers ask for), else `replyOrUnknownError`.
 */
export function classifySdkError(
  provider: string,
  sdk: SdkErrorClasses,
  err: unknown,
  signal?: AbortSignal,
): Error {
  if (err instanceof CallError) return err;
  if (err instanceof sdk.APIUserAbortError || (isAbort(err, signal) && signal?.aborted))
    return new CallError(`${provider}: aborted`, null, false, null);
  if (err instanceof sdk.APIConnectionTimeoutError)
    return new CallError(`${provider}: request timed out`, null, true, null);
  if (err instanceof sdk.APIConnectionError)
    return new CallError(`${provider}: connection error (${err.message})`, null, true, null);
  if (err instanceof sdk.APIError)
    return statusError(provider, err.status ?? null, err.message, retryAfterMs(err.headers));
  return replyOrUnknownError(provider, err);
}

/** A `CallError` for an HTTP error status (null: none known, worth another attempt). */
export function statusError(
  provider: string,
  status: number | null,
  message: string,
  retryAfter: number | null,
): CallError {
  const retryable = status === null || RETRYABLE_STATUSES.has(status);
  return new CallError(`${provider} ${status ?? ''}: ${message}`, status, retryable, retryAfter);
}

/**
 * The last resort of every classification: a reply the SDK could not parse (malformed JSON) is transient
 * from our side (try again); anything else is not worth another attempt.
 */
export function replyOrUnknownError(provider: string, err: unknown): CallError {
  if (err instanceof SyntaxError)
    return new CallError(`${provider}: malformed reply (${err.message})`, null, true, null);
  return new CallError(`${provider}: ${err instanceof Error ? err.message : String(err)}`, null, false, null);
}

/** A token count as the SDKs type it (absent or null: none). */
type Count = number | null | undefined;

/** A provider's token counts; `inputIncludesCache`: its input count includes the cache reads (OpenAI, Gemini). */
export function replyUsage(
  counts: { input: Count; output: Count; cacheRead: Count; cacheWrite?: Count },
  inputIncludesCache: boolean,
): Usage {
  const cacheRead = counts.cacheRead ?? 0;
  const input = counts.input ?? 0;
  return {
    inputTokens: inputIncludesCache ? Math.max(0, input - cacheRead) : input,
    outputTokens: counts.output ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: counts.cacheWrite ?? 0,
  };
}

/**
 * The items read from a batch's results, by custom id; `inRequestOrder` gives them in the order of the
 * request, an item the provider left out counting as failed (`missing`: whether it counts as expired
 * and what to say).
 */
export class FoundItems {
  private readonly items = new Map<string, BatchItemResult>();

  done(customId: string, reply: RawReply): void {
    this.items.set(customId, { customId, ok: true, reply });
  }

  failed(customId: string, error: string, expired: boolean): void {
    this.items.set(customId, { customId, ok: false, expired, error });
  }

  inRequestOrder(
    customIds: readonly string[],
    missing: { expired: boolean; error: string },
  ): BatchItemResult[] {
    return customIds.map(
      (id) =>
        this.items.get(id) ?? { customId: id, ok: false, expired: missing.expired, error: missing.error },
    );
  }
}
