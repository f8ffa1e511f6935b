/**
 * Shared machinery of the loopback LLM servers (anthropic.ts, openai.ts, gemini.ts): the options and
 * records every server exposes, token counting, seeded fault decisions, the prompt-cache simulation, the
 * default reply generator, the sliding-window rate limiter, batch jobs, and the HTTP plumbing.
 *
 * The servers listen on 127.0.0.1 only and speak each provider's wire format closely enough that the
 * official SDKs work against them unchanged; nothing here talks to the network beyond loopback.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';
import seedrandom from 'seedrandom';

// ---------------------------------------------------------------------------------------------------
// Public types

export type Provider = 'anthropic' | 'openai' | 'gemini';

export interface LoopbackCall {
  provider: Provider;
  model: string;
  /** all system text joined with '\n' */
  system: string;
  /** text blocks of each turn joined with '\n' */
  messages: { role: 'user' | 'assistant'; text: string }[];
  /** the JSON schema requested, null for plain text */
  schema: unknown | null;
  temperature: number | null;
  seed: number | null;
  maxTokens: number | null;
  batch: boolean;
  /** batch item id (Anthropic custom_id, OpenAI custom_id, Gemini metadata.key) */
  customId: string | null;
  /** the `anthropic-version` the request (or its batch) was sent under; null for OpenAI and Gemini */
  apiVersion: string | null;
  /**
   * The request as received: Anthropic's Messages params, OpenAI's chat completions body, Gemini's whole
   * GenerateContentRequest (a batch item's own params or request)
   */
  body: Record<string, unknown>;
}

export interface LoopbackReply {
  text: string;
  /**
   * How the model's reply ends other than on its own: `refusal` (Anthropic `stop_reason: refusal`, an
   * OpenAI `refusal` message, Gemini `finishReason: SAFETY`) or `safety` (a content filter: OpenAI
   * `content_filter`, Gemini `SAFETY` without content; Anthropic has no filter stop and says `refusal`).
   */
  stop?: 'refusal' | 'safety';
}

export type FaultKind = '429' | '500' | '502' | '503' | '529' | 'timeout' | 'malformed-json' | 'bad-verdict';

export const ALL_FAULT_KINDS: readonly FaultKind[] = [
  '429',
  '500',
  '502',
  '503',
  '529',
  'timeout',
  'malformed-json',
  'bad-verdict',
];

export interface LoopbackOptions {
  /**
   * The expected key (Anthropic x-api-key or Authorization Bearer, OpenAI Authorization Bearer, Gemini
   * x-goog-api-key or ?key=); a wrong or missing key gets a 401 in the provider's error format.
   * Default: any non-empty key is accepted.
   */
  apiKey?: string;
  /** Produces the model's reply; default `defaultReply`. */
  respond?: (call: LoopbackCall) => LoopbackReply | Promise<LoopbackReply>;
  /** Delay before each sync reply the model produces (default 0); error faults answer at once. */
  latencyMs?: number | ((call: LoopbackCall) => number);
  /**
   * Each incoming sync model request independently (seeded PRNG over arrival order) gets a fault with
   * probability `rate`. 'bad-verdict' applies only to schema requests (a reply that is not a valid
   * verdict); 'malformed-json' is an HTTP 200 whose body is not valid JSON; 'timeout' holds the request
   * open until the client disconnects; '529' is Anthropic's overloaded error (others answer 503).
   */
  faults?: { rate: number; seed: string; kinds: FaultKind[] };
  /** Sent with injected 429/503/529 as `retry-after-ms` and, rounded up to seconds, `retry-after` (default 20). */
  retryAfterMs?: number;
  /**
   * Sliding-window limits (window default 60000 ms) on sync model requests: over the limit -> 429 with
   * retry-after (the time until the window frees enough room) and the provider's rate-limit headers.
   * `tpm` counts input tokens at admission plus output tokens once produced.
   */
  rateLimit?: { rpm?: number; tpm?: number; windowMs?: number };
  /** Smallest prompt prefix (tokens) that is cached (default 1024). */
  minCacheTokens?: number;
  /**
   * A batch ends `completeAfterMs` (default 30) after creation, whether or not anyone polls it: as at
   * the real APIs, the items of a batch whose client went away are still run and billed. Its completion
   * window is `windowMs` (default: none, it always completes; the real APIs' is 24 h): a batch due
   * after its window ends there, expired, with the items the provider got through by then (a share
   * `windowMs / completeAfterMs` of them, in order) run and billed and the rest expired. Items for which
   * `expire(customId)` is true come back expired; `failWholeBatch` fails every item.
   */
  /**
   * A test's outage of a route (OpenAI fake): a request for which it returns a status is answered with
   * that error, in the provider's format, instead of being served; e.g. batch creation failing after
   * the upload worked, or file deletion failing.
   */
  intercept?: (request: { method: string; path: string }) => number | null;
  batch?: {
    completeAfterMs?: number;
    windowMs?: number;
    expire?: (customId: string) => boolean;
    failWholeBatch?: boolean;
  };
}

