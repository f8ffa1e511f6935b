/**
 * OpenAI through the `openai` SDK: Chat Completions, and the Batch API with its Files API. The same
 * adapter serves `openai-compatible` endpoints (vLLM, Ollama, LM Studio, gateways) with the base URL of
 * the config, without batches and with the classic `max_tokens`.
 *
 * What a request sends besides the prompt is the model's resolved parameters (src/providers/contract.ts):
 * GPT-5.x take `reasoning_effort`, and `temperature` / `top_p` only with effort `none`; a request that
 * breaks its model's contract is refused here, before it is sent. OpenAI caches prompt prefixes of 1,024
 * tokens and more by itself; the reply's `prompt_tokens_details.cached_tokens` is recorded as cache
 * reads (and subtracted from the input, which OpenAI counts inclusive). Structured output:
 * `response_format: json_schema` (strict). The SDK's own retries are off: rge retries every provider the
 * same way. Requests are built as the SDK's own param type, field by field, without casts.
 */
import OpenAI, { toFile } from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';
import { z } from 'zod';
import type { ChatMessage, ModelRequest, StopInfo } from '../types.ts';
import * as live from './adapter.ts';
import { strictJsonSchema } from './schema.ts';

export interface OpenAIAdapterOptions extends live.LiveAdapterOptions {
  /** 'openai', or 'openai-compatible' for a self-hosted or third-party endpoint */
  provider: 'openai' | 'openai-compatible';
}

const TAG_KEY = 'rge_tag';

function messageParam(m: ChatMessage): ChatCompletionMessageParam {
  return m.role === 'user' ? { role: 'user', content: m.content } : { role: 'assistant', content: m.content };
}

/**
 * The Chat Completions request of a `ModelRequest`, as the SDK types it: `max_completion_tokens` for
 * OpenAI (reasoning models refuse `max_tokens`), `max_tokens` for a compatible server.
 */
export function chatParams(
  request: ModelRequest,
  opts: Pick<OpenAIAdapterOptions, 'provider' | 'contract'>,
): ChatCompletionCreateParamsNonStreaming {
  live.refuseForbidden(opts.contract, opts.provider, request);
  const p = request.parameters;
  const params: ChatCompletionCreateParamsNonStreaming = {
    model: request.model,
    messages: [{ role: 'system', content: request.system }, ...request.messages.map(messageParam)],
  };
  if (opts.provider === 'openai-compatible') params.max_tokens = request.maxTokens;
  else params.max_completion_tokens = request.maxTokens;
  if (p.reasoning_effort !== undefined) params.reasoning_effort = p.reasoning_effort;
  if (p.temperature !== undefined) params.temperature = p.temperature;
  if (p.top_p !== undefined) params.top_p = p.top_p;
  if (p.seed && request.seed !== undefined) params.seed = request.seed;
  if (request.jsonSchema)
    params.response_format = {
      type: 'json_schema',
      json_schema: { name: 'verdict', strict: true, schema: strictJsonSchema(request.jsonSchema) },
    };
  return params;
}

export class OpenAIAdapter implements live.LiveAdapter {
  readonly provider: string;
  private readonly client: OpenAI;
  readonly batch?: live.BatchAdapter;

  constructor(private readonly opts: OpenAIAdapterOptions) {
    this.provider = opts.provider;
    this.client = new OpenAI(live.sdkClientOptions(opts));
    if (opts.provider === 'openai')
      this.batch = new OpenAIBatches(this.client, (r) => this.params(r), this.provider);
  }

  params(request: ModelRequest): ChatCompletionCreateParamsNonStreaming {
    return chatParams(request, this.opts);
  }

