/**
 * OpenAI through the `openai` SDK: Chat Completions, and the Batch API with its Files API. The same
 * adapter serves `openai-compatible` endpoints (vLLM, Ollama, LM Studio, gateways) with the base URL of
 * the config, without batches and with the classic `max_tokens`.
 *
 * OpenAI caches prompt prefixes of 1,024 tokens and more by itself; the reply's
 * `prompt_tokens_details.cached_tokens` is recorded as cache reads (and subtracted from the input, which
 * OpenAI counts inclusive). Structured output: `response_format: json_schema` (strict). The seed goes in
 * `seed`. The SDK's own retries are off: rge retries every provider the same way.
 */
import OpenAI, { toFile } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions/completions';
import type { ModelRequest } from '../types.ts';
import {
  type BatchAdapter,
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

export interface OpenAIAdapterOptions {
  /** 'openai', or 'openai-compatible' for a self-hosted or third-party endpoint */
  provider: 'openai' | 'openai-compatible';
  apiKey: string;
  baseURL?: string;
  timeoutMs: number;
  acceptsTemperature: boolean;
  acceptsSeed: boolean;
  requestDefaults?: Record<string, unknown>;
}

const TAG_KEY = 'rge_tag';

export class OpenAIAdapter implements LiveAdapter {
  readonly provider: string;
  private readonly client: OpenAI;
  readonly batch?: BatchAdapter;

  constructor(private readonly opts: OpenAIAdapterOptions) {
    this.provider = opts.provider;
    this.client = new OpenAI({
      apiKey: opts.apiKey,
      ...(opts.baseURL ? { baseURL: opts.baseURL } : {}),
      maxRetries: 0,
      timeout: opts.timeoutMs,
      logLevel: 'off',
    });
    if (opts.provider === 'openai')
      this.batch = new OpenAIBatches(this.client, (r) => this.params(r), this.provider);
  }

  params(request: ModelRequest): ChatCompletionCreateParamsNonStreaming {
    const compatible = this.opts.provider === 'openai-compatible';
    return {
      ...(this.opts.requestDefaults ?? {}),
      model: request.model,
      messages: [
        { role: 'system', content: request.system },
        ...request.messages.map((m) => ({ role: m.role, content: m.content })),
      ],
      ...(compatible ? { max_tokens: request.maxTokens } : { max_completion_tokens: request.maxTokens }),
      ...(this.opts.acceptsTemperature ? { temperature: request.temperature } : {}),
      ...(this.opts.acceptsSeed && request.seed !== undefined ? { seed: request.seed } : {}),
      ...(request.jsonSchema
        ? {
            response_format: {
              type: 'json_schema',
              json_schema: { name: 'verdict', strict: true, schema: strictJsonSchema(request.jsonSchema) },
            },
          }
        : {}),
    } as ChatCompletionCreateParamsNonStreaming;
  }

  async complete(request: ModelRequest, signal?: AbortSignal): Promise<RawReply> {
    try {
      const { data, response } = await this.client.chat.completions
        .create(this.params(request), signal ? { signal } : {})
        .withResponse();
      return { ...toReply(data, request.model), pauseMs: exhaustedPauseMs(response.headers) };
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }
}

export function toReply(completion: ChatCompletion, requested: string): RawReply {
  const choice = completion.choices[0];
  const message = choice?.message;
  const text = message?.content ?? message?.refusal ?? '';
  const u = completion.usage;
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    text,
    model: completion.model || requested,
    usage: {
      inputTokens: Math.max(0, (u?.prompt_tokens ?? 0) - cached),
      outputTokens: u?.completion_tokens ?? 0,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    },
  };
}

export function classify(provider: string, err: unknown, signal?: AbortSignal): Error {
  if (err instanceof CallError) return err;
  if (err instanceof OpenAI.APIUserAbortError || (isAbort(err, signal) && signal?.aborted))
    return new CallError(`${provider}: aborted`, null, false, null);
  if (err instanceof OpenAI.APIConnectionTimeoutError)
    return new CallError(`${provider}: request timed out`, null, true, null);
  if (err instanceof OpenAI.APIConnectionError)
    return new CallError(`${provider}: connection error (${err.message})`, null, true, null);
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? null;
    const retryable = status === null || RETRYABLE_STATUSES.has(status);
    return new CallError(
      `${provider} ${status ?? ''}: ${err.message}`,
      status,
      retryable,
      retryAfterMs(err.headers),
    );
  }
  if (err instanceof SyntaxError)
    return new CallError(`${provider}: malformed reply (${err.message})`, null, true, null);
  return new CallError(`${provider}: ${err instanceof Error ? err.message : String(err)}`, null, false, null);
}

