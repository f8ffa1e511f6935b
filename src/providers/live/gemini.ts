/**
 * Gemini through `@google/genai` (the Gemini Developer API): generateContent, and batch mode with
 * inlined requests.
 *
 * What a request sends besides the prompt is the model's resolved parameters (src/providers/contract.ts):
 * Gemini 3 gets `thinkingConfig.thinkingLevel` (the SDK's `ThinkingLevel` enum, as the REST API spells
 * it: LOW, not low), the cell's seed, and a temperature only when the config states one; the output
 * limit includes the thinking allowance, since Gemini counts thinking tokens toward `maxOutputTokens`.
 * Gemini caches long prompt prefixes by itself (implicit caching); `cachedContentTokenCount` is recorded
 * as cache reads and subtracted from `promptTokenCount`, which counts them. Thinking tokens are billed as
 * output and counted so. Structured output: `responseMimeType: application/json` with `responseSchema`
 * (property order kept, so evidence comes before the score). Requests are built as the SDK's own types,
 * field by field, without casts.
 */
import {
  ApiError,
  BlockedReason,
  type Content,
  FinishReason,
  type GenerateContentConfig,
  type GenerateContentResponse,
  GoogleGenAI,
  type Schema,
  ThinkingLevel,
  Type,
} from '@google/genai';
import type { ModelContract } from '../catalogue.ts';
import type { ModelRequest, StopInfo, ThinkingLevel as ThinkingLevelName } from '../types.ts';
import * as live from './adapter.ts';
import { constUnion, isObject, type Json } from './schema.ts';

export type GeminiAdapterOptions = live.LiveAdapterOptions;

const CUSTOM_ID = 'rge_custom_id';

/** A run config's thinking level as the SDK's enum (the REST API's spelling). */
export const GEMINI_THINKING_LEVEL: Record<ThinkingLevelName, ThinkingLevel> = {
  minimal: ThinkingLevel.MINIMAL,
  low: ThinkingLevel.LOW,
  medium: ThinkingLevel.MEDIUM,
  high: ThinkingLevel.HIGH,
};

/** The conversation of a `ModelRequest` as Gemini contents (the assistant is the `model` role). */
export function geminiContents(request: ModelRequest): Content[] {
  return request.messages.map((m) => ({
    role: m.role === 'assistant' ? 'model' : 'user',
    parts: [{ text: m.content }],
  }));
}

/** The generation config of a `ModelRequest`, as the SDK types it; refuses what the contract forbids. */
export function geminiConfig(request: ModelRequest, contract: ModelContract): GenerateContentConfig {
  live.refuseForbidden(contract, 'gemini', request);
  const p = request.parameters;
  const config: GenerateContentConfig = {
    systemInstruction: request.system,
    maxOutputTokens: request.maxTokens,
  };
  if (p.thinking_level !== undefined)
    config.thinkingConfig = { thinkingLevel: GEMINI_THINKING_LEVEL[p.thinking_level] };
  if (p.temperature !== undefined) config.temperature = p.temperature;
  if (p.top_p !== undefined) config.topP = p.top_p;
  if (p.seed && request.seed !== undefined) config.seed = request.seed;
  if (request.jsonSchema) {
    config.responseMimeType = 'application/json';
    config.responseSchema = geminiResponseSchema(request.jsonSchema);
  }
  return config;
}

export class GeminiAdapter implements live.LiveAdapter {
  readonly provider = 'gemini';
  private readonly ai: GoogleGenAI;
  readonly batch: live.BatchAdapter;

  constructor(private readonly opts: GeminiAdapterOptions) {
    this.ai = new GoogleGenAI({
      apiKey: opts.apiKey,
      httpOptions: { timeout: opts.timeoutMs, ...(opts.baseURL ? { baseUrl: opts.baseURL } : {}) },
    });
    this.batch = new GeminiBatches(this.ai, geminiContents, (r) => this.config(r));
  }

  contents(request: ModelRequest): Content[] {
    return geminiContents(request);
  }

  config(request: ModelRequest): GenerateContentConfig {
    return geminiConfig(request, this.opts.contract);
  }

