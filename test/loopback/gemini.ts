/**
 * A loopback Gemini Developer API (v1beta) for `@google/genai` (pass `httpOptions: {baseUrl: server.url}`):
 * POST models/{model}:generateContent and :countTokens, and batch mode with inlined requests:
 * POST models/{model}:batchGenerateContent, GET batches/{id}, GET batches, POST batches/{id}:cancel,
 * DELETE batches/{id}.
 *
 * Batches travel as long-running Operations: `{name: 'batches/…', metadata: GenerateContentBatch, done,
 * response}`. The SDK reads `metadata.state` (BATCH_STATE_*, which it renames JOB_STATE_*),
 * `metadata.displayName` and `metadata.output.inlinedResponses.inlinedResponses`; it does not read the
 * operation's `error`, so a failed batch shows only as JOB_STATE_FAILED.
 *
 * The server is as strict as the API: a GenerateContentRequest (sync, counted, or inlined in a batch)
 * may carry only the fields the API knows, under either proto JSON spelling, and its thinking config and
 * response schema only the values it takes (see "Request validation" below); no content may be
 * without parts, nor a text part empty (`contentsIssue`).
 */
import type { GenerationConfig, ThinkingConfig, ThinkingLevel, Type } from '@google/genai';
import {
  BatchJob,
  type BatchOutcome,
  type ErrorKind,
  type HttpExchange,
  isRecord,
  type LoopbackCall,
  type LoopbackOptions,
  type LoopbackServer,
  LoopbackState,
  listenLoopback,
  type ModelTurn,
  newId,
  numberOr,
  type ProducedReply,
  type PromptSegment,
  parseJsonBody,
  promptSegment,
  rfc3339,
  type SyncCallRenderer,
  sendJson,
  serveSyncCall,
  settleAll,
  stringOr,
} from './common.ts';
import {
  camelCase,
  type FieldPath,
  findUnknownField,
  type ObjectRule,
  protoField,
  protoPath,
} from './strict.ts';

const STATUS_NAMES: Record<ErrorKind, string> = {
  invalid_request: 'INVALID_ARGUMENT',
  // a wrong key: Gemini says 400 INVALID_ARGUMENT, not 401 (see `refuseKey`)
  authentication: 'INVALID_ARGUMENT',
  not_found: 'NOT_FOUND',
  rate_limit: 'RESOURCE_EXHAUSTED',
  internal: 'INTERNAL',
  bad_gateway: 'UNAVAILABLE',
  unavailable: 'UNAVAILABLE',
  overloaded: 'UNAVAILABLE',
};

/** google.rpc.Code numbers, for per-item errors of a batch. */
const RPC_CODES = { CANCELLED: 1, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, INTERNAL: 13 } as const;

const BATCH_TYPE = 'type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch';
const BATCH_OUTPUT_TYPE =
  'type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatchOutput';

/**
 * Google's error body: `{error:{code, message, status, details}}`; a 429 carries a RetryInfo detail
 * (`retryDelay` in whole seconds, from the retry-after-ms header) and a wrong key an ErrorInfo and a
 * LocalizedMessage (`refuseKey`).
 */
function sendError(
  ex: HttpExchange,
  status: number,
  kind: ErrorKind,
  message: string,
  headers: Record<string, string> = {},
  extraDetails: unknown[] = [],
) {
  const details: unknown[] = [...extraDetails];
  if (kind === 'authentication') {
    details.push(
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
    );
  }
  if (kind === 'rate_limit') {
    const ms = Number(headers['retry-after-ms'] ?? 1000);
    details.push({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: `${Math.max(1, Math.ceil(ms / 1000))}s`,
    });
  }
  const error = {
    code: status,
    message,
    status: STATUS_NAMES[kind],
    ...(details.length > 0 ? { details } : {}),
  };
  sendJson(ex.res, status, { error }, headers);
}

/**
 * How Gemini refuses a key, echoing none of it: a wrong key is a 400 INVALID_ARGUMENT "API key not
 * valid. Please pass a valid API key." with an ErrorInfo (reason API_KEY_INVALID) and a LocalizedMessage
 * (as users report the real body, e.g. github.com/continuedev/continue/issues/10290); no key at all is a
 * 403 PERMISSION_DENIED without details (github.com/PublicAffairs/openai-gemini/issues/92).
 */