  async complete(request: ModelRequest, signal?: AbortSignal): Promise<live.RawReply> {
    try {
      const { data, response } = await this.client.chat.completions
        .create(this.params(request), signal ? { signal } : {})
        .withResponse();
      return { ...toReply(data, request.model), pauseMs: live.exhaustedPauseMs(response.headers) };
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }
}

/**
 * The part of a chat completion rge reads: the SDK's `ChatCompletion` has it, and a batch output line's
 * body is checked against it (`CompletionBody`) before it is read.
 */
export interface CompletionView {
  model: string;
  choices: readonly {
    finish_reason: string | null;
    message: { content: string | null; refusal?: string | null };
  }[];
  usage?:
    | {
        prompt_tokens: number;
        completion_tokens: number;
        prompt_tokens_details?: { cached_tokens?: number | undefined } | null | undefined;
      }
    | null
    | undefined;
}

/** rge's stop kind of a chat completion's `finish_reason` (a refusal message is a refusal). */
export function openaiStop(finish: string | null, refusal: string | null | undefined): StopInfo {
  if (refusal) return { kind: 'refusal', reason: 'refusal' };
  switch (finish) {
    case 'stop':
      return { kind: 'complete', reason: finish };
    case 'length':
      return { kind: 'truncated', reason: finish };
    case 'content_filter':
      return { kind: 'safety', reason: finish };
    default:
      return { kind: 'other', reason: finish ?? 'none' };
  }
}

export function toReply(completion: CompletionView, requested: string): live.RawReply {
  const choice = completion.choices[0];
  const message = choice?.message;
  const text = message?.content ?? message?.refusal ?? '';
  const u = completion.usage;
  return {
    text,
    model: completion.model || requested,
    stop: openaiStop(choice?.finish_reason ?? null, message?.refusal),
    usage: live.replyUsage(
      {
        input: u?.prompt_tokens,
        output: u?.completion_tokens,
        cacheRead: u?.prompt_tokens_details?.cached_tokens,
      },
      true,
    ),
  };
}

export function classify(provider: string, err: unknown, signal?: AbortSignal): Error {
  return live.classifySdkError(provider, OpenAI, err, signal);
}

const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** What rge reads of a chat completion in a batch output line (the rest passes through). */
const CompletionBody = z.looseObject({
  model: z.string(),
  choices: z.array(
    z.looseObject({
      finish_reason: z.string().nullable(),
      message: z.looseObject({ content: z.string().nullable(), refusal: z.string().nullable().optional() }),
    }),
  ),
  usage: z
    .looseObject({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().optional() }).nullish(),
    })
    .optional(),
});