/** What the server "charged" for one reply. `inputTokens` is uncached input (excludes cache reads and writes). */
export interface BilledCall {
  provider: string;
  model: string;
  batch: boolean;
  customId: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface RequestRecord {
  method: string;
  /** path and query string as received */
  path: string;
  /** the status answered; 0 while (or if never) answered */
  status: number;
  /** lower-cased header names */
  headers: Record<string, string>;
}

export interface LoopbackServer {
  /** the base URL a client passes to its SDK (OpenAI's includes `/v1`) */
  url: string;
  provider: Provider;
  /** every model call the server produced a reply for (sync and batch items) */
  calls: LoopbackCall[];
  /**
   * Sync replies whose body was fully written, and batch items once, when their batch ended: whether
   * or not its client ever came back for it (an abandoned batch is paid for), the items it got through
   * before its window closed when it expired. Never billed: injected error statuses, timeouts,
   * 'malformed-json' bodies, sync calls whose client went away before the reply, and expired, failed or
   * cancelled batch items. A 'bad-verdict' reply is billed: it is an ordinary reply, with usage, whose
   * text is wrong.
   */
  billed: BilledCall[];
  /** every HTTP request received */
  requests: RequestRecord[];
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// Tokens

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** cl100k_base token count; special-token strings count as ordinary text. */
export function countTokens(text: string): number {
  return text === '' ? 0 : encode(text, PLAIN_TEXT).length;
}

/** The first `maxTokens` cl100k tokens of `text`. */
export function truncateToTokens(text: string, maxTokens: number): string {
  return decode(encode(text, PLAIN_TEXT).slice(0, Math.max(0, maxTokens)));
}

// ---------------------------------------------------------------------------------------------------
// Prompts

/**
 * One cacheable unit of a prompt, in order: an Anthropic content block, or an OpenAI/Gemini message.
 * `cacheTtl` is set when the block carries an explicit `cache_control` breakpoint (Anthropic).
 */
export interface PromptSegment {
  text: string;
  tokens: number;
  cacheTtl: CacheTtl | null;
}

export type CacheTtl = '5m' | '1h';

export function promptSegment(text: string, cacheTtl: CacheTtl | null = null): PromptSegment {
  return { text, tokens: countTokens(text), cacheTtl };
}

/** A parsed model request: what `respond` sees, and the prompt as the cache sees it. */
export interface ModelTurn {
  call: LoopbackCall;
  segments: PromptSegment[];
}

export function inputTokensOf(turn: ModelTurn): number {
  return turn.segments.reduce((sum, s) => sum + s.tokens, 0);
}

/** All user text of a call, turns joined with '\n'. */
export function userTextOf(call: LoopbackCall): string {
  return call.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.text)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Cache simulation

/** How a provider caches: explicit breakpoints (Anthropic) or automatic prefixes (OpenAI rounds to 128). */
export type CacheMode = 'explicit' | 'automatic-128' | 'automatic';

export interface InputAccounting {
  /** every input token, cached or not */
  total: number;
  /** input tokens neither read from nor written to the cache */
  uncached: number;
  cacheRead: number;
  cacheWrite: number;
  /** the TTL of the breakpoint that wrote (Anthropic) */
  cacheWriteTtl: CacheTtl;
}

/**
 * An in-memory prompt cache keyed by model and prefix. Prefix identities are chained SHA-256 hashes over
 * the segments, so a prefix of n segments costs one hash step, not a rehash of the whole prefix.
 *
 * - explicit: the longest prefix ending at a `cache_control` block seen before is read; the longest
 *   marked prefix not seen before, longer than the read one and at least `minTokens`, is written (minus
 *   the read part); every marked prefix of at least `minTokens` is remembered.
 * - automatic: when the prompt has at least `minTokens`, the longest prefix (message granularity) seen
 *   before counts as cached, rounded down to a multiple of 128 in 'automatic-128'; every prefix of every
 *   prompt is remembered.
 */
export class PromptCache {
  private readonly seen = new Set<string>();

  constructor(
    private readonly mode: CacheMode,
    private readonly minTokens: number,
  ) {}