  async complete(request: ModelRequest, signal?: AbortSignal): Promise<live.RawReply> {
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

/** Finish reasons that are a content filter, not the model's own end. */
const SAFETY_FINISHES: ReadonlySet<FinishReason> = new Set([
  FinishReason.SAFETY,
  FinishReason.RECITATION,
  FinishReason.BLOCKLIST,
  FinishReason.PROHIBITED_CONTENT,
  FinishReason.SPII,
  FinishReason.IMAGE_SAFETY,
  FinishReason.IMAGE_PROHIBITED_CONTENT,
]);

/** rge's stop kind of a Gemini reply: its first candidate's `finishReason`, or a blocked prompt. */
export function geminiStop(response: GenerateContentResponse): StopInfo {
  const candidate = response.candidates?.[0];
  const blocked = response.promptFeedback?.blockReason;
  if (!candidate && blocked !== undefined && blocked !== BlockedReason.BLOCKED_REASON_UNSPECIFIED)
    return { kind: 'safety', reason: `prompt blocked: ${blocked}` };
  const finish = candidate?.finishReason;
  if (finish === FinishReason.STOP) return { kind: 'complete', reason: finish };
  if (finish === FinishReason.MAX_TOKENS) return { kind: 'truncated', reason: finish };
  if (finish !== undefined && SAFETY_FINISHES.has(finish)) return { kind: 'safety', reason: finish };
  return { kind: 'other', reason: finish ?? (candidate ? 'FINISH_REASON_UNSPECIFIED' : 'no candidate') };
}

export function toReply(response: GenerateContentResponse, requested: string): live.RawReply {
  const u = response.usageMetadata;
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  const text = parts.flatMap((p) => (typeof p.text === 'string' && !p.thought ? [p.text] : [])).join('');
  return {
    text,
    model: response.modelVersion ?? requested,
    stop: geminiStop(response),
    usage: live.replyUsage(
      {
        input: u?.promptTokenCount,
        output: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
        cacheRead: u?.cachedContentTokenCount,
      },
      true,
    ),
  };
}

/** JSON Schema scalar type names and Gemini's `Type` enum (the REST API's upper-case spelling). */
const GEMINI_TYPES: Record<string, Type> = {
  string: Type.STRING,
  number: Type.NUMBER,
  integer: Type.INTEGER,
  boolean: Type.BOOLEAN,
  null: Type.NULL,
};

/**
 * Gemini `responseSchema` (OpenAPI subset, the SDK's `Schema`) for a strict JSON Schema, keeping property
 * order (without which Gemini orders keys alphabetically and the score would come before its evidence).
 */
export function geminiResponseSchema(schema: Json): Schema {
  const walk = (node: Json): Schema => {
    const consts = constUnion(node);
    if (consts) {
      const integral = consts.every(Number.isInteger);
      return {
        type: integral ? Type.INTEGER : Type.NUMBER,
        minimum: Math.min(...consts),
        maximum: Math.max(...consts),
        description: `one of ${consts.join(', ')}`,
      };
    }
    const type = typeof node.type === 'string' ? node.type : 'object';
    if (type === 'object') {
      const props = isObject(node.properties) ? node.properties : {};
      const properties: Record<string, Schema> = {};
      for (const [k, v] of Object.entries(props)) properties[k] = isObject(v) ? walk(v) : {};
      const required = Array.isArray(node.required)
        ? node.required.filter((r): r is string => typeof r === 'string')
        : Object.keys(props);
      return { type: Type.OBJECT, properties, required, propertyOrdering: Object.keys(props) };
    }
    if (type === 'array') return { type: Type.ARRAY, items: isObject(node.items) ? walk(node.items) : {} };
    const scalar = GEMINI_TYPES[type] ?? Type.STRING;
    if (Array.isArray(node.enum)) return { type: scalar, enum: node.enum.map(String), format: 'enum' };
    return { type: scalar };
  };
  const withoutMeta = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema'));
  return walk(withoutMeta);
}

/** The wait a Gemini error asks for: its RetryInfo detail (`"retryDelay": "30s"`), if any. */
function retryDelayOf(message: string): number | null {
  const m = /"retryDelay"\s*:\s*"([^"]+)"/.exec(message);
  return m?.[1] ? live.durationMs(m[1]) : null;
}

