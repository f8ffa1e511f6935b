/**
 * Gemini through `@google/genai` (the Gemini Developer API): generateContent, and batch mode with
 * inlined requests.
 *
 * Gemini caches long prompt prefixes by itself (implicit caching); `cachedContentTokenCount` is recorded
 * as cache reads and subtracted from `promptTokenCount`, which counts them. Thinking tokens are billed as
 * output and counted so. Structured output: `responseMimeType: application/json` with `responseSchema`
 * (property order kept, so evidence comes before the score). The seed goes in `seed`.
 */
import {
  ApiError,
  type GenerateContentConfig,
  type GenerateContentResponse,
  GoogleGenAI,
} from '@google/genai';
import type { ModelRequest } from '../types.ts';
import {
  type BatchAdapter,
  type BatchItem,
  type BatchItemResult,
  type BatchProgress,
  CallError,
  durationMs,
  type LiveAdapter,
  type RawReply,
  RETRYABLE_STATUSES,
} from './adapter.ts';
import { geminiResponseSchema } from './schema.ts';

export interface GeminiAdapterOptions {
  apiKey: string;
  baseURL?: string;
  timeoutMs: number;
  acceptsTemperature: boolean;
  acceptsSeed: boolean;
  requestDefaults?: Record<string, unknown>;
}

const CUSTOM_ID = 'rge_custom_id';

export class GeminiAdapter implements LiveAdapter {
  readonly provider = 'gemini';
  private readonly ai: GoogleGenAI;
  readonly batch: BatchAdapter;

  constructor(private readonly opts: GeminiAdapterOptions) {
    this.ai = new GoogleGenAI({
      apiKey: opts.apiKey,
      httpOptions: { timeout: opts.timeoutMs, ...(opts.baseURL ? { baseUrl: opts.baseURL } : {}) },
    });
    this.batch = new GeminiBatches(
      this.ai,
      (r) => this.contents(r),
      (r) => this.config(r),
    );
  }

  contents(request: ModelRequest) {
    return request.messages.map((m) => ({
      role: m.role === 'assistant' ? 'model' : 'user',
      parts: [{ text: m.content }],
    }));
  }

  config(request: ModelRequest): GenerateContentConfig {
    const { thinkingLevel, ...rest } = this.opts.requestDefaults ?? {};
    return {
      ...rest,
      ...(thinkingLevel ? { thinkingConfig: { thinkingLevel } } : {}),
      systemInstruction: request.system,
      maxOutputTokens: request.maxTokens,
      ...(this.opts.acceptsTemperature ? { temperature: request.temperature } : {}),
      ...(this.opts.acceptsSeed && request.seed !== undefined ? { seed: request.seed } : {}),
      ...(request.jsonSchema
        ? { responseMimeType: 'application/json', responseSchema: geminiResponseSchema(request.jsonSchema) }
        : {}),
    } as GenerateContentConfig;
  }

  async complete(request: ModelRequest, signal?: AbortSignal): Promise<RawReply> {
    try {
      const response = await this.ai.models.generateContent({
        model: request.model,
        contents: this.contents(request),
        config: { ...this.config(request), ...(signal ? { abortSignal: signal } : {}) },
      });
      return toReply(response, request.model);
    } catch (err) {
      throw classify(err, signal);
    }
  }
}

export function toReply(response: GenerateContentResponse, requested: string): RawReply {
  const u = response.usageMetadata;
  const cached = u?.cachedContentTokenCount ?? 0;
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  const text = parts
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('');
  return {
    text,
    model: response.modelVersion ?? requested,
    usage: {
      inputTokens: Math.max(0, (u?.promptTokenCount ?? 0) - cached),
      outputTokens: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    },
  };
}

/** The wait a Gemini error asks for: its RetryInfo detail (`"retryDelay": "30s"`), if any. */
function retryDelayOf(message: string): number | null {
  const m = /"retryDelay"\s*:\s*"([^"]+)"/.exec(message);
  return m?.[1] ? durationMs(m[1]) : null;
}

