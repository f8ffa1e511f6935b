/**
 * Anthropic through `@anthropic-ai/sdk`: the Messages API and Message Batches, under the API version the
 * pinned SDK sends (`anthropic-version: 2026-10-21`, `ANTHROPIC_API_VERSION`), which refuses every sampling
 * parameter: a request carries no temperature, top_p or top_k, and one that asks for them is refused here
 * before it is sent (`ModelContract`, src/providers/contract.ts).
 *
 * Prompt caching: the system prompt and the cacheable prefix of each message (`cacheBreak`: the
 * retrieved context, identical across the runs of a cell and the judge calls of a question) carry
 * `cache_control: ephemeral`. Structured output: `output_config.format` with the verdict's JSON Schema.
 * Anthropic has no seed parameter. The SDK's own retries are off (`maxRetries: 0`): rge retries every
 * provider the same way (`../metered.ts`). The request is built as the SDK's own param type, field by
 * field, so a field the SDK drops or renames fails the type check.
 */
import Anthropic from '@anthropic-ai/sdk';
import type {
  CacheControlEphemeral,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  StopReason,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelContract } from '../catalogue.ts';
import type { ChatMessage, ModelRequest, StopInfo } from '../types.ts';
import * as live from './adapter.ts';
import { strictJsonSchema } from './schema.ts';

export type AnthropicAdapterOptions = live.LiveAdapterOptions;

const EPHEMERAL: CacheControlEphemeral = { type: 'ephemeral' };

function contentBlocks(m: ChatMessage): TextBlockParam[] {
  const cut = m.cacheBreak;
  if (cut === undefined || cut <= 0 || cut > m.content.length) return [{ type: 'text', text: m.content }];
  const head: TextBlockParam = { type: 'text', text: m.content.slice(0, cut), cache_control: EPHEMERAL };
  const tail = m.content.slice(cut);
  return tail.length > 0 ? [head, { type: 'text', text: tail }] : [head];
}

function messageParam(m: ChatMessage): MessageParam {
  return m.role === 'user'
    ? { role: 'user', content: contentBlocks(m) }
    : { role: 'assistant', content: contentBlocks(m) };
}

/**
 * The Messages API request of a `ModelRequest`, as the SDK types it. Throws a `CallError` (not worth
 * retrying) for parameters the model's contract forbids: under API version 2026-10-21 any sampling
 * parameter would be a 400.
 */
export function messageParams(
  request: ModelRequest,
  contract: ModelContract,
): MessageCreateParamsNonStreaming {
  live.refuseForbidden(contract, 'anthropic', request);
  const params: MessageCreateParamsNonStreaming = {
    model: request.model,
    max_tokens: request.maxTokens,
    system: [{ type: 'text', text: request.system, cache_control: EPHEMERAL }],
    messages: request.messages.map(messageParam),
  };
  if (request.jsonSchema)
    params.output_config = { format: { type: 'json_schema', schema: strictJsonSchema(request.jsonSchema) } };
  return params;
}

export class AnthropicAdapter implements live.LiveAdapter {
  readonly provider = 'anthropic';
  /** Message Batches, through the same client and request mapping */
  readonly batch: live.BatchAdapter;
  private readonly client: Anthropic;

  constructor(private readonly opts: AnthropicAdapterOptions) {
    this.client = new Anthropic(live.sdkClientOptions(opts));
    this.batch = new AnthropicBatches(this.client, (r) => this.params(r));
  }

  params(request: ModelRequest): MessageCreateParamsNonStreaming {
    return messageParams(request, this.opts.contract);
  }

  async complete(request: ModelRequest, signal?: AbortSignal): Promise<live.RawReply> {
    try {
      const { data, response } = await this.client.messages
        .create(this.params(request), signal ? { signal } : {})
        .withResponse();
      return { ...toReply(data), pauseMs: live.exhaustedPauseMs(response.headers) };
    } catch (err) {
      throw classify(err, signal);
    }
  }
}

/** rge's stop kind of an Anthropic `stop_reason`. */
export function anthropicStop(reason: StopReason | null): StopInfo {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return { kind: 'complete', reason };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { kind: 'truncated', reason };
    case 'refusal':
      return { kind: 'refusal', reason };
    default:
      return { kind: 'other', reason: reason ?? 'none' };
  }
}

export function toReply(message: Message): live.RawReply {
  const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  const u = message.usage;
  return {
    text,
    model: message.model,
    stop: anthropicStop(message.stop_reason),
    usage: live.replyUsage(
      {
        input: u.input_tokens,
        output: u.output_tokens,
        cacheRead: u.cache_read_input_tokens,
        cacheWrite: u.cache_creation_input_tokens,
      },
      false,
    ),
  };
}

export function classify(err: unknown, signal?: AbortSignal): Error {
  return live.classifySdkError('anthropic', Anthropic, err, signal);
}

class AnthropicBatches implements live.BatchAdapter {
  readonly limits = live.BATCH_LIMITS.anthropic;

  constructor(
    private readonly client: Anthropic,
    private readonly params: (r: ModelRequest) => MessageCreateParamsNonStreaming,
  ) {}

  async submit(items: readonly live.BatchItem[], _tag: string, signal?: AbortSignal): Promise<string> {
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
  async findByTag(_tag: string, hint: live.BatchHint): Promise<string | null> {
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

  async progress(batchId: string, _items: number, signal?: AbortSignal): Promise<live.BatchProgress> {
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

  async results(batchId: string, customIds: readonly string[], signal?: AbortSignal) {
    const found = new live.FoundItems();
    try {
      const decoder = await this.client.messages.batches.results(batchId, {}, signal ? { signal } : {});
      for await (const { custom_id: id, result: r } of decoder) {
        if (r.type === 'succeeded') found.done(id, toReply(r.message));
        else
          found.failed(
            id,
            r.type === 'errored' ? `errored: ${r.error.error.message}` : r.type,
            r.type === 'expired',
          );
      }
    } catch (err) {
      throw classify(err, signal);
    }
    return found.inRequestOrder(customIds, { expired: false, error: 'missing from the batch results' });
  }
}