function refuseKey(ex: HttpExchange, keyGiven: boolean): void {
  if (keyGiven) {
    sendError(ex, 400, 'authentication', 'API key not valid. Please pass a valid API key.');
    return;
  }
  const message =
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.";
  sendJson(ex.res, 403, { error: { code: 403, message, status: 'PERMISSION_DENIED' } });
}

// ---------------------------------------------------------------------------------------------------
// Request validation

/**
 * The fields of a GenerateContentRequest. The SDK has no type for the REST body, so the list follows
 * its Gemini Developer API converters in dist/index.mjs: `generateContentParametersToMldev` writes
 * `contents` and `generationConfig`, and `generateContentConfigToMldev` lifts `serviceTier`,
 * `systemInstruction`, `safetySettings`, `tools`, `toolConfig`, `labels`, `cachedContent`,
 * `continuationToken` and `store` from the config to the request. `model` is the request's own field in
 * the API, which the inlined requests of a batch carry (`inlinedRequestToMldev`).
 */
const GENERATE_REQUEST_FIELDS = {
  model: true,
  contents: true,
  tools: true,
  toolConfig: true,
  safetySettings: true,
  systemInstruction: true,
  generationConfig: true,
  cachedContent: true,
  serviceTier: true,
  store: true,
  labels: true,
  continuationToken: true,
} as const;

/**
 * `generationConfig`: the SDK's `GenerationConfig`, and `imageConfig`, which the converter writes into
 * it (`imageConfigToMldev`) although the interface does not have it.
 */
const GENERATION_CONFIG_FIELDS = {
  modelSelectionConfig: true,
  responseJsonSchema: true,
  audioTranscriptionConfig: true,
  audioTimestamp: true,
  candidateCount: true,
  enableAffectiveDialog: true,
  frequencyPenalty: true,
  logprobs: true,
  maxOutputTokens: true,
  mediaResolution: true,
  presencePenalty: true,
  responseFormat: true,
  responseLogprobs: true,
  responseMimeType: true,
  responseModalities: true,
  responseSchema: true,
  routingConfig: true,
  seed: true,
  speechConfig: true,
  stopSequences: true,
  temperature: true,
  thinkingConfig: true,
  topK: true,
  topP: true,
  enableEnhancedCivicAnswers: true,
  translationConfig: true,
  imageConfig: true,
} satisfies Record<keyof GenerationConfig | 'imageConfig', true>;

/** `generationConfig.thinkingConfig`: the SDK's `ThinkingConfig`. */
const THINKING_CONFIG_FIELDS = {
  includeThoughts: true,
  thinkingBudget: true,
  thinkingLevel: true,
} satisfies Record<keyof ThinkingConfig, true>;

/** The CountTokensRequest: the contents alone, or a whole GenerateContentRequest. */
const COUNT_TOKENS_FIELDS = { contents: true, generateContentRequest: true } as const;

/**
 * `thinkingLevel` as the REST API spells the enum: the names of the SDK's `ThinkingLevel`. The API has
 * been seen to accept the lower-case spelling ("low") too; the server is stricter on purpose, as the
 * SDK's enum is upper case and a request that relies on the lenience is not what the SDK sends.
 */
const THINKING_LEVELS = {
  THINKING_LEVEL_UNSPECIFIED: true,
  MINIMAL: true,
  LOW: true,
  MEDIUM: true,
  HIGH: true,
} satisfies Record<`${ThinkingLevel}`, true>;

/** `responseSchema` types: the names of the SDK's `Type` (the SDK upper-cases JSON Schema's). */
const SCHEMA_TYPES = {
  TYPE_UNSPECIFIED: true,
  STRING: true,
  NUMBER: true,
  INTEGER: true,
  BOOLEAN: true,
  ARRAY: true,
  OBJECT: true,
  NULL: true,
} satisfies Record<`${Type}`, true>;