  account(model: string, segments: PromptSegment[]): InputAccounting {
    const prefixes = this.prefixes(model, segments);
    const total = prefixes.at(-1)?.tokens ?? 0;
    return this.mode === 'explicit' ? this.explicit(prefixes, total) : this.automatic(prefixes, total);
  }

  private prefixes(model: string, segments: PromptSegment[]): Prefix[] {
    let hash = sha256Hex(`model\u0000${model}`);
    let tokens = 0;
    return segments.map((segment) => {
      hash = sha256Hex(`${hash}\u0000${segment.text}`);
      tokens += segment.tokens;
      return { hash, tokens, cacheTtl: segment.cacheTtl };
    });
  }

  private explicit(prefixes: Prefix[], total: number): InputAccounting {
    const marked = prefixes.filter((p) => p.cacheTtl !== null);
    const cacheRead = Math.max(0, ...marked.filter((p) => this.seen.has(p.hash)).map((p) => p.tokens));
    const written = marked
      .filter((p) => !this.seen.has(p.hash) && p.tokens >= this.minTokens && p.tokens > cacheRead)
      .at(-1);
    for (const p of marked) if (p.tokens >= this.minTokens) this.seen.add(p.hash);
    const cacheWrite = written ? written.tokens - cacheRead : 0;
    return {
      total,
      uncached: total - cacheRead - cacheWrite,
      cacheRead,
      cacheWrite,
      cacheWriteTtl: written?.cacheTtl ?? '5m',
    };
  }

  private automatic(prefixes: Prefix[], total: number): InputAccounting {
    let cached = 0;
    if (total >= this.minTokens) {
      cached = Math.max(0, ...prefixes.filter((p) => this.seen.has(p.hash)).map((p) => p.tokens));
      if (this.mode === 'automatic-128') cached -= cached % 128;
    }
    for (const p of prefixes) this.seen.add(p.hash);
    return { total, uncached: total - cached, cacheRead: cached, cacheWrite: 0, cacheWriteTtl: '5m' };
  }
}

interface Prefix {
  hash: string;
  tokens: number;
  cacheTtl: CacheTtl | null;
}

// ---------------------------------------------------------------------------------------------------
// Faults

/**
 * Seeded fault decisions over arrival order: every arriving sync model request draws exactly two numbers
 * (whether, and which), so request n gets the same decision whatever happened to requests before it.
 */
export class FaultPlan {
  private readonly random: (() => number) | null;

  constructor(
    private readonly faults: LoopbackOptions['faults'],
    provider: Provider,
  ) {
    this.random =
      faults && faults.rate > 0 && faults.kinds.length > 0 ? seedrandom(`${faults.seed}:${provider}`) : null;
  }

  /** The raw fault drawn for the next arriving request, before it is known whether it asks for a schema. */
  next(): FaultKind | null {
    if (!this.random || !this.faults) return null;
    const hit = this.random() < this.faults.rate;
    const pick = this.faults.kinds[Math.floor(this.random() * this.faults.kinds.length)] ?? null;
    return hit ? pick : null;
  }
}

/** The fault as it applies to one call: 'bad-verdict' needs a schema; '529' is Anthropic's alone. */
export function effectiveFault(fault: FaultKind | null, call: LoopbackCall): FaultKind | null {
  if (fault === 'bad-verdict' && call.schema === null) return null;
  if (fault === '529' && call.provider !== 'anthropic') return '503';
  return fault;
}

/** A reply that is not a valid verdict: the real reply cut in half, or prose (chosen by the user text). */
export function corruptVerdict(text: string, call: LoopbackCall): string {
  const variant = hashBytes(userTextOf(call))[0] ?? 0;
  if (variant % 2 === 0 && text.length > 2) return text.slice(0, Math.floor(text.length / 2));
  return 'Overall the answer looks mostly right to me, so I would give it a 2 on every dimension.';
}

// ---------------------------------------------------------------------------------------------------
// Rate limiting

export interface RateLimitSnapshot {
  requestsLimit: number | null;
  requestsRemaining: number;
  tokensLimit: number | null;
  tokensRemaining: number;
  /** ms until the window holds no request or token of now */
  resetMs: number;
}

export type Admission =
  | { admitted: true; entry: { addTokens(tokens: number): void }; snapshot: RateLimitSnapshot }
  | { admitted: false; retryAfterMs: number; snapshot: RateLimitSnapshot };

interface WindowEntry {
  at: number;
  tokens: number;
}

/** Requests and tokens per sliding window; only admitted requests count. */
export class SlidingWindowLimiter {
  private entries: WindowEntry[] = [];
  private readonly windowMs: number;