/** One line of a batch's output or error file. */
const BatchOutputLine = z.looseObject({
  custom_id: z.string(),
  response: z.looseObject({ status_code: z.number(), body: z.unknown() }).nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
type BatchOutputLine = z.infer<typeof BatchOutputLine>;

/** The name of the input file of the batch tagged `tag`: how an upload cut short is found again. */
const inputFileName = (tag: string) => `${tag}.jsonl`;

/**
 * The Files API as far as batches need it: OpenAI keeps a batch's input file (purpose `batch`) and its
 * output and error files (`batch_output`) until they are deleted, or for 30 days by default.
 */
class OpenAIBatchFiles implements live.BatchFiles {
  constructor(
    private readonly client: OpenAI,
    private readonly provider: string,
  ) {}

  async of(batchId: string, signal?: AbortSignal): Promise<live.RemoteFile[]> {
    try {
      const b = await this.client.batches.retrieve(batchId, signal ? { signal } : {});
      const files: live.RemoteFile[] = [{ id: b.input_file_id, kind: 'input' }];
      if (b.output_file_id) files.push({ id: b.output_file_id, kind: 'output' });
      if (b.error_file_id) files.push({ id: b.error_file_id, kind: 'error' });
      return files;
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }

  async uploadedAs(tag: string, signal?: AbortSignal): Promise<live.RemoteFile[]> {
    try {
      const found: live.RemoteFile[] = [];
      for await (const f of this.client.files.list({ purpose: 'batch' }, signal ? { signal } : {}))
        if (f.filename === inputFileName(tag)) found.push({ id: f.id, kind: 'input' });
      return found;
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }

  async delete(fileId: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.client.files.delete(fileId, signal ? { signal } : {});
    } catch (err) {
      if (err instanceof OpenAI.NotFoundError) return; // already gone
      throw classify(this.provider, err, signal);
    }
  }
}

class OpenAIBatches implements live.BatchAdapter {
  readonly limits = live.BATCH_LIMITS.openai;
  readonly files: OpenAIBatchFiles;
  /** the input file of a tag whose batch was not created yet: the next attempt's, not uploaded again */
  private readonly uploads = new Map<string, string>();
  /** tags whose upload failed in a way that may have stored the file all the same */
  private readonly uncertain = new Set<string>();

  constructor(
    private readonly client: OpenAI,
    private readonly params: (r: ModelRequest) => ChatCompletionCreateParamsNonStreaming,
    private readonly provider: string,
  ) {
    this.files = new OpenAIBatchFiles(client, provider);
  }

  /**
   * Uploads the items as the batch's input file (once per tag: a retried submission reuses it) and
   * creates the batch. A batch refused outright (a 4xx) is never created: its file is deleted then. An
   * upload that failed after it may have been stored is looked for by its name once the batch exists,
   * and deleted (the run deletes those of a submission that failed for good, batch-calls.ts).
   */
  async submit(
    items: readonly live.BatchItem[],
    tag: string,
    signal?: AbortSignal,
    onUpload?: (file: live.RemoteFile) => Promise<void>,
  ): Promise<string> {
    const opts = signal ? { signal } : {};
    let fileId = this.uploads.get(tag);
    if (fileId === undefined) {
      fileId = await this.upload(items, tag, opts);
      this.uploads.set(tag, fileId);
      try {
        await onUpload?.({ id: fileId, kind: 'input' });
      } catch (err) {
        throw classify(this.provider, err, signal);
      }
    }
    live.notSentIfAborted(this.provider, signal);
    let batchId: string;
    try {
      const batch = await this.client.batches.create(
        {
          input_file_id: fileId,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
          metadata: { [TAG_KEY]: tag },
        },
        opts,
      );
      batchId = batch.id;
    } catch (err) {
      const e = live.createFailure(classify(this.provider, err, signal));
      // refused outright (a 4xx): never a batch, the file goes; an unknown outcome keeps it for the batch
      if (e instanceof live.CallError && e.status !== null && !e.retryable && !e.outcomeUnknown) {
        this.uploads.delete(tag);
        await this.files.delete(fileId).catch(() => undefined);
      }
      throw e;
    }
    this.uploads.delete(tag);
    if (this.uncertain.delete(tag)) await this.deleteStrays(tag, fileId, signal);
    return batchId;
  }

  private async upload(items: readonly live.BatchItem[], tag: string, opts: { signal?: AbortSignal }) {
    const lines = items.map((i) =>
      JSON.stringify({
        custom_id: i.customId,
        method: 'POST',
        url: '/v1/chat/completions',
        body: this.params(i.request),
      }),
    );
    try {
      const file = await this.client.files.create(
        {
          file: await toFile(Buffer.from(`${lines.join('\n')}\n`, 'utf8'), inputFileName(tag)),
          purpose: 'batch',
        },
        opts,
      );
      return file.id;
    } catch (err) {
      const e = classify(this.provider, err, opts.signal);
      if (!(e instanceof live.CallError) || e.retryable || e.status === null) this.uncertain.add(tag);
      throw e;
    }
  }

  /** Deletes the input files of `tag` other than `kept` (uploads whose answer was lost); best effort. */
  private async deleteStrays(tag: string, kept: string, signal?: AbortSignal): Promise<void> {
    try {
      for (const f of await this.files.uploadedAs(tag, signal))
        if (f.id !== kept) await this.files.delete(f.id, signal);
    } catch {
      // best effort: a stray not deleted now is one no record knows of (OpenAI expires batch files
      // after 30 days by default)
    }
  }

  /** Batches are listed newest first: the listing stops at the first one older than every query. */
  async findTagged(queries: readonly live.TagQuery[], signal?: AbortSignal): Promise<live.RemoteBatch[]> {
    if (queries.length === 0) return [];
    const byTag = new Map(queries.map((q) => [q.tag, q]));
    const since = live.lookupSince(queries);
    const found: live.RemoteBatch[] = [];
    try {
      for await (const b of this.client.batches.list({ limit: 100 }, signal ? { signal } : {})) {
        const createdMs = b.created_at * 1000;
        if (createdMs < since) break;
        const tag = b.metadata?.[TAG_KEY];
        const query = tag === undefined ? undefined : byTag.get(tag);
        if (!query) continue;
        found.push({
          id: b.id,
          tag: query.tag,
          verified: true,
          createdMs,
          items: b.request_counts?.total ?? query.items,
          ended: ENDED.has(b.status),
          state: b.status,
        });
      }
      return found;
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }

  async cancel(batchId: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.client.batches.cancel(batchId, signal ? { signal } : {});
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }

  async progress(batchId: string, _items: number, signal?: AbortSignal): Promise<live.BatchProgress> {
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
      .map((l) => BatchOutputLine.parse(JSON.parse(l)));
  }

  async results(batchId: string, customIds: readonly string[], signal?: AbortSignal) {
    const found = new live.FoundItems();
    try {
      const b = await this.client.batches.retrieve(batchId, signal ? { signal } : {});
      const lines = [
        ...(await this.lines(b.output_file_id, signal)),
        ...(await this.lines(b.error_file_id, signal)),
      ];
      for (const line of lines) {
        const body = line.response?.status_code === 200 ? CompletionBody.safeParse(line.response.body) : null;
        if (body?.success) found.done(line.custom_id, toReply(body.data, body.data.model));
        else {
          const code = line.error?.code ?? `status ${line.response?.status_code ?? 'unknown'}`;
          found.failed(
            line.custom_id,
            `${code}: ${line.error?.message ?? ''}`.trim(),
            code === 'batch_expired',
          );
        }
      }
      const wholeBatch = b.status === 'expired' || b.status === 'cancelled' || b.status === 'failed';
      return found.inRequestOrder(customIds, {
        expired: b.status === 'expired',
        error: wholeBatch ? `batch ${b.status}` : 'missing from the batch output',
      });
    } catch (err) {
      throw classify(this.provider, err, signal);
    }
  }
}