const GENERATE_REQUEST: ObjectRule = {
  fields: GENERATE_REQUEST_FIELDS,
  children: {
    generationConfig: {
      fields: GENERATION_CONFIG_FIELDS,
      children: { thinkingConfig: { fields: THINKING_CONFIG_FIELDS } },
    },
  },
};

/** Proto JSON takes a field under its camelCase or its snake_case name; the rules use camelCase. */
const PROTO_NAMES = { canonical: camelCase };

const ENUM_TYPE_URL = 'type.googleapis.com/google.ai.generativelanguage.v1beta';

/** A request the API refuses: its message, and the field it names (for the BadRequest detail). */
export interface GeminiIssue {
  message: string;
  /** the snake_case path of the field, '' for the request itself; null when the error names none */
  field: string | null;
}

function unknownName(field: string, parent: FieldPath): GeminiIssue {
  const at = protoPath(parent);
  const where = at === '' ? '' : ` at '${at}'`;
  return {
    message: `Invalid JSON payload received. Unknown name "${field}"${where}: Cannot find field.`,
    field: at,
  };
}

function invalidValue(path: FieldPath, enumName: string, value: unknown): GeminiIssue {
  const at = protoPath(path);
  const shown = typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
  return { message: `Invalid value at '${at}' (${ENUM_TYPE_URL}.${enumName}), ${shown}`, field: at };
}

/** The first `type` of a response schema (or of a schema nested in it) that is not a `Type` name. */
function schemaTypeIssue(schema: unknown, path: FieldPath): GeminiIssue | null {
  if (!isRecord(schema)) return null;
  const type = schema.type;
  if (type !== undefined && !(typeof type === 'string' && Object.hasOwn(SCHEMA_TYPES, type))) {
    return invalidValue([...path, 'type'], 'Type', type);
  }
  // A map field's entries are addressed by position, each as a key and a value.
  const properties = protoField(schema, 'properties');
  if (isRecord(properties)) {
    for (const [i, property] of Object.values(properties).entries()) {
      const issue = schemaTypeIssue(property, [...path, 'properties', i, 'value']);
      if (issue) return issue;
    }
  }
  const items = schemaTypeIssue(protoField(schema, 'items'), [...path, 'items']);
  if (items) return items;
  const anyOf = protoField(schema, 'anyOf');
  if (Array.isArray(anyOf)) {
    for (const [i, alternative] of anyOf.entries()) {
      const issue = schemaTypeIssue(alternative, [...path, 'anyOf', i]);
      if (issue) return issue;
    }
  }
  return null;
}

/**
 * What the API refuses in a GenerateContentRequest before it runs it: a field it does not know (at the
 * top, in `generationConfig`, in its `thinkingConfig`), a thinking config with both a budget and a
 * level, a level that is not an enum name or that the model does not take (gemini-3.1-pro takes LOW,
 * MEDIUM and HIGH), and a response schema type that is not a `Type` name. `at` is where the request
 * sits in the body (inside a batch create). Null when the request passes; a request that is not an
 * object is left to the parser.
 */
export function generateRequestIssue(
  request: unknown,
  model: string,
  at: FieldPath = [],
): GeminiIssue | null {
  if (!isRecord(request)) return null;
  const unknown = findUnknownField(request, GENERATE_REQUEST, PROTO_NAMES, at);
  if (unknown) return unknownName(unknown.field, unknown.parent);
  const config = protoField(request, 'generationConfig');
  if (!isRecord(config)) return null;
  const configPath = [...at, 'generationConfig'];
  const thinking = protoField(config, 'thinkingConfig');
  if (isRecord(thinking)) {
    const budget = protoField(thinking, 'thinkingBudget');
    const level = protoField(thinking, 'thinkingLevel');
    if (budget != null && level != null) {
      return { message: 'You can only set only one of thinking budget and thinking level.', field: null };
    }
    if (level != null && !(typeof level === 'string' && Object.hasOwn(THINKING_LEVELS, level))) {
      return invalidValue([...configPath, 'thinkingConfig', 'thinkingLevel'], 'ThinkingLevel', level);
    }
    if (level === 'MINIMAL' && /^(models\/)?gemini-3\.1-pro/.test(model)) {
      return { message: 'Thinking level MINIMAL is not supported for this model.', field: null };
    }
  }
  return schemaTypeIssue(protoField(config, 'responseSchema'), [...configPath, 'responseSchema']);
}