  constructor(private readonly limits: NonNullable<LoopbackOptions['rateLimit']>) {
    this.windowMs = limits.windowMs ?? 60_000;
  }

  admit(now: number, inputTokens: number): Admission {
    this.entries = this.entries.filter((e) => e.at + this.windowMs > now);
    const { rpm, tpm } = this.limits;
    let retryAfterMs = 0;
    if (rpm !== undefined && this.entries.length + 1 > rpm) {
      const freeing = this.entries[this.entries.length - rpm];
      retryAfterMs = Math.max(retryAfterMs, freeing ? freeing.at + this.windowMs - now : this.windowMs);
    }
    if (tpm !== undefined && this.usedTokens() + inputTokens > tpm) {
      retryAfterMs = Math.max(
        retryAfterMs,
        this.msUntilTokensFree(now, this.usedTokens() + inputTokens - tpm),
      );
    }
    if (retryAfterMs > 0) return { admitted: false, retryAfterMs, snapshot: this.snapshot(now) };
    const entry: WindowEntry = { at: now, tokens: inputTokens };
    this.entries.push(entry);
    return {
      admitted: true,
      entry: {
        addTokens: (tokens) => {
          entry.tokens += tokens;
        },
      },
      snapshot: this.snapshot(now),
    };
  }

  private usedTokens(): number {
    return this.entries.reduce((sum, e) => sum + e.tokens, 0);
  }

  private msUntilTokensFree(now: number, excess: number): number {
    let freed = 0;
    for (const e of this.entries) {
      freed += e.tokens;
      if (freed >= excess) return Math.max(1, e.at + this.windowMs - now);
    }
    return this.windowMs;
  }

  private snapshot(now: number): RateLimitSnapshot {
    const { rpm, tpm } = this.limits;
    const newest = this.entries.at(-1);
    return {
      requestsLimit: rpm ?? null,
      requestsRemaining: rpm === undefined ? 0 : Math.max(0, rpm - this.entries.length),
      tokensLimit: tpm ?? null,
      tokensRemaining: tpm === undefined ? 0 : Math.max(0, tpm - this.usedTokens()),
      resetMs: newest ? Math.max(0, newest.at + this.windowMs - now) : 0,
    };
  }
}

/** `retry-after-ms` and `retry-after` (whole seconds, rounded up) for a wait of `ms`. */
export function retryAfterHeaders(ms: number): Record<string, string> {
  return {
    'retry-after-ms': String(Math.ceil(ms)),
    'retry-after': String(Math.max(1, Math.ceil(ms / 1000))),
  };
}

// ---------------------------------------------------------------------------------------------------
// Default replies

/** `[some-id-FY24-1a2b3c4d] (Company, FY24, p. 3, Heading)` on a line of its own. */
const PASSAGE_HEADER = /^\[([^\]\s]+)\]\s+\(([^)]*)\)\s*$/;

export interface ContextPassage {
  id: string;
  /** the passage's lines up to the next blank line or header, trimmed */
  lines: string[];
}

/** The first context passage of a prompt text, or null when it has none. */
export function firstPassage(text: string): ContextPassage | null {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  for (const [i, line] of lines.entries()) {
    const header = PASSAGE_HEADER.exec(line);
    if (!header?.[1]) continue;
    const body: string[] = [];
    for (const next of lines.slice(i + 1)) {
      if (next === '' ? body.length > 0 : PASSAGE_HEADER.test(next)) break;
      if (next !== '') body.push(next);
    }
    return { id: header[1], lines: body };
  }
  return null;
}

