/**
 * Anthropic through `@anthropic-ai/sdk`: the Messages API and Message Batches.
 *
 * Prompt caching: the system prompt and the cacheable prefix of each message (`cacheBreak`: the
 * retrieved context, identical across the runs of a cell and the judge calls of a question) carry
 * `cache_control: ephemeral`. Structured output: `output_config.format` with the verdict's JSON Schema.
 * Anthropic has no seed parameter. The SDK's own retries are off (`maxRetries: 0`): rge retries every
 * provider the same way (`../metered.ts`).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatMessage, ModelRequest } from '../types.ts';
import {
  type BatchAdapter,
  type BatchHint,
  type BatchItem,
  type BatchItemResult,
  type BatchProgress,
  CallError,
  exhaustedPauseMs,
  isAbort,
  type LiveAdapter,
  type RawReply,
  RETRYABLE_STATUSES,
  retryAfterMs,
} from './adapter.ts';
import { strictJsonSchema } from './schema.ts';

export interface AnthropicAdapterOptions {
  apiKey: string;
  baseURL?: string;
  timeoutMs: number;
  acceptsTemperature: boolean;
  requestDefaults?: Record<string, unknown>;
}

const EPHEMERAL = { type: 'ephemeral' } as const;

function contentBlocks(m: ChatMessage): Anthropic.TextBlockParam[] {
  const cut = m.cacheBreak;
  if (cut === undefined || cut <= 0 || cut > m.content.length) return [{ type: 'text', text: m.content }];
  const head = m.content.slice(0, cut);
  const tail = m.content.slice(cut);
  return [
    { type: 'text', text: head, cache_control: EPHEMERAL },
    ...(tail.length > 0 ? [{ type: 'text' as const, text: tail }] : []),
  ];
}

export class AnthropicAdapter implements LiveAdapter {
  readonly provider = 'anthropic';
  private readonly client: Anthropic;
  readonly batch: BatchAdapter;

  constructor(private readonly opts: AnthropicAdapterOptions) {
    this.client = new Anthropic({
      apiKey: opts.apiKey,
      ...(opts.baseURL ? { baseURL: opts.baseURL } : {}),
      maxRetries: 0,
      timeout: opts.timeoutMs,
      logLevel: 'off',
    });
    this.batch = new AnthropicBatches(this.client, (r) => this.params(r));
  }

  params(request: ModelRequest): MessageCreateParamsNonStreaming {
    return {
      ...(this.opts.requestDefaults ?? {}),
      model: request.model,
      max_tokens: request.maxTokens,
      ...(this.opts.acceptsTemperature ? { temperature: request.temperature } : {}),
      system: [{ type: 'text', text: request.system, cache_control: EPHEMERAL }],
      messages: request.messages.map((m) => ({ role: m.role, content: contentBlocks(m) })),
      ...(request.jsonSchema
        ? { output_config: { format: { type: 'json_schema', schema: strictJsonSchema(request.jsonSchema) } } }
        : {}),
    } as MessageCreateParamsNonStreaming;
  }

  async complete(request: ModelRequest, signal?: AbortSignal): Promise<RawReply> {
    try {
      const { data, response } = await this.client.messages
        .create(this.params(request), signal ? { signal } : {})
        .withResponse();
      return { ...toReply(data), pauseMs: exhaustedPauseMs(response.headers) };
    } catch (err) {
      throw classify(err, signal);
    }
  }
}

export function toReply(message: Anthropic.Message): RawReply {
  const text = message.content
    .filter((b): b is Anthropic.TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const u = message.usage;
  return {
    text,
    model: message.model,
    usage: {
      inputTokens: u.input_tokens ?? 0,
      outputTokens: u.output_tokens ?? 0,
      cacheReadTokens: u.cache_read_input_tokens ?? 0,
      cacheWriteTokens: u.cache_creation_input_tokens ?? 0,
    },
  };
}

export function classify(err: unknown, signal?: AbortSignal): Error {
  if (err instanceof CallError) return err;
  if (err instanceof Anthropic.APIUserAbortError || (isAbort(err, signal) && signal?.aborted))
    return new CallError('anthropic: aborted', null, false, null);
  if (err instanceof Anthropic.APIConnectionTimeoutError)
    return new CallError('anthropic: request timed out', null, true, null);
  if (err instanceof Anthropic.APIConnectionError)
    return new CallError(`anthropic: connection error (${err.message})`, null, true, null);
  if (err instanceof Anthropic.APIError) {
    const status = err.status ?? null;
    const retryable = status === null || RETRYABLE_STATUSES.has(status);
    return new CallError(
      `anthropic ${status ?? ''}: ${err.message}`,
      status,
      retryable,
      retryAfterMs(err.headers),
    );
  }
  // A reply the SDK could not parse (malformed JSON) is transient from our side: try again.
  if (err instanceof SyntaxError)
    return new CallError(`anthropic: malformed reply (${err.message})`, null, true, null);
  return new CallError(`anthropic: ${err instanceof Error ? err.message : String(err)}`, null, false, null);
}

class AnthropicBatches implements BatchAdapter {
  readonly limits = { items: 100_000, bytes: 200 * 1024 * 1024 };

  constructor(
    private readonly client: Anthropic,
    private readonly params: (r: ModelRequest) => MessageCreateParamsNonStreaming,
  ) {}

  async submit(items: readonly BatchItem[], _tag: string, signal?: AbortSignal): Promise<string> {
    try {
      const batch = await this.client.messages.batches.create(
        { requests: items.map((i) => ({ custom_id: i.customId, params: this.params(i.request) })) },
        signal ? { signal } : {},
      );
      return batch.id;
    } catch (err) {
      throw classify(err, signal);
    }
  }

  /**
   * Message Batches keep no tag, so a batch lost between submit and record is looked for by its creation
   * time (from just before the submit to ten minutes after), its number of requests, and, once it has
   * ended, the custom-id prefix of its items; batches other records own are skipped. A batch still in
   * progress cannot be checked by its items; the batch runner checks them when it collects.
   */
  async findByTag(_tag: string, hint: BatchHint): Promise<string | null> {
    try {
      for await (const b of this.client.messages.batches.list({ limit: 100 })) {
        const created = Date.parse(b.created_at);
        if (created < hint.submittedAfterMs - 2_000) break;
        if (hint.exclude.has(b.id) || created > hint.submittedAfterMs + 600_000) continue;
        const c = b.request_counts;
        const total = c.processing + c.succeeded + c.errored + c.canceled + c.expired;
        if (total !== hint.items) continue;
        if (b.processing_status !== 'ended') return b.id;
        const decoder = await this.client.messages.batches.results(b.id);
        for await (const line of decoder) {
          if (line.custom_id.startsWith(hint.customIdPrefix)) return b.id;
          break;
        }
      }
      return null;
    } catch (err) {
      throw classify(err);
    }
  }

  async progress(batchId: string, _items: number, signal?: AbortSignal): Promise<BatchProgress> {
    try {
      const b = await this.client.messages.batches.retrieve(batchId, {}, signal ? { signal } : {});
      const c = b.request_counts;
      return {
        ended: b.processing_status === 'ended',
        state: b.processing_status,
        done: c.succeeded,
        waiting: c.processing,
        failed: c.errored + c.canceled + c.expired,
      };
    } catch (err) {
      throw classify(err, signal);
    }
  }

  async results(
    batchId: string,
    customIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<BatchItemResult[]> {
    const found = new Map<string, BatchItemResult>();
    try {
      const decoder = await this.client.messages.batches.results(batchId, {}, signal ? { signal } : {});
      for await (const line of decoder) {
        const r = line.result;
        if (r.type === 'succeeded')
          found.set(line.custom_id, { customId: line.custom_id, ok: true, reply: toReply(r.message) });
        else
          found.set(line.custom_id, {
            customId: line.custom_id,
            ok: false,
            expired: r.type === 'expired',
            error: r.type === 'errored' ? `errored: ${r.error.error.message}` : r.type,
          });
      }
    } catch (err) {
      throw classify(err, signal);
    }
    return customIds.map(
      (id) =>
        found.get(id) ?? { customId: id, ok: false, expired: false, error: 'missing from the batch results' },
    );
  }
}