function sendIssue(ex: HttpExchange, issue: GeminiIssue): void {
  const violation =
    issue.field === '' ? { description: issue.message } : { field: issue.field, description: issue.message };
  const details =
    issue.field === null
      ? []
      : [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [violation] }];
  sendError(ex, 400, 'invalid_request', issue.message, {}, details);
}

// ---------------------------------------------------------------------------------------------------
// Request parsing

type Parsed = { ok: true; turn: ModelTurn } | { ok: false; message: string };

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!isRecord(content) || !Array.isArray(content.parts)) return '';
  return content.parts
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function schemaOf(config: Record<string, unknown>): unknown | null {
  const jsonSchema = protoField(config, 'responseJsonSchema');
  if (jsonSchema !== undefined) return jsonSchema;
  const schema = protoField(config, 'responseSchema');
  if (schema !== undefined) return schema;
  return protoField(config, 'responseMimeType') === 'application/json' ? { type: 'object' } : null;
}

/**
 * What the API refuses in the contents of a request: a content without parts
 * (`* GenerateContentRequest.contents[<i>].parts: contents.parts must not be empty.`), a part that holds
 * nothing (`required oneof field 'data' must have one initialized field`), and a text part whose text is
 * empty (`Unable to submit request because it has an empty text parameter. ...`). The messages are the
 * API's, as quoted in public reports of 400 INVALID_ARGUMENT answers (egoist/chatwise-releases#250,
 * router-for-me/CLIProxyAPI#1292, zuisong/gemini-openai-proxy#83 and
 * glowingjade/obsidian-smart-composer#218 on generativelanguage.googleapis.com). Whether Gemini takes
 * a part of whitespace only is not established: it is taken here.
 */