/** The first sentence of a text (a stop followed by a capital starts the next), at most `maxWords` words. */
export function firstSentence(text: string, maxWords = 40): string {
  const sentence = text.split(/(?<=[.!?])\s+(?=[A-Z"'(])/)[0] ?? '';
  const words = sentence.split(/\s+/).filter(Boolean);
  return words
    .slice(0, maxWords)
    .join(' ')
    .replace(/[\s.!?;:,]+$/, '');
}

/** A verbatim substring of `line`: its first `maxWords` words, original spacing kept. */
function quoteOf(line: string, maxWords = 12): string {
  const match = new RegExp(`^\\S+(?:\\s+\\S+){0,${maxWords - 1}}`).exec(line.trim());
  return match?.[0] ?? '';
}

export const NO_ANSWER = 'The provided context does not state this.';

/**
 * The default model: a subject (no schema) answers with the first sentence of the first context passage
 * and cites it; a judge (schema) returns a verdict whose scores come from a hash of the user text, or,
 * for a schema that is not the verdict's, the simplest instance of that schema.
 */
export function defaultReply(call: LoopbackCall): LoopbackReply {
  const userText = userTextOf(call);
  if (call.schema !== null) {
    const value = isVerdictSchema(call.schema) ? verdictFor(userText) : exampleOfSchema(call.schema);
    return { text: JSON.stringify(value) };
  }
  const passage = firstPassage(userText);
  const sentence = passage ? firstSentence(passage.lines.join(' ')) : '';
  if (!passage || sentence === '') return { text: NO_ANSWER };
  return { text: `According to the report, ${sentence} [${passage.id}].` };
}

export interface DimensionVerdict {
  evidence: string[];
  rationale: string;
  score: 0 | 1 | 2;
}

export interface Verdict {
  correctness: DimensionVerdict;
  grounding: DimensionVerdict;
  calibration: DimensionVerdict;
  unsupported_claims: string[];
}

const RATIONALES = {
  correctness: [
    'The answer contradicts or misses the gold answer.',
    'The answer is partly right but misses part of the gold answer.',
    'The answer states the gold answer.',
  ],
  grounding: [
    'The answer is not supported by the retrieved chunks.',
    'Part of the answer is supported by the retrieved chunks.',
    'Every claim is supported by a cited chunk.',
  ],
  calibration: [
    'The confidence of the answer does not match the evidence.',
    'The confidence of the answer partly matches the evidence.',
    'The confidence of the answer matches the evidence.',
  ],
} as const;

/** A verdict for the judge schema: evidence, then rationale, then a score (0/1/2 from a hash of the text). */
export function verdictFor(userText: string): Verdict {
  const digest = hashBytes(userText);
  const score = (i: number): 0 | 1 | 2 => ((digest[i] ?? 0) % 3) as 0 | 1 | 2;
  const passage = firstPassage(userText);
  const quoteLine = passage?.lines[0] ?? userText.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  const quote = quoteOf(quoteLine);
  const dimension = (name: keyof typeof RATIONALES, i: number, evidence: string[]): DimensionVerdict => {
    const s = score(i);
    return { evidence, rationale: RATIONALES[name][s], score: s };
  };
  return {
    correctness: dimension('correctness', 0, quote ? [quote] : []),
    grounding: dimension('grounding', 1, []),
    calibration: dimension('calibration', 2, []),
    unsupported_claims: [],
  };
}

/** A schema is the verdict's when it names `correctness`, or names no properties at all. */
function isVerdictSchema(schema: unknown): boolean {
  if (!isRecord(schema)) return true;
  const properties = schema.properties;
  return !isRecord(properties) || 'correctness' in properties;
}

/** The simplest value of a JSON Schema (or Gemini Schema, whose types are upper case). */
export function exampleOfSchema(schema: unknown, depth = 0): unknown {
  if (!isRecord(schema) || depth > 16) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    const nonNull = alternatives.find((a) => !(isRecord(a) && String(a.type).toLowerCase() === 'null'));
    return exampleOfSchema(nonNull ?? alternatives[0], depth + 1);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.map((t) => String(t).toLowerCase()).find((t) => t !== 'null') ?? 'object';
  switch (type) {
    case 'string':
      return 'example';
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: min }, () => exampleOfSchema(schema.items, depth + 1));
    }
    default: {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      return Object.fromEntries(
        Object.entries(properties).map(([key, sub]) => [key, exampleOfSchema(sub, depth + 1)]),
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Server state: replies, billing, options

export interface ProducedReply {
  text: string;
  /** 'max_tokens' when the reply was cut at the call's token limit */
  stop: 'end' | 'max_tokens' | 'refusal' | 'safety';
  input: InputAccounting;
  outputTokens: number;
}

/** The per-server state every route shares. */
export class LoopbackState {
  readonly calls: LoopbackCall[] = [];
  readonly billed: BilledCall[] = [];
  readonly requests: RequestRecord[] = [];
  readonly faults: FaultPlan;
  readonly cache: PromptCache;
  readonly limiter: SlidingWindowLimiter | null;

  constructor(
    readonly provider: Provider,
    readonly options: LoopbackOptions,
    cacheMode: CacheMode,
  ) {
    this.faults = new FaultPlan(options.faults, provider);
    this.cache = new PromptCache(cacheMode, options.minCacheTokens ?? 1024);
    this.limiter = options.rateLimit ? new SlidingWindowLimiter(options.rateLimit) : null;
  }

  /** Whether a presented key is accepted. */
  acceptsKey(key: string | null | undefined): boolean {
    if (!key) return false;
    return this.options.apiKey === undefined || key === this.options.apiKey;
  }

  latencyFor(call: LoopbackCall): number {
    const latency = this.options.latencyMs ?? 0;
    return typeof latency === 'function' ? latency(call) : latency;
  }

  get retryAfterMs(): number {
    return this.options.retryAfterMs ?? 20;
  }

  get batchCompleteAfterMs(): number {
    return this.options.batch?.completeAfterMs ?? 30;
  }

  private readonly timers = new Set<NodeJS.Timeout>();

  /** Runs `fn` in `ms` (a batch's clock), unless the server is closed first. */
  later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** Stops every clock (the server is closing). */
  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * Runs the model for a turn: the reply (corrupted under 'bad-verdict'), cut at the token limit, with
   * its input accounted by the cache simulation. Records the call; throws what `respond` throws.
   */
  async produce(turn: ModelTurn, fault: FaultKind | null = null): Promise<ProducedReply> {
    const respond = this.options.respond ?? defaultReply;
    const reply = await respond(turn.call);
    this.calls.push(turn.call);
    let text = fault === 'bad-verdict' ? corruptVerdict(reply.text, turn.call) : reply.text;
    let outputTokens = countTokens(text);
    let stop: ProducedReply['stop'] = reply.stop ?? 'end';
    const max = turn.call.maxTokens;
    if (max !== null && outputTokens > max) {
      text = truncateToTokens(text, max);
      outputTokens = max;
      stop = 'max_tokens';
    }
    return { text, stop, input: this.cache.account(turn.call.model, turn.segments), outputTokens };
  }

  bill(call: LoopbackCall, reply: ProducedReply): void {
    this.billed.push({
      provider: call.provider,
      model: call.model,
      batch: call.batch,
      customId: call.customId,
      inputTokens: reply.input.uncached,
      outputTokens: reply.outputTokens,
      cacheReadTokens: reply.input.cacheRead,
      cacheWriteTokens: reply.input.cacheWrite,
    });
  }
}

// ---------------------------------------------------------------------------------------------------
// Sync model calls

/** Provider-neutral error kinds; each server maps them to its own status text and body. */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'not_found'
  | 'rate_limit'
  | 'internal'
  | 'bad_gateway'
  | 'unavailable'
  | 'overloaded';

/** What a provider contributes to serving one sync model call. */
export interface SyncCallRenderer {
  error(
    ex: HttpExchange,
    status: number,
    kind: ErrorKind,
    message: string,
    headers?: Record<string, string>,
  ): void;
  /** the provider's rate-limit headers for a snapshot (empty when it sends none) */
  rateLimitHeaders(snapshot: RateLimitSnapshot): Record<string, string>;
  /** the provider's response body for a produced reply */
  render(turn: ModelTurn, reply: ProducedReply): unknown;
  /** headers of a successful reply, such as a request id */
  replyHeaders?(): Record<string, string>;
}

const FAULT_ERRORS: Partial<Record<FaultKind, { status: number; kind: ErrorKind; message: string }>> = {
  '429': { status: 429, kind: 'rate_limit', message: 'Rate limit exceeded (injected fault).' },
  '500': { status: 500, kind: 'internal', message: 'Internal server error (injected fault).' },
  '502': { status: 502, kind: 'bad_gateway', message: 'Bad gateway (injected fault).' },
  '503': { status: 503, kind: 'unavailable', message: 'Service unavailable (injected fault).' },
  '529': { status: 529, kind: 'overloaded', message: 'Overloaded (injected fault).' },
};

/**
 * Serves one sync model call after its request was parsed: rate limit, the fault drawn at arrival,
 * latency, the reply, and billing once the body is fully written.
 */
export async function serveSyncCall(
  state: LoopbackState,
  ex: HttpExchange,
  turn: ModelTurn,
  drawnFault: FaultKind | null,
  renderer: SyncCallRenderer,
): Promise<void> {
  let rateHeaders: Record<string, string> = {};
  let admitted: { addTokens(tokens: number): void } | null = null;
  if (state.limiter) {
    const admission = state.limiter.admit(Date.now(), inputTokensOf(turn));
    rateHeaders = renderer.rateLimitHeaders(admission.snapshot);
    if (!admission.admitted) {
      const headers = { ...rateHeaders, ...retryAfterHeaders(admission.retryAfterMs) };
      renderer.error(
        ex,
        429,
        'rate_limit',
        'Rate limit exceeded: too many requests or tokens per window.',
        headers,
      );
      return;
    }
    admitted = admission.entry;
  }

  const fault = effectiveFault(drawnFault, turn.call);
  const faultError = fault ? FAULT_ERRORS[fault] : undefined;
  if (faultError) {
    const retry =
      faultError.status === 429 || faultError.status >= 503 ? retryAfterHeaders(state.retryAfterMs) : {};
    renderer.error(ex, faultError.status, faultError.kind, faultError.message, { ...rateHeaders, ...retry });
    return;
  }
  if (fault === 'timeout') {
    await untilClosed(ex.res);
    return;
  }

  const latency = state.latencyFor(turn.call);
  if (latency > 0 && !(await sleepUnlessClosed(latency, ex.res))) return;

  let reply: ProducedReply;
  try {
    reply = await state.produce(turn, fault);
  } catch (err) {
    renderer.error(ex, 500, 'internal', `The loopback respond() hook failed: ${errorText(err)}`, rateHeaders);
    return;
  }
  admitted?.addTokens(reply.outputTokens);
  const body = JSON.stringify(renderer.render(turn, reply));
  const headers = { ...rateHeaders, ...renderer.replyHeaders?.() };
  if (ex.res.destroyed) return;
  if (fault === 'malformed-json') {
    const cut = body.slice(0, Math.max(1, Math.floor(body.length / 2)));
    sendRaw(ex.res, 200, cut, 'application/json', headers);
    return;
  }
  ex.res.once('finish', () => state.bill(turn.call, reply));
  sendRaw(ex.res, 200, body, 'application/json', headers);
}

// ---------------------------------------------------------------------------------------------------
// Batches

export interface BatchEntry {
  customId: string;
  /** null when the item's request was invalid; `invalid` says why */
  turn: ModelTurn | null;
  invalid: string | null;
}

export type BatchOutcome =
  | { kind: 'succeeded'; turn: ModelTurn; reply: ProducedReply }
  | { kind: 'errored'; message: string; cause: 'invalid_request' | 'batch_failed' | 'internal' }
  | { kind: 'expired' }
  | { kind: 'canceled' };

/**
 * One batch job of any provider: items are run (sequentially, through the same cache simulation) when
 * the job is due, on its own clock or when it is first looked at after that, and billed then, once.
 */
export class BatchJob<Meta> {
  readonly createdAt = Date.now();
  cancelRequestedAt: number | null = null;
  endedAt: number | null = null;
  outcomes: BatchOutcome[] | null = null;
  /** set when the whole batch failed (`failWholeBatch`) */
  failed = false;
  /** how many times the job was read before it ended (OpenAI shows 'validating' only at creation) */
  reads = 0;
  private settling: Promise<void> | null = null;
  /** when the job ends: done, or its completion window over */
  private readonly dueAfterMs: number;
  /** how many items, in order, the provider gets through before the job ends (the rest expire) */
  private readonly processed: number;

  constructor(
    readonly id: string,
    readonly entries: BatchEntry[],
    readonly meta: Meta,
    private readonly state: LoopbackState,
  ) {
    const complete = state.batchCompleteAfterMs;
    const window = state.options.batch?.windowMs ?? Number.POSITIVE_INFINITY;
    this.dueAfterMs = Math.min(complete, window);
    this.processed =
      window >= complete ? entries.length : Math.floor((entries.length * window) / Math.max(1, complete));
    // the provider runs the batch whether or not its client comes back for it
    state.later(this.dueAfterMs, () => {
      if (!this.ended) this.settling ??= this.run(state);
    });
  }

  get ended(): boolean {
    return this.outcomes !== null;
  }

  /** Ends the job if it is due (time is up, or a cancel was asked for); idempotent. */
  settle(state: LoopbackState = this.state): Promise<void> {
    if (this.ended) return Promise.resolve();
    const due = this.cancelRequestedAt !== null || Date.now() >= this.createdAt + this.dueAfterMs;
    if (!due) {
      this.reads += 1;
      return Promise.resolve();
    }
    this.settling ??= this.run(state);
    return this.settling;
  }

  private async run(state: LoopbackState): Promise<void> {
    const outcomes: BatchOutcome[] = [];
    const failWhole = state.options.batch?.failWholeBatch === true;
    const expire = state.options.batch?.expire;
    for (const [i, entry] of this.entries.entries()) {
      if (this.cancelRequestedAt !== null) outcomes.push({ kind: 'canceled' });
      else if (failWhole)
        outcomes.push({
          kind: 'errored',
          cause: 'batch_failed',
          message: 'The batch failed (loopback failWholeBatch).',
        });
      else if (!entry.turn)
        outcomes.push({
          kind: 'errored',
          cause: 'invalid_request',
          message: entry.invalid ?? 'Invalid request.',
        });
      else if (i >= this.processed || expire?.(entry.customId)) outcomes.push({ kind: 'expired' });
      else {
        try {
          const reply = await state.produce(entry.turn);
          state.bill(entry.turn.call, reply);
          outcomes.push({ kind: 'succeeded', turn: entry.turn, reply });
        } catch (err) {
          outcomes.push({
            kind: 'errored',
            cause: 'internal',
            message: `respond() failed: ${errorText(err)}`,
          });
        }
      }
    }
    this.failed = failWhole && this.cancelRequestedAt === null;
    this.endedAt = Date.now();
    this.outcomes = outcomes;
  }

  count(kind: BatchOutcome['kind']): number {
    return this.outcomes?.filter((o) => o.kind === kind).length ?? 0;
  }
}

/** Settles every due job of a store, newest first as lists show them. */
export async function settleAll<Meta>(jobs: Map<string, BatchJob<Meta>>, state: LoopbackState) {
  const newestFirst = [...jobs.values()].reverse();
  for (const job of newestFirst) await job.settle(state);
  return newestFirst;
}

// ---------------------------------------------------------------------------------------------------
// HTTP plumbing

export interface HttpExchange {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  url: URL;
  /** the request body, read in full before routing */
  body: Buffer;
  /** the server's own origin, e.g. http://127.0.0.1:PORT */
  origin: string;
}

export interface RunningHttpServer {
  origin: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Listens on 127.0.0.1 (free port), records every request into `state.requests`, reads each body in
 * full, then hands the exchange to `handle`; a handler that throws gets `onCrash` (a 500 in the
 * provider's format) if nothing was sent yet. `close()` also ends keep-alive and held connections.
 */
export async function listenLoopback(
  state: LoopbackState,
  handle: (ex: HttpExchange) => Promise<void>,
  onCrash: (ex: HttpExchange, err: unknown) => void,
): Promise<RunningHttpServer> {
  let origin = '';
  const server = createServer((req, res) => {
    const record: RequestRecord = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      status: 0,
      headers: flattenHeaders(req),
    };
    state.requests.push(record);
    res.once('finish', () => {
      record.status = res.statusCode;
    });
    void (async () => {
      const body = await readBody(req);
      if (body === null) {
        res.destroy();
        return;
      }
      const ex: HttpExchange = {
        req,
        res,
        method: record.method,
        url: new URL(record.path, origin),
        body,
        origin,
      };
      try {
        await handle(ex);
      } catch (err) {
        if (!res.headersSent) onCrash(ex, err);
        else res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        state.dispose();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** The whole request body, or null when the client went away or sent too much. */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(null));
    req.on('aborted', () => resolve(null));
  });
}

export type JsonBody = { ok: true; value: unknown } | { ok: false; error: string };

export function parseJsonBody(body: Buffer): JsonBody {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch (err) {
    return { ok: false, error: errorText(err) };
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  sendRaw(res, status, JSON.stringify(body), 'application/json', headers);
}

export function sendRaw(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': String(bytes.length) });
  res.end(bytes);
}

/** Resolves when the response's connection closes (a client that gave up, or the server closing). */
export function untilClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => res.once('close', () => resolve()));
}

/** Waits `ms`; false when the client went away first. */
export function sleepUnlessClosed(ms: number, res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    res.once('close', onClose);
  });
}

/** The bearer token of an Authorization header. */
export function bearerToken(ex: HttpExchange): string | null {
  const match = /^Bearer\s+(.+)$/i.exec(ex.req.headers.authorization ?? '');
  return match?.[1]?.trim() ?? null;
}

// ---------------------------------------------------------------------------------------------------
// Small helpers

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

export function numberOr<T>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** `prefix` + random hex (2 chars per byte). */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

export function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

export function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function hashBytes(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Pages `items` by a cursor id: `after` starts past it, `before` ends before it. */
export function pageById<T extends { id: string }>(
  items: T[],
  opts: { after?: string | null; before?: string | null; limit: number },
): { page: T[]; hasMore: boolean } {
  if (opts.before) {
    const end = Math.max(
      0,
      items.findIndex((i) => i.id === opts.before),
    );
    const start = Math.max(0, end - opts.limit);
    return { page: items.slice(start, end), hasMore: start > 0 };
  }
  const start = opts.after ? items.findIndex((i) => i.id === opts.after) + 1 : 0;
  const page = items.slice(start, start + opts.limit);
  return { page, hasMore: start + opts.limit < items.length };
}

/** A limit query parameter clamped to [1, max], or the default. */
export function limitParam(url: URL, fallback: number, max: number): number {
  const raw = Number(url.searchParams.get('limit') ?? url.searchParams.get('pageSize') ?? Number.NaN);
  return Number.isInteger(raw) && raw > 0 ? Math.min(raw, max) : fallback;
}
