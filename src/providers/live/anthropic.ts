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
    const requests = items.map((i) => ({ custom_id: i.customId, params: this.params(i.request) }));
    live.notSentIfAborted('anthropic', signal);
    try {
      const batch = await this.client.messages.batches.create({ requests }, signal ? { signal } : {});
      return batch.id;
    } catch (err) {
      throw live.createFailure(classify(err, signal));
    }
  }

  /**
   * Message Batches keep no tag. A batch is told by its items' custom ids once it has ended (its first
   * result's id carries the query's prefix); a running one only by its number of requests and a
   * creation time from just before the submission to ten minutes after (`verified` false: the batch
   * runner checks its items when it collects). Batches are listed newest first, back to the earliest
   * query; only those of a query's size are looked into.
   */
  async findTagged(queries: readonly live.TagQuery[], signal?: AbortSignal): Promise<live.RemoteBatch[]> {
    if (queries.length === 0) return [];
    const since = live.lookupSince(queries);
    const opts = signal ? { signal } : {};
    const found: live.RemoteBatch[] = [];
    try {
      for await (const b of this.client.messages.batches.list({ limit: 100 }, opts)) {
        const createdMs = Date.parse(b.created_at);
        if (createdMs < since) break;
        const c = b.request_counts;
        const items = c.processing + c.succeeded + c.errored + c.canceled + c.expired;
        const sized = queries.filter(
          (q) => q.items === items && createdMs >= q.submittedAfterMs - live.LOOKUP_SLACK_MS,
        );
        if (sized.length === 0) continue;
        const seen = { id: b.id, createdMs, items, ended: b.processing_status === 'ended' };
        const state = b.processing_status;
        if (!seen.ended) {
          for (const q of sized)
            if (createdMs <= q.submittedAfterMs + 600_000)
              found.push({ ...seen, state, tag: q.tag, verified: false });
          continue;
        }
        const first = await this.firstCustomId(b.id, opts);
        const q = first === null ? undefined : sized.find((x) => first.startsWith(x.customIdPrefix));
        if (q) found.push({ ...seen, state, tag: q.tag, verified: true });
      }
      return found;
    } catch (err) {
      throw classify(err, signal);
    }
  }

  /** The custom id of an ended batch's first result (its results are read no further). */
  private async firstCustomId(batchId: string, opts: { signal?: AbortSignal }): Promise<string | null> {
    const decoder = await this.client.messages.batches.results(batchId, {}, opts);
    for await (const line of decoder) return line.custom_id;
    return null;
  }

  async cancel(batchId: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.client.messages.batches.cancel(batchId, {}, signal ? { signal } : {});
    } catch (err) {
      throw classify(err, signal);
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