export function contentsIssue(contents: readonly unknown[]): string | null {
  for (const [i, content] of contents.entries()) {
    const parts = isRecord(content) ? content.parts : undefined;
    if (!Array.isArray(parts) || parts.length === 0)
      return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`;
    for (const [j, part] of parts.entries()) {
      if (!isRecord(part) || Object.keys(part).length === 0)
        return `* GenerateContentRequest.contents[${i}].parts[${j}].data: required oneof field 'data' must have one initialized field\n`;
      if (part.text === '') return EMPTY_TEXT_PARAMETER;
    }
  }
  return null;
}

const EMPTY_TEXT_PARAMETER =
  'Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again. ' +
  'Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini';

/** A GenerateContentRequest as a model turn: the system instruction, then each content, as segments. */
export function parseGenerateRequest(model: string, request: unknown, customId: string | null): Parsed {
  if (!isRecord(request)) return { ok: false, message: 'Invalid JSON payload received: expected an object.' };
  if (!Array.isArray(request.contents) || request.contents.length === 0) {
    return { ok: false, message: '* GenerateContentRequest.contents: contents is not specified' };
  }
  const empty = contentsIssue(request.contents);
  if (empty) return { ok: false, message: empty };
  const segments: PromptSegment[] = [];
  const instruction = protoField(request, 'systemInstruction');
  const system = instruction === undefined ? '' : partsText(instruction);
  if (system !== '') segments.push(promptSegment(system));
  const messages: LoopbackCall['messages'] = [];
  for (const content of request.contents) {
    const text = partsText(content);
    segments.push(promptSegment(text));
    messages.push({ role: isRecord(content) && content.role === 'model' ? 'assistant' : 'user', text });
  }
  const generationConfig = protoField(request, 'generationConfig');
  const config = isRecord(generationConfig) ? generationConfig : {};
  const call: LoopbackCall = {
    provider: 'gemini',
    model: model.replace(/^models\//, ''),
    system,
    messages,
    schema: schemaOf(config),
    temperature: numberOr(config.temperature, null),
    seed: numberOr(config.seed, null),
    maxTokens: numberOr(protoField(config, 'maxOutputTokens'), null),
    batch: customId !== null,
    customId,
    apiVersion: null,
    body: request,
  };
  return { ok: true, turn: { call, segments } };
}

/**
 * The request a CountTokensRequest counts: its `generateContentRequest`, or its contents alone (what the
 * SDK sends); `issue` is a field the CountTokensRequest itself does not know.
 */
function countedRequest(body: unknown): { request: unknown; at: FieldPath; issue: GeminiIssue | null } {
  const unknown = findUnknownField(body, { fields: COUNT_TOKENS_FIELDS }, PROTO_NAMES);
  const issue = unknown ? unknownName(unknown.field, unknown.parent) : null;
  const inner = isRecord(body) ? protoField(body, 'generateContentRequest') : undefined;
  if (inner !== undefined) return { request: inner, at: ['generateContentRequest'], issue };
  return { request: isRecord(body) ? { contents: body.contents } : body, at: [], issue };
}

// ---------------------------------------------------------------------------------------------------
// Responses

/** A GenerateContentResponse; `cachedContentTokenCount` is omitted when nothing was cached, as the API does. */
function renderGenerateResponse(turn: ModelTurn, reply: ProducedReply) {
  const { input } = reply;
  const cached = input.cacheRead;
  return {
    candidates: [
      {
        // a reply stopped by a safety filter carries no content
        ...(reply.stop === 'refusal' || reply.stop === 'safety'
          ? {}
          : { content: { parts: [{ text: reply.text }], role: 'model' } }),
        finishReason:
          reply.stop === 'max_tokens'
            ? 'MAX_TOKENS'
            : reply.stop === 'refusal' || reply.stop === 'safety'
              ? 'SAFETY'
              : 'STOP',
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: input.total,
      candidatesTokenCount: reply.outputTokens,
      totalTokenCount: input.total + reply.outputTokens,
      ...(cached > 0
        ? { cachedContentTokenCount: cached, cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cached }] }
        : {}),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: input.total }],
    },
    modelVersion: turn.call.model,
    responseId: newId('', 11),
  };
}

interface GeminiBatchMeta {
  model: string;
  displayName: string;
  /** each request's `metadata`, echoed in its inlined response */
  itemMetadata: (Record<string, unknown> | null)[];
  deleted: boolean;
}

type GeminiBatch = BatchJob<GeminiBatchMeta>;

function batchState(job: GeminiBatch): string {
  if (!job.ended) return job.reads === 0 ? 'BATCH_STATE_PENDING' : 'BATCH_STATE_RUNNING';
  if (job.failed) return 'BATCH_STATE_FAILED';
  if (job.cancelRequestedAt !== null) return 'BATCH_STATE_CANCELLED';
  return job.count('expired') > 0 ? 'BATCH_STATE_EXPIRED' : 'BATCH_STATE_SUCCEEDED';
}

function inlinedResponse(outcome: BatchOutcome, metadata: Record<string, unknown> | null) {
  const withMetadata = metadata ? { metadata } : {};
  switch (outcome.kind) {
    case 'succeeded':
      return { response: renderGenerateResponse(outcome.turn, outcome.reply), ...withMetadata };
    case 'errored': {
      const code = outcome.cause === 'invalid_request' ? RPC_CODES.INVALID_ARGUMENT : RPC_CODES.INTERNAL;
      return { error: { code, message: outcome.message }, ...withMetadata };
    }
    case 'expired':
      return {
        error: {
          code: RPC_CODES.DEADLINE_EXCEEDED,
          message: 'The request expired before it could be processed.',
        },
        ...withMetadata,
      };
    case 'canceled':
      return {
        error: { code: RPC_CODES.CANCELLED, message: 'The request was cancelled with its batch.' },
        ...withMetadata,
      };
  }
}

/** The batch as the long-running Operation the API returns from create, get and list. */
function renderOperation(job: GeminiBatch) {
  const name = `batches/${job.id}`;
  const ended = job.ended;
  const succeeded = job.count('succeeded');
  const failed = job.entries.length - succeeded;
  const inlined =
    job.outcomes && !job.failed
      ? {
          inlinedResponses: {
            inlinedResponses: job.outcomes.map((o, i) =>
              inlinedResponse(o, job.meta.itemMetadata[i] ?? null),
            ),
          },
        }
      : null;
  const updated = job.endedAt ?? job.cancelRequestedAt ?? job.createdAt;
  const metadata = {
    '@type': BATCH_TYPE,
    name,
    model: job.meta.model,
    displayName: job.meta.displayName,
    createTime: rfc3339(job.createdAt),
    updateTime: rfc3339(updated),
    ...(job.endedAt !== null ? { endTime: rfc3339(job.endedAt) } : {}),
    batchStats: {
      requestCount: String(job.entries.length),
      ...(ended
        ? { successfulRequestCount: String(succeeded), failedRequestCount: String(failed) }
        : { pendingRequestCount: String(job.entries.length) }),
    },
    state: batchState(job),
    ...(inlined ? { output: inlined } : {}),
  };
  return {
    name,
    metadata,
    done: ended,
    ...(inlined ? { response: { '@type': BATCH_OUTPUT_TYPE, ...inlined } } : {}),
    ...(job.failed
      ? { error: { code: RPC_CODES.INTERNAL, message: 'The batch failed (loopback failWholeBatch).' } }
      : {}),
  };
}

/** The id an inlined request is known by: its metadata `key` (or `custom_id`, `id`), else its position. */
function customIdOf(metadata: Record<string, unknown> | null, index: number): string {
  for (const field of ['key', 'custom_id', 'id']) {
    const value = metadata?.[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return String(index);
}

// ---------------------------------------------------------------------------------------------------
// Server

export async function startGeminiServer(opts: LoopbackOptions = {}): Promise<LoopbackServer> {
  const state = new LoopbackState('gemini', opts, 'automatic');
  const batches = new Map<string, GeminiBatch>();
  const renderer: SyncCallRenderer = {
    error: sendError,
    rateLimitHeaders: () => ({}),
    render: renderGenerateResponse,
  };

  const createBatch = (ex: HttpExchange, model: string, body: unknown): void => {
    const batch = isRecord(body) && isRecord(body.batch) ? body.batch : {};
    const inputConfig = isRecord(batch.inputConfig) ? batch.inputConfig : {};
    const wrapper = isRecord(inputConfig.requests) ? inputConfig.requests : {};
    if (inputConfig.fileName !== undefined) {
      sendError(
        ex,
        400,
        'invalid_request',
        'The loopback server supports inlined batch requests only, not fileName.',
      );
      return;
    }
    if (!Array.isArray(wrapper.requests) || wrapper.requests.length === 0) {
      sendError(ex, 400, 'invalid_request', '* batch.input_config.requests: requests is not specified');
      return;
    }
    // A request the API refuses fails the whole create; one that passes that check but cannot be
    // served (no contents, say) becomes an errored item.
    for (const [i, item] of wrapper.requests.entries()) {
      const request = isRecord(item) ? item.request : undefined;
      const itemModel = isRecord(request) ? stringOr(request.model, model) : model;
      const at = ['batch', 'inputConfig', 'requests', 'requests', i, 'request'];
      const issue = generateRequestIssue(request, itemModel, at);
      if (issue) {
        sendIssue(ex, issue);
        return;
      }
    }
    const itemMetadata: (Record<string, unknown> | null)[] = [];
    const entries = wrapper.requests.map((item: unknown, i: number) => {
      const metadata = isRecord(item) && isRecord(item.metadata) ? item.metadata : null;
      itemMetadata.push(metadata);
      const customId = customIdOf(metadata, i);
      const request = isRecord(item) ? item.request : undefined;
      const itemModel = isRecord(request) ? stringOr(request.model, model) : model;
      const parsed = parseGenerateRequest(itemModel, request, customId);
      return parsed.ok
        ? { customId, turn: parsed.turn, invalid: null }
        : { customId, turn: null, invalid: parsed.message };
    });
    const meta: GeminiBatchMeta = {
      model,
      displayName: stringOr(batch.displayName, ''),
      itemMetadata,
      deleted: false,
    };
    const job: GeminiBatch = new BatchJob(newId('', 16), entries, meta, state);
    batches.set(job.id, job);
    sendJson(ex.res, 200, renderOperation(job));
  };

  const handle = async (ex: HttpExchange): Promise<void> => {
    const path = ex.url.pathname.replace(/\/+$/, '');
    const modelRoute = /^\/v1(?:beta|alpha)?\/((?:models|tunedModels)\/[^/:]+):(\w+)$/.exec(path);
    const method = modelRoute?.[2];
    const model = decodeURIComponent(modelRoute?.[1] ?? '');
    const isGenerate = ex.method === 'POST' && method === 'generateContent';
    const fault = isGenerate ? state.faults.next() : null;

    const key = ex.req.headers['x-goog-api-key'] ?? ex.url.searchParams.get('key');
    if (!state.acceptsKey(typeof key === 'string' ? key : null)) {
      refuseKey(ex, typeof key === 'string' && key !== '');
      return;
    }
    const json =
      ex.method === 'POST' && ex.body.length > 0 ? parseJsonBody(ex.body) : { ok: true as const, value: {} };
    if (!json.ok) {
      sendError(ex, 400, 'invalid_request', `Invalid JSON payload received. ${json.error}`);
      return;
    }

    if (modelRoute && ex.method === 'POST') {
      if (method === 'generateContent' || method === 'countTokens') {
        const counted = method === 'countTokens' ? countedRequest(json.value) : null;
        const issue = counted
          ? (counted.issue ?? generateRequestIssue(counted.request, model, counted.at))
          : generateRequestIssue(json.value, model);
        if (issue) {
          sendIssue(ex, issue);
          return;
        }
        const parsed = parseGenerateRequest(model, counted ? counted.request : json.value, null);
        if (!parsed.ok) sendError(ex, 400, 'invalid_request', parsed.message);
        else if (method === 'countTokens') {
          sendJson(ex.res, 200, { totalTokens: parsed.turn.segments.reduce((n, s) => n + s.tokens, 0) });
        } else await serveSyncCall(state, ex, parsed.turn, fault, renderer);
        return;
      }
      if (method === 'batchGenerateContent') {
        createBatch(ex, model, json.value);
        return;
      }
    }

    const batchRoute = /^\/v1(?:beta|alpha)?\/batches(?:\/([^/:]+)(?::(\w+))?)?$/.exec(path);
    if (batchRoute && !batchRoute[1] && ex.method === 'GET') {
      const all = (await settleAll(batches, state)).filter((j) => !j.meta.deleted);
      const pageSize = Number(ex.url.searchParams.get('pageSize') ?? 50);
      const size = Number.isInteger(pageSize) && pageSize > 0 ? Math.min(pageSize, 1000) : 50;
      const offset = Number(ex.url.searchParams.get('pageToken') ?? 0) || 0;
      const page = all.slice(offset, offset + size);
      const more = offset + size < all.length;
      sendJson(ex.res, 200, {
        operations: page.map(renderOperation),
        ...(more ? { nextPageToken: String(offset + size) } : {}),
      });
      return;
    }
    if (batchRoute?.[1]) {
      const job = batches.get(decodeURIComponent(batchRoute[1]));
      const action = `${ex.method} ${batchRoute[2] ?? ''}`;
      if (!job || job.meta.deleted) {
        sendError(ex, 404, 'not_found', `Batch batches/${batchRoute[1]} not found.`);
      } else if (action === 'GET ') {
        await job.settle(state);
        sendJson(ex.res, 200, renderOperation(job));
      } else if (action === 'POST cancel') {
        if (!job.ended) job.cancelRequestedAt ??= Date.now();
        sendJson(ex.res, 200, {});
      } else if (action === 'DELETE ') {
        job.meta.deleted = true;
        sendJson(ex.res, 200, {});
      } else sendError(ex, 404, 'not_found', `No route for ${ex.method} ${path}.`);
      return;
    }

    sendError(ex, 404, 'not_found', `No route for ${ex.method} ${path} on the loopback Gemini server.`);
  };

  const server = await listenLoopback(state, handle, (ex, err) =>
    sendError(
      ex,
      500,
      'internal',
      `Loopback server error: ${err instanceof Error ? err.message : String(err)}`,
    ),
  );
  return {
    url: server.origin,
    provider: 'gemini',
    calls: state.calls,
    billed: state.billed,
    requests: state.requests,
    close: server.close,
  };
}