const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);

interface BatchOutputLine {
  custom_id: string;
  response?: { status_code: number; body: ChatCompletion } | null;
  error?: { code?: string | null; message?: string | null } | null;
}

class OpenAIBatches implements BatchAdapter {
  readonly limits = { items: 50_000, bytes: 190 * 1024 * 1024 };

  constructor(
    private readonly client: OpenAI,
    private readonly params: (r: ModelRequest) => ChatCompletionCreateParamsNonStreaming,
    private readonly provider: string,
  ) {}

  async submit(items: readonly BatchItem[], tag: string, signal?: AbortSignal): Promise<string> {
    const lines = items.map((i) =>
      JSON.stringify({
        custom_id: i.customId,
        method: 'POST',
        url: '/v1/chat/completions',
        body: this.params(i.request),
      }),
    );
    const opts = signal ? { signal } : {};
    try {
      const file = await this.client.files.create(
        {
          file: await toFile(Buffer.from(`${lines.join('\n')}\n`, 'utf8'), `${tag}.jsonl`),
          purpose: 'batch',
        },
        opts,
      );
      const batch = await this.client.batches.create(
        {
          input_file_id: file.id,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
          metadata: { [TAG_KEY]: tag },
        },
        opts,
      );
      return batch.id;
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }

  async findByTag(tag: string): Promise<string | null> {
    try {
      for await (const b of this.client.batches.list({ limit: 100 }))
        if ((b.metadata as Record<string, string> | null | undefined)?.[TAG_KEY] === tag) return b.id;
      return null;
    } catch (err) {
      throw classify(this.provider, err);
    }
  }

  async progress(batchId: string, _items: number, signal?: AbortSignal): Promise<BatchProgress> {
    try {
      const b = await this.client.batches.retrieve(batchId, signal ? { signal } : {});
      const c = b.request_counts ?? { total: 0, completed: 0, failed: 0 };
      return {
        ended: ENDED.has(b.status),
        state: b.status,
        done: c.completed,
        waiting: Math.max(0, c.total - c.completed - c.failed),
        failed: c.failed,
      };
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }

  private async lines(fileId: string | null | undefined, signal?: AbortSignal): Promise<BatchOutputLine[]> {
    if (!fileId) return [];
    const response = await this.client.files.content(fileId, signal ? { signal } : {});
    const text = await response.text();
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as BatchOutputLine);
  }

  async results(
    batchId: string,
    customIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<BatchItemResult[]> {
    const found = new Map<string, BatchItemResult>();
    try {
      const b = await this.client.batches.retrieve(batchId, signal ? { signal } : {});
      const lines = [
        ...(await this.lines(b.output_file_id, signal)),
        ...(await this.lines(b.error_file_id, signal)),
      ];
      for (const line of lines) {
        const body = line.response?.body;
        if (line.response && line.response.status_code === 200 && body)
          found.set(line.custom_id, { customId: line.custom_id, ok: true, reply: toReply(body, body.model) });
        else {
          const code = line.error?.code ?? `status ${line.response?.status_code ?? 'unknown'}`;
          found.set(line.custom_id, {
            customId: line.custom_id,
            ok: false,
            expired: code === 'batch_expired',
            error: `${code}: ${line.error?.message ?? ''}`.trim(),
          });
        }
      }
      const wholeBatch = b.status === 'expired' || b.status === 'cancelled' || b.status === 'failed';
      return customIds.map(
        (id) =>
          found.get(id) ?? {
            customId: id,
            ok: false,
            expired: b.status === 'expired',
            error: wholeBatch ? `batch ${b.status}` : 'missing from the batch output',
          },
      );
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }
}