export function classify(err: unknown, signal?: AbortSignal): Error {
  if (err instanceof CallError) return err;
  if (signal?.aborted) return new CallError('gemini: aborted', null, false, null);
  if (err instanceof ApiError) {
    const status = err.status ?? null;
    const retryable = status === null || RETRYABLE_STATUSES.has(status);
    return new CallError(
      `gemini ${status ?? ''}: ${err.message}`,
      status,
      retryable,
      retryDelayOf(err.message),
    );
  }
  if (err instanceof Error && /abort|timeout/i.test(`${err.name} ${err.message}`))
    return new CallError('gemini: request timed out', null, true, null);
  if (err instanceof SyntaxError)
    return new CallError(`gemini: malformed reply (${err.message})`, null, true, null);
  if (err instanceof TypeError && /fetch failed|network|socket/i.test(err.message))
    return new CallError(`gemini: connection error (${err.message})`, null, true, null);
  return new CallError(`gemini: ${err instanceof Error ? err.message : String(err)}`, null, false, null);
}

const ENDED = new Set([
  'JOB_STATE_SUCCEEDED',
  'JOB_STATE_FAILED',
  'JOB_STATE_CANCELLED',
  'JOB_STATE_EXPIRED',
]);

class GeminiBatches implements BatchAdapter {
  /** Inline requests are limited to 20 MB per batch. */
  readonly limits = { items: 10_000, bytes: 18 * 1024 * 1024 };

  constructor(
    private readonly ai: GoogleGenAI,
    private readonly contents: (r: ModelRequest) => ReturnType<GeminiAdapter['contents']>,
    private readonly config: (r: ModelRequest) => GenerateContentConfig,
  ) {}

  async submit(items: readonly BatchItem[], tag: string, signal?: AbortSignal): Promise<string> {
    const model = items[0]?.request.model;
    if (!model) throw new CallError('gemini: an empty batch', null, false, null);
    try {
      const job = await this.ai.batches.create({
        model,
        src: items.map((i) => ({
          contents: this.contents(i.request),
          config: this.config(i.request),
          metadata: { [CUSTOM_ID]: i.customId },
        })),
        config: { displayName: tag, ...(signal ? { abortSignal: signal } : {}) },
      });
      if (!job.name) throw new CallError('gemini: the batch has no name', null, false, null);
      return job.name;
    } catch (err) {
      throw classify(err, signal);
    }
  }

  async findByTag(tag: string): Promise<string | null> {
    try {
      const pager = await this.ai.batches.list({ config: { pageSize: 100 } });
      for await (const job of pager) if (job.displayName === tag && job.name) return job.name;
      return null;
    } catch (err) {
      throw classify(err);
    }
  }

  async progress(batchId: string, items: number, signal?: AbortSignal): Promise<BatchProgress> {
    try {
      const job = await this.ai.batches.get({
        name: batchId,
        ...(signal ? { config: { abortSignal: signal } } : {}),
      });
      const state = String(job.state ?? 'JOB_STATE_UNSPECIFIED');
      const ended = ENDED.has(state);
      const stats = job.completionStats;
      if (stats) {
        const done = Number(stats.successfulCount ?? 0);
        const failed = Number(stats.failedCount ?? 0);
        return { ended, state, done, waiting: Math.max(0, items - done - failed), failed };
      }
      // The Developer API reports no counts while a batch runs: all waiting, then what came back.
      const responses = job.dest?.inlinedResponses ?? [];
      const done = responses.filter((r) => r.response).length;
      const failed = ended ? items - done : responses.filter((r) => r.error).length;
      return { ended, state, done, waiting: ended ? 0 : items - done - failed, failed };
    } catch (err) {
      throw classify(err, signal);
    }
  }

  async results(
    batchId: string,
    customIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<BatchItemResult[]> {
    try {
      const job = await this.ai.batches.get({
        name: batchId,
        ...(signal ? { config: { abortSignal: signal } } : {}),
      });
      const state = String(job.state ?? '');
      const responses = job.dest?.inlinedResponses ?? [];
      const found = new Map<string, BatchItemResult>();
      responses.forEach((r, i) => {
        const id = r.metadata?.[CUSTOM_ID] ?? customIds[i];
        if (!id) return;
        if (r.response)
          found.set(id, { customId: id, ok: true, reply: toReply(r.response, job.model ?? '') });
        else
          found.set(id, {
            customId: id,
            ok: false,
            expired: state === 'JOB_STATE_EXPIRED',
            error: r.error?.message ?? 'no response',
          });
      });
      return customIds.map(
        (id) =>
          found.get(id) ?? {
            customId: id,
            ok: false,
            expired: state === 'JOB_STATE_EXPIRED',
            error: `missing from the batch output (${state})`,
          },
      );
    } catch (err) {
      throw classify(err, signal);
    }
  }
}