export function classify(err: unknown, signal?: AbortSignal): Error {
  if (err instanceof live.CallError) return err;
  if (signal?.aborted) return new live.CallError('gemini: aborted', null, false, null);
  if (err instanceof ApiError)
    return live.statusError('gemini', err.status ?? null, err.message, retryDelayOf(err.message));
  if (err instanceof Error && /abort|timeout/i.test(`${err.name} ${err.message}`))
    return new live.CallError('gemini: request timed out', null, true, null);
  if (err instanceof TypeError && /fetch failed|network|socket/i.test(err.message))
    return new live.CallError(`gemini: connection error (${err.message})`, null, true, null);
  return live.replyOrUnknownError('gemini', err);
}

const ENDED = new Set([
  'JOB_STATE_SUCCEEDED',
  'JOB_STATE_FAILED',
  'JOB_STATE_CANCELLED',
  'JOB_STATE_EXPIRED',
]);

class GeminiBatches implements live.BatchAdapter {
  readonly limits = live.BATCH_LIMITS.gemini;

  constructor(
    private readonly ai: GoogleGenAI,
    private readonly contents: (r: ModelRequest) => Content[],
    private readonly config: (r: ModelRequest) => GenerateContentConfig,
  ) {}

  async submit(items: readonly live.BatchItem[], tag: string, signal?: AbortSignal): Promise<string> {
    const model = items[0]?.request.model;
    if (!model) throw new live.CallError('gemini: an empty batch', null, false, null);
    const src = items.map((i) => ({
      contents: this.contents(i.request),
      config: this.config(i.request),
      metadata: { [CUSTOM_ID]: i.customId },
    }));
    live.notSentIfAborted('gemini', signal);
    let name: string | undefined;
    try {
      const job = await this.ai.batches.create({
        model,
        src,
        config: { displayName: tag, ...(signal ? { abortSignal: signal } : {}) },
      });
      name = job.name;
    } catch (err) {
      throw live.createFailure(classify(err, signal));
    }
    if (!name) throw new live.CallError('gemini: the batch has no name', null, false, null);
    return name;
  }

  /**
   * Batches whose display name is a query's tag. The Developer API lists batches in no stated order
   * and filters none (the SDK refuses `filter` outside Vertex), so every page is read.
   */
  async findTagged(queries: readonly live.TagQuery[], signal?: AbortSignal): Promise<live.RemoteBatch[]> {
    if (queries.length === 0) return [];
    const byTag = new Map(queries.map((q) => [q.tag, q]));
    const since = live.lookupSince(queries);
    const found: live.RemoteBatch[] = [];
    try {
      const pager = await this.ai.batches.list({
        config: { pageSize: 100, ...(signal ? { abortSignal: signal } : {}) },
      });
      for await (const job of pager) {
        const query = job.displayName === undefined ? undefined : byTag.get(job.displayName);
        const createdMs = job.createTime ? Date.parse(job.createTime) : Number.NaN;
        if (!query || !job.name || createdMs < since) continue;
        const state = String(job.state ?? 'JOB_STATE_UNSPECIFIED');
        found.push({
          id: job.name,
          tag: query.tag,
          verified: true,
          createdMs,
          items: query.items,
          ended: ENDED.has(state),
          state,
        });
      }
      return found;
    } catch (err) {
      throw classify(err, signal);
    }
  }

  async cancel(batchId: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.ai.batches.cancel({ name: batchId, ...(signal ? { config: { abortSignal: signal } } : {}) });
    } catch (err) {
      throw classify(err, signal);
    }
  }

  async progress(batchId: string, items: number, signal?: AbortSignal): Promise<live.BatchProgress> {
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

  async results(batchId: string, customIds: readonly string[], signal?: AbortSignal) {
    try {
      const job = await this.ai.batches.get({
        name: batchId,
        ...(signal ? { config: { abortSignal: signal } } : {}),
      });
      const state = String(job.state ?? '');
      const responses = job.dest?.inlinedResponses ?? [];
      const found = new live.FoundItems();
      responses.forEach((r, i) => {
        const id = r.metadata?.[CUSTOM_ID] ?? customIds[i];
        if (!id) return;
        if (r.response) found.done(id, toReply(r.response, job.model ?? ''));
        else found.failed(id, r.error?.message ?? 'no response', state === 'JOB_STATE_EXPIRED');
      });
      return found.inRequestOrder(customIds, {
        expired: state === 'JOB_STATE_EXPIRED',
        error: `missing from the batch output (${state})`,
      });
    } catch (err) {
      throw classify(err, signal);
    }
  }
}
