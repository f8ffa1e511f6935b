/**
 * A loopback OpenAI API for the `openai` SDK (pass `baseURL: server.url`, which ends in `/v1`):
 * POST /v1/chat/completions (non-streaming), files (multipart upload, retrieve, content, list by purpose,
 * delete) and batches over /v1/chat/completions (create, retrieve, list, cancel) with output and error
 * files. A file stays until it is deleted (DELETE /v1/files/{id}: `{id, object: 'file', deleted: true}`,
 * then a 404 `No such File object` for it, as the real API answers): a batch's input file, and its
 * output and error files, are the client's to delete; `files()` lists what is left.
 *
 * The server is as strict as the API: a chat completions body (sync, or a line of a batch input file)
 * may carry only the fields of the SDK's request type, and the reasoning models refuse the parameters
 * they do not take (see "Request validation" below).
 */
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions/completions';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import {
  BatchJob,
  type BatchOutcome,
  bearerToken,
  type ErrorKind,
  type HttpExchange,
  isRecord,
  type LoopbackCall,
  type LoopbackOptions,
  type LoopbackServer,
  LoopbackState,
  limitParam,
  listenLoopback,
  type ModelTurn,
  newId,
  numberOr,
  type ProducedReply,
  type PromptSegment,
  pageById,
  parseJsonBody,
  promptSegment,
  type RateLimitSnapshot,
  type SyncCallRenderer,
  sendJson,
  sendRaw,
  serveSyncCall,
  settleAll,
  sha256Hex,
  stringOr,
  unixSeconds,
} from './common.ts';
import {
  carries,
  dottedPath,
  findUnknownField,
  type KeysOfUnion,
  type ObjectRule,
  quotedList,
} from './strict.ts';

const ERROR_TYPES: Record<ErrorKind, { type: string; code: string | null }> = {
  invalid_request: { type: 'invalid_request_error', code: null },
  authentication: { type: 'invalid_request_error', code: 'invalid_api_key' },
  not_found: { type: 'invalid_request_error', code: null },
  rate_limit: { type: 'requests', code: 'rate_limit_exceeded' },
  internal: { type: 'server_error', code: null },
  bad_gateway: { type: 'server_error', code: null },
  unavailable: { type: 'server_error', code: 'service_unavailable' },
  overloaded: { type: 'server_error', code: 'service_unavailable' },
};

const DAY_S = 24 * 60 * 60;

/** OpenAI's error body: `{error:{message, type, param, code}}`; `code` replaces the kind's own. */
function errorBody(kind: ErrorKind, message: string, param: string | null = null, code?: string | null) {
  const { type, code: kindCode } = ERROR_TYPES[kind];
  return { error: { message, type, code: code === undefined ? kindCode : code, param } };
}

function sendError(ex: HttpExchange, status: number, kind: ErrorKind, message: string, headers = {}) {
  sendJson(ex.res, status, errorBody(kind, message), { 'x-request-id': newId('req_'), ...headers });
}

/**
 * A key as OpenAI's 401 shows it: its first 8 and last 4 characters around one asterisk for each
 * character between. Users' reports of the real body: `Incorrect API key provided:
 * sk-PMafP***************************************E873. You can find your API key at
 * https://platform.openai.com/account/api-keys.`, type `invalid_request_error`, code `invalid_api_key`
 * (github.com/popjane/free_chatgpt_api/issues/3: 8 + 39 + 4 characters, a 51-character key), and
 * `sk-proj-` keys as `sk-proj-*****...*****X0AA`. A short key is shown whole (`Incorrect API key
 * provided: undefined.`, github.com/jas3333/GPT-Helper/issues/26); the fake shows keys of 12 characters
 * or fewer whole, the real cut-off between 9 and 12 not being known.
 */
export function maskedKey(key: string): string {
  if (key.length <= 12) return key;
  return `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}`;
}

/** OpenAI's 401 for a key it does not know (code `invalid_api_key`). */
export function incorrectKeyMessage(key: string): string {
  return `Incorrect API key provided: ${maskedKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
}

/** OpenAI's 401 for a request without a key (code null). */
const NO_KEY_MESSAGE =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.";

/** OpenAI's reset durations: `20ms`, `1.5s`, `6m0s`. */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(3))}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

function rateLimitHeaders(s: RateLimitSnapshot): Record<string, string> {
  const headers: Record<string, string> = {};
  if (s.requestsLimit !== null) {
    headers['x-ratelimit-limit-requests'] = String(s.requestsLimit);
    headers['x-ratelimit-remaining-requests'] = String(s.requestsRemaining);
    headers['x-ratelimit-reset-requests'] = duration(s.resetMs);
  }
  if (s.tokensLimit !== null) {
    headers['x-ratelimit-limit-tokens'] = String(s.tokensLimit);
    headers['x-ratelimit-remaining-tokens'] = String(s.tokensRemaining);
    headers['x-ratelimit-reset-tokens'] = duration(s.resetMs);
  }
  return headers;
}

// ---------------------------------------------------------------------------------------------------
// Request validation

/** The body fields of POST /v1/chat/completions: `ChatCompletionCreateParamsNonStreaming`. */
const CHAT_BODY_FIELDS = {
  messages: true,
  model: true,
  audio: true,
  frequency_penalty: true,
  function_call: true,
  functions: true,
  logit_bias: true,
  logprobs: true,
  max_completion_tokens: true,
  max_tokens: true,
  metadata: true,
  modalities: true,
  moderation: true,
  n: true,
  parallel_tool_calls: true,
  prediction: true,
  presence_penalty: true,
  prompt_cache_key: true,
  prompt_cache_options: true,
  prompt_cache_retention: true,
  reasoning_effort: true,
  response_format: true,
  safety_identifier: true,
  seed: true,
  service_tier: true,
  stop: true,
  store: true,
  stream: true,
  stream_options: true,
  temperature: true,
  tool_choice: true,
  tools: true,
  top_logprobs: true,
  top_p: true,
  user: true,
  verbosity: true,
  web_search_options: true,
} satisfies Record<keyof ChatCompletionCreateParamsNonStreaming, true>;

/** `response_format`: the fields of any of its forms (text, json_schema, json_object). */
const RESPONSE_FORMAT_FIELDS = { type: true, json_schema: true } satisfies Record<
  KeysOfUnion<NonNullable<ChatCompletionCreateParamsNonStreaming['response_format']>>,
  true
>;

/** `response_format.json_schema`: `ResponseFormatJSONSchema.JSONSchema`. */
const JSON_SCHEMA_FIELDS = { name: true, description: true, schema: true, strict: true } satisfies Record<
  keyof ResponseFormatJSONSchema.JSONSchema,
  true
>;

const CHAT_BODY: ObjectRule = {
  fields: CHAT_BODY_FIELDS,
  children: {
    response_format: {
      fields: RESPONSE_FORMAT_FIELDS,
      children: { json_schema: { fields: JSON_SCHEMA_FIELDS } },
    },
  },
};

/** A request OpenAI refuses: its message, and the `param` and `code` of the error. */
export interface ChatIssue {
  message: string;
  param: string | null;
  code: string | null;
}

/** The reasoning models: the gpt-5 family and the o-series (o1, o3, o4-mini, ...). */
export function isReasoningModel(model: string): boolean {
  return /^(gpt-5|o\d)/.test(model);
}

type ReasoningEffort = NonNullable<ChatCompletionCreateParamsNonStreaming['reasoning_effort']>;

/**
 * The `reasoning_effort` values a reasoning model takes, and the one it uses when none is sent:
 * gpt-5.1 takes none to high; gpt-5.2 and later (gpt-5.4, gpt-5.4-mini) add xhigh, both default to none;
 * gpt-5, gpt-5-mini and gpt-5-nano take minimal to high and the o-series low to high, both defaulting to
 * medium.
 */
export function reasoningEfforts(model: string): {
  supported: readonly ReasoningEffort[];
  default: ReasoningEffort;
} {
  const minor = /^gpt-5\.(\d+)/.exec(model)?.[1];
  if (minor !== undefined && Number(minor) >= 2)
    return { supported: ['none', 'low', 'medium', 'high', 'xhigh'], default: 'none' };
  if (minor !== undefined && Number(minor) === 1)
    return { supported: ['none', 'low', 'medium', 'high'], default: 'none' };
  if (model.startsWith('gpt-5'))
    return { supported: ['minimal', 'low', 'medium', 'high'], default: 'medium' };
  return { supported: ['low', 'medium', 'high'], default: 'medium' };
}

function unsupportedParameter(field: string, hint = ''): ChatIssue {
  return {
    message: `Unsupported parameter: '${field}' is not supported with this model.${hint}`,
    param: field,
    code: 'unsupported_parameter',
  };
}

/**
 * What OpenAI refuses in a chat completions body before it runs it, in this order:
 * - a field the SDK's request type does not have, at the top, in `response_format` or in its
 *   `json_schema`; for a nested one the message names its dotted path, as OpenAI's exact wording for
 *   nested fields is not known;
 * - `reasoning_effort` on a model that does not reason (gpt-4.1-mini, gpt-4o, a test's 'gpt-x');
 * - on a reasoning model: `max_tokens`, a `reasoning_effort` the model does not take, and `temperature`
 *   or `top_p` unless the effort (sent, or the model's default) is `none`. OpenAI has also been reported
 *   to answer "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1)
 *   value is supported."; which of the two it sends for gpt-5.4 is not settled, so the server sends the
 *   unsupported-parameter one, for any value.
 * A null counts as not sent. Null when the body passes; a body that is not an object is left to the parser.
 */
export function chatParamsIssue(params: unknown): ChatIssue | null {
  if (!isRecord(params)) return null;
  const unknown = findUnknownField(params, CHAT_BODY);
  if (unknown) {
    const field = dottedPath([...unknown.parent, unknown.field]);
    return { message: `Unrecognized request argument supplied: ${field}`, param: null, code: null };
  }
  const model = stringOr(params.model, '');
  if (!isReasoningModel(model)) {
    if (!carries(params, 'reasoning_effort')) return null;
    return { message: 'Unrecognized request argument supplied: reasoning_effort', param: null, code: null };
  }
  if (carries(params, 'max_tokens')) {
    return unsupportedParameter('max_tokens', " Use 'max_completion_tokens' instead.");
  }
  const efforts = reasoningEfforts(model);
  const effort = params.reasoning_effort ?? efforts.default;
  const supported: readonly unknown[] = efforts.supported;
  if (!supported.includes(effort)) {
    return {
      message: `Unsupported value: '${String(effort)}' is not supported with the '${model}' model. Supported values are: ${quotedList(efforts.supported)}.`,
      param: 'reasoning_effort',
      code: 'unsupported_value',
    };
  }
  if (effort !== 'none') {
    for (const field of ['temperature', 'top_p'])
      if (carries(params, field)) return unsupportedParameter(field);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Chat completions

type Parsed = { ok: true; turn: ModelTurn } | { ok: false; message: string; param: string | null };

/** The text of a message's content: a string, or the text of its parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function schemaOf(responseFormat: unknown): unknown | null {
  if (!isRecord(responseFormat)) return null;
  if (responseFormat.type === 'json_object') return { type: 'object' };
  if (responseFormat.type !== 'json_schema') return null;
  const spec = isRecord(responseFormat.json_schema) ? responseFormat.json_schema : {};
  return spec.schema ?? {};
}

/** A chat completions body as a model turn: one cache segment per message. */
export function parseChatParams(params: unknown, customId: string | null): Parsed {
  if (!isRecord(params))
    return { ok: false, message: 'The request body must be a JSON object.', param: null };
  if (params.stream === true) {
    return { ok: false, message: 'stream: true is not supported by the loopback server.', param: 'stream' };
  }
  if (typeof params.model !== 'string' || params.model === '') {
    return { ok: false, message: "Missing required parameter: 'model'.", param: 'model' };
  }
  if (!Array.isArray(params.messages) || params.messages.length === 0) {
    return { ok: false, message: "Missing required parameter: 'messages'.", param: 'messages' };
  }
  const segments: PromptSegment[] = [];
  const system: string[] = [];
  const messages: LoopbackCall['messages'] = [];
  for (const [i, message] of params.messages.entries()) {
    const role = isRecord(message) ? message.role : undefined;
    if (!isRecord(message) || typeof role !== 'string') {
      return {
        ok: false,
        message: `Missing required parameter: 'messages[${i}].role'.`,
        param: `messages[${i}]`,
      };
    }
    const text = contentText(message.content);
    segments.push(promptSegment(text));
    if (role === 'system' || role === 'developer') system.push(text);
    else messages.push({ role: role === 'assistant' ? 'assistant' : 'user', text });
  }
  const call: LoopbackCall = {
    provider: 'openai',
    model: params.model,
    system: system.join('\n'),
    messages,
    schema: schemaOf(params.response_format),
    temperature: numberOr(params.temperature, null),
    seed: numberOr(params.seed, null),
    maxTokens: numberOr(params.max_completion_tokens, null) ?? numberOr(params.max_tokens, null),
    batch: customId !== null,
    customId,
    apiVersion: null,
    body: params,
  };
  return { ok: true, turn: { call, segments } };
}

/** A stable fingerprint of the "backend" serving a model, as `system_fingerprint`. */
function fingerprint(model: string): string {
  return `fp_${sha256Hex(`loopback:${model}`).slice(0, 10)}`;
}

function renderCompletion(turn: ModelTurn, reply: ProducedReply) {
  const { input } = reply;
  return {
    id: newId('chatcmpl-loopback', 12),
    object: 'chat.completion',
    created: unixSeconds(Date.now()),
    model: turn.call.model,
    choices: [
      {
        index: 0,
        message:
          reply.stop === 'refusal'
            ? { role: 'assistant', content: null, refusal: reply.text, annotations: [] }
            : { role: 'assistant', content: reply.text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason:
          reply.stop === 'max_tokens' ? 'length' : reply.stop === 'safety' ? 'content_filter' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: input.total,
      completion_tokens: reply.outputTokens,
      total_tokens: input.total + reply.outputTokens,
      prompt_tokens_details: { cached_tokens: input.cacheRead, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: fingerprint(turn.call.model),
  };
}

// ---------------------------------------------------------------------------------------------------
// Files

interface StoredFile {
  object: {
    id: string;
    object: 'file';
    bytes: number;
    created_at: number;
    filename: string;
    purpose: string;
    status: 'processed';
    expires_at: number | null;
  };
  content: Buffer;
}

function storeFile(
  files: Map<string, StoredFile>,
  filename: string,
  purpose: string,
  content: Buffer,
): StoredFile {
  const file: StoredFile = {
    object: {
      id: newId('file-loopback', 12),
      object: 'file',
      bytes: content.length,
      created_at: unixSeconds(Date.now()),
      filename,
      purpose,
      status: 'processed',
      expires_at: null,
    },
    content,
  };
  files.set(file.object.id, file);
  return file;
}

/** The `file` and `purpose` fields of a multipart upload, parsed by undici's Request. */
async function readUpload(
  ex: HttpExchange,
): Promise<{ filename: string; purpose: string; content: Buffer } | string> {
  const contentType = ex.req.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) return 'Expected a multipart/form-data body.';
  let form: FormData;
  try {
    form = await new Request(ex.url, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: ex.body,
      duplex: 'half',
    }).formData();
  } catch (err) {
    return `Could not parse the multipart body: ${err instanceof Error ? err.message : String(err)}`;
  }
  const file = form.get('file');
  const purpose = form.get('purpose');
  if (file === null || typeof file === 'string') return "Missing required parameter: 'file'.";
  if (typeof purpose !== 'string' || purpose === '') return "Missing required parameter: 'purpose'.";
  return { filename: file.name || 'upload', purpose, content: Buffer.from(await file.arrayBuffer()) };
}

// ---------------------------------------------------------------------------------------------------
// Batches

interface BatchLineError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

interface OpenAIBatchMeta {
  inputFileId: string;
  endpoint: string;
  completionWindow: string;
  metadata: Record<string, string> | null;
  /** problems found validating the input file: the batch fails instead of running */
  validationErrors: BatchLineError[];
  inProgressAt: number | null;
  failedAt: number | null;
  outputFileId: string | null;
  errorFileId: string | null;
  filesWritten: boolean;
  /** the `param` and `code` of each refused line's error, by custom_id */
  refusedLines: Map<string, { param: string | null; code: string | null }>;
}

type OpenAIBatch = BatchJob<OpenAIBatchMeta>;

const EXPIRED_MESSAGE = 'This request could not be executed before the completion window expired.';

/**
 * Parses the batch input file: one `{custom_id, method, url, body}` per line. A line whose body the API
 * refuses (`chatParamsIssue`) or cannot serve is an item that errors with a 400, not a validation error.
 */
function parseBatchInput(content: Buffer, endpoint: string) {
  const errors: BatchLineError[] = [];
  const entries: { customId: string; turn: ModelTurn | null; invalid: string | null }[] = [];
  const refusedLines: OpenAIBatchMeta['refusedLines'] = new Map();
  const ids = new Set<string>();
  const lines = content.toString('utf8').split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    const line = i + 1;
    const json = parseJsonBody(Buffer.from(raw));
    const item = json.ok && isRecord(json.value) ? json.value : null;
    if (!item) {
      errors.push({
        code: 'invalid_json_line',
        message: 'This line is not parseable as valid JSON.',
        param: null,
        line,
      });
      continue;
    }
    const customId = stringOr(item.custom_id, '');
    if (customId === '' || ids.has(customId)) {
      const message = customId === '' ? 'Missing custom_id.' : `The custom_id '${customId}' is not unique.`;
      errors.push({
        code: customId === '' ? 'missing_required_parameter' : 'duplicate_custom_id',
        message,
        param: 'custom_id',
        line,
      });
      continue;
    }
    ids.add(customId);
    if (item.url !== endpoint || item.method !== 'POST') {
      const message = `The url must be '${endpoint}' and the method POST, as the batch's endpoint.`;
      errors.push({ code: 'invalid_url', message, param: 'url', line });
      continue;
    }
    const issue = chatParamsIssue(item.body);
    if (issue) {
      refusedLines.set(customId, { param: issue.param, code: issue.code });
      entries.push({ customId, turn: null, invalid: issue.message });
      continue;
    }
    const parsed = parseChatParams(item.body, customId);
    entries.push(
      parsed.ok
        ? { customId, turn: parsed.turn, invalid: null }
        : { customId, turn: null, invalid: parsed.message },
    );
  }
  if (entries.length === 0 && errors.length === 0) {
    errors.push({ code: 'empty_file', message: 'The input file has no requests.', param: null, line: null });
  }
  return { entries, errors, refusedLines };
}

function batchStatus(job: OpenAIBatch): string {
  if (job.meta.validationErrors.length > 0) return job.meta.failedAt === null ? 'validating' : 'failed';
  if (!job.ended)
    return job.cancelRequestedAt !== null ? 'cancelling' : job.reads === 0 ? 'validating' : 'in_progress';
  if (job.failed) return 'failed';
  if (job.cancelRequestedAt !== null) return 'cancelled';
  return job.count('expired') > 0 ? 'expired' : 'completed';
}

function renderBatch(job: OpenAIBatch) {
  const { meta } = job;
  const status = batchStatus(job);
  const at = (ms: number | null) => (ms === null ? null : unixSeconds(ms));
  const succeeded = (job.outcomes ?? []).flatMap((o) => (o.kind === 'succeeded' ? [o.reply] : []));
  const inputTokens = succeeded.reduce((n, r) => n + r.input.total, 0);
  const cachedTokens = succeeded.reduce((n, r) => n + r.input.cacheRead, 0);
  const outputTokens = succeeded.reduce((n, r) => n + r.outputTokens, 0);
  const errors =
    meta.validationErrors.length > 0
      ? meta.validationErrors
      : job.failed
        ? [
            {
              code: 'batch_failed',
              message: 'The batch failed (loopback failWholeBatch).',
              param: null,
              line: null,
            },
          ]
        : [];
  return {
    id: job.id,
    object: 'batch',
    endpoint: meta.endpoint,
    model: job.entries[0]?.turn?.call.model ?? null,
    errors: errors.length > 0 ? { object: 'list', data: errors } : null,
    input_file_id: meta.inputFileId,
    completion_window: meta.completionWindow,
    status,
    output_file_id: meta.outputFileId,
    error_file_id: meta.errorFileId,
    created_at: unixSeconds(job.createdAt),
    in_progress_at: at(meta.inProgressAt),
    expires_at: unixSeconds(job.createdAt) + DAY_S,
    finalizing_at: at(job.endedAt),
    completed_at: status === 'completed' ? at(job.endedAt) : null,
    failed_at: status === 'failed' ? at(meta.failedAt ?? job.endedAt) : null,
    expired_at: status === 'expired' ? at(job.endedAt) : null,
    cancelling_at: at(job.cancelRequestedAt),
    cancelled_at: status === 'cancelled' ? at(job.endedAt) : null,
    request_counts: {
      total: job.entries.length,
      completed: job.count('succeeded'),
      failed: job.count('errored') + job.count('expired') + job.count('canceled'),
    },
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: cachedTokens },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
    metadata: meta.metadata,
  };
}

/**
 * One line of the output or error file for an item, and which of the two it belongs in; `refused` is
 * the param and code of an item whose body the API refused.
 */
function resultLine(
  customId: string,
  outcome: BatchOutcome,
  refused?: { param: string | null; code: string | null },
): { file: 'output' | 'error'; line: unknown } {
  const id = newId('batch_req_loopback', 12);
  const response = (statusCode: number, body: unknown) => ({
    status_code: statusCode,
    request_id: newId('req_'),
    body,
  });
  switch (outcome.kind) {
    case 'succeeded':
      return {
        file: 'output',
        line: {
          id,
          custom_id: customId,
          response: response(200, renderCompletion(outcome.turn, outcome.reply)),
          error: null,
        },
      };
    case 'errored': {
      const invalid = outcome.cause === 'invalid_request';
      const body = invalid
        ? errorBody('invalid_request', outcome.message, refused?.param ?? null, refused?.code)
        : errorBody('internal', outcome.message);
      return {
        file: 'error',
        line: { id, custom_id: customId, response: response(invalid ? 400 : 500, body), error: null },
      };
    }
    case 'expired':
      return {
        file: 'error',
        line: {
          id,
          custom_id: customId,
          response: null,
          error: { code: 'batch_expired', message: EXPIRED_MESSAGE },
        },
      };
    case 'canceled':
      return {
        file: 'error',
        line: {
          id,
          custom_id: customId,
          response: null,
          error: { code: 'batch_cancelled', message: 'This request was cancelled with its batch.' },
        },
      };
  }
}

/**
 * What the API refuses in a batch's `metadata` (`Shared.Metadata`: at most 16 pairs, keys of at most 64
 * characters, string values of at most 512), with its messages: "Invalid 'metadata': too many
 * properties. Expected an object with at most 16 properties, but got an object with 17 properties
 * instead." (code object_above_max_properties), and the "string too long" and "Invalid type" messages
 * it gives any parameter. Null when it passes (absent and null pass).
 */
function metadataProblem(value: unknown): { message: string; param: string; code: string } | null {
  if (value === undefined || value === null) return null;
  if (!isRecord(value))
    return {
      message: `Invalid type for 'metadata': expected an object, but got ${Array.isArray(value) ? 'an array' : `a ${typeof value}`} instead.`,
      param: 'metadata',
      code: 'invalid_type',
    };
  const entries = Object.entries(value);
  if (entries.length > 16)
    return {
      message: `Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with ${entries.length} properties instead.`,
      param: 'metadata',
      code: 'object_above_max_properties',
    };
  for (const [key, v] of entries) {
    const param = `metadata.${key}`;
    if (key.length > 64)
      return {
        message: `Invalid '${param}': key too long. Expected a key with maximum length 64, but got a key with length ${key.length} instead.`,
        param: 'metadata',
        code: 'invalid_value',
      };
    if (typeof v !== 'string')
      return {
        message: `Invalid type for '${param}': expected a string, but got ${typeof v === 'number' ? 'a number' : `a ${typeof v}`} instead.`,
        param,
        code: 'invalid_type',
      };
    if (v.length > 512)
      return {
        message: `Invalid '${param}': string too long. Expected a string with maximum length 512, but got a string with length ${v.length} instead.`,
        param,
        code: 'string_above_max_length',
      };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Server

/** The OpenAI fake, with the files it holds (uploaded, and written by batches): what a test counts. */
export interface OpenAILoopbackServer extends LoopbackServer {
  /** the files not deleted, oldest first */
  files(): { id: string; purpose: string; filename: string; bytes: number }[];
}

export async function startOpenAIServer(opts: LoopbackOptions = {}): Promise<OpenAILoopbackServer> {
  const state = new LoopbackState('openai', opts, 'automatic-128');
  const files = new Map<string, StoredFile>();
  const batches = new Map<string, OpenAIBatch>();
  const renderer: SyncCallRenderer = {
    error: sendError,
    rateLimitHeaders,
    render: renderCompletion,
    replyHeaders: () => ({ 'x-request-id': newId('req_') }),
  };

  /** Settles a batch if due and writes its output and error files once it has ended. */
  const refresh = async (job: OpenAIBatch): Promise<void> => {
    const { meta } = job;
    // The creation response says 'validating'; any later look finds validation done.
    if (meta.validationErrors.length > 0) {
      meta.failedAt ??= Date.now();
      return;
    }
    meta.inProgressAt ??= Date.now();
    await job.settle(state);
    if (!job.outcomes || meta.filesWritten || job.failed) return;
    meta.filesWritten = true;
    const output: string[] = [];
    const errors: string[] = [];
    for (const [i, outcome] of job.outcomes.entries()) {
      const customId = job.entries[i]?.customId ?? String(i);
      const { file, line } = resultLine(customId, outcome, meta.refusedLines.get(customId));
      (file === 'output' ? output : errors).push(`${JSON.stringify(line)}\n`);
    }
    if (output.length > 0) {
      meta.outputFileId = storeFile(
        files,
        `${job.id}_output.jsonl`,
        'batch_output',
        Buffer.from(output.join('')),
      ).object.id;
    }
    if (errors.length > 0) {
      meta.errorFileId = storeFile(
        files,
        `${job.id}_error.jsonl`,
        'batch_output',
        Buffer.from(errors.join('')),
      ).object.id;
    }
  };

  const handle = async (ex: HttpExchange): Promise<void> => {
    const path = ex.url.pathname.replace(/\/+$/, '');
    const route = `${ex.method} ${path}`;
    const isCompletion = route === 'POST /v1/chat/completions';
    const fault = isCompletion ? state.faults.next() : null;

    const key = bearerToken(ex);
    if (!state.acceptsKey(key)) {
      if (key) sendError(ex, 401, 'authentication', incorrectKeyMessage(key));
      else
        sendJson(ex.res, 401, errorBody('invalid_request', NO_KEY_MESSAGE), {
          'x-request-id': newId('req_'),
        });
      return;
    }
    const injected = opts.intercept?.({ method: ex.method, path });
    if (injected) {
      const kind: ErrorKind =
        injected === 429 ? 'rate_limit' : injected >= 500 ? 'internal' : 'invalid_request';
      sendError(ex, injected, kind, `The server refused ${route} (injected by the test).`);
      return;
    }
    if (route === 'POST /v1/files') {
      const upload = await readUpload(ex);
      if (typeof upload === 'string') sendError(ex, 400, 'invalid_request', upload);
      else sendJson(ex.res, 200, storeFile(files, upload.filename, upload.purpose, upload.content).object);
      return;
    }
    const json =
      ex.method === 'POST' && ex.body.length > 0 ? parseJsonBody(ex.body) : { ok: true as const, value: {} };
    if (!json.ok) {
      const message =
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)";
      sendError(ex, 400, 'invalid_request', message);
      return;
    }

    if (isCompletion) {
      const issue = chatParamsIssue(json.value);
      if (issue) {
        sendJson(ex.res, 400, errorBody('invalid_request', issue.message, issue.param, issue.code));
        return;
      }
      const parsed = parseChatParams(json.value, null);
      if (!parsed.ok) sendJson(ex.res, 400, errorBody('invalid_request', parsed.message, parsed.param));
      else await serveSyncCall(state, ex, parsed.turn, fault, renderer);
      return;
    }

    if (route === 'GET /v1/files') {
      // newest first, or oldest with order=asc; only one purpose's with purpose=
      const purpose = ex.url.searchParams.get('purpose');
      const ordered = [...files.values()].map((f) => f.object);
      if (ex.url.searchParams.get('order') !== 'asc') ordered.reverse();
      const all = ordered.filter((f) => purpose === null || f.purpose === purpose);
      const { page, hasMore } = pageById(all, {
        after: ex.url.searchParams.get('after'),
        limit: limitParam(ex.url, 10000, 10000),
      });
      sendJson(ex.res, 200, {
        object: 'list',
        data: page,
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
        has_more: hasMore,
      });
      return;
    }
    const fileRoute = /^\/v1\/files\/([^/]+)(\/content)?$/.exec(path);
    if (fileRoute) {
      const file = files.get(decodeURIComponent(fileRoute[1] ?? ''));
      if (!file) sendJson(ex.res, 404, errorBody('not_found', `No such File object: ${fileRoute[1]}`, 'id'));
      else if (ex.method === 'GET' && fileRoute[2])
        sendRaw(ex.res, 200, file.content, 'application/octet-stream');
      else if (ex.method === 'GET') sendJson(ex.res, 200, file.object);
      else if (ex.method === 'DELETE') {
        files.delete(file.object.id);
        sendJson(ex.res, 200, { id: file.object.id, object: 'file', deleted: true });
      } else sendError(ex, 404, 'not_found', `No route for ${ex.method} ${path}.`);
      return;
    }

    if (route === 'POST /v1/batches') {
      const body = isRecord(json.value) ? json.value : {};
      const inputFileId = stringOr(body.input_file_id, '');
      const file = files.get(inputFileId);
      const endpoint = stringOr(body.endpoint, '');
      const window = stringOr(body.completion_window, '');
      const metadataIssue = metadataProblem(body.metadata);
      const metadata = isRecord(body.metadata)
        ? Object.fromEntries(Object.entries(body.metadata).map(([k, v]) => [k, String(v)]))
        : null;
      if (metadataIssue) {
        sendJson(
          ex.res,
          400,
          errorBody('invalid_request', metadataIssue.message, metadataIssue.param, metadataIssue.code),
        );
      } else if (!file) {
        sendJson(
          ex.res,
          400,
          errorBody(
            'invalid_request',
            `Invalid 'input_file_id': '${inputFileId}'. File not found.`,
            'input_file_id',
          ),
        );
      } else if (file.object.purpose !== 'batch') {
        sendJson(
          ex.res,
          400,
          errorBody(
            'invalid_request',
            "The input file must be uploaded with purpose 'batch'.",
            'input_file_id',
          ),
        );
      } else if (endpoint !== '/v1/chat/completions') {
        sendJson(
          ex.res,
          400,
          errorBody(
            'invalid_request',
            `The loopback server batches only /v1/chat/completions, not '${endpoint}'.`,
            'endpoint',
          ),
        );
      } else if (window !== '24h') {
        sendJson(
          ex.res,
          400,
          errorBody(
            'invalid_request',
            "Invalid 'completion_window': only '24h' is supported.",
            'completion_window',
          ),
        );
      } else {
        const { entries, errors, refusedLines } = parseBatchInput(file.content, endpoint);
        const meta: OpenAIBatchMeta = {
          inputFileId,
          endpoint,
          completionWindow: window,
          metadata,
          validationErrors: errors,
          inProgressAt: null,
          failedAt: null,
          outputFileId: null,
          errorFileId: null,
          filesWritten: false,
          refusedLines,
        };
        const job: OpenAIBatch = new BatchJob(newId('batch_loopback', 12), entries, meta, state);
        batches.set(job.id, job);
        sendJson(ex.res, 200, renderBatch(job));
      }
      return;
    }

    if (route === 'GET /v1/batches') {
      const all = await settleAll(batches, state);
      for (const job of all) await refresh(job);
      const { page, hasMore } = pageById(all, {
        after: ex.url.searchParams.get('after'),
        limit: limitParam(ex.url, 20, 100),
      });
      sendJson(ex.res, 200, {
        object: 'list',
        data: page.map(renderBatch),
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
        has_more: hasMore,
      });
      return;
    }

    const batchRoute = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(path);
    if (batchRoute) {
      const job = batches.get(decodeURIComponent(batchRoute[1] ?? ''));
      if (!job) {
        sendJson(
          ex.res,
          404,
          errorBody('not_found', `No batch found with id '${batchRoute[1]}'.`, 'batch_id'),
        );
      } else if (ex.method === 'GET' && !batchRoute[2]) {
        await refresh(job);
        sendJson(ex.res, 200, renderBatch(job));
      } else if (ex.method === 'POST' && batchRoute[2]) {
        if (!job.ended && job.meta.validationErrors.length === 0) job.cancelRequestedAt ??= Date.now();
        sendJson(ex.res, 200, renderBatch(job));
      } else sendError(ex, 404, 'not_found', `No route for ${ex.method} ${path}.`);
      return;
    }

    sendError(ex, 404, 'not_found', `No route for ${ex.method} ${path} on the loopback OpenAI server.`);
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
    url: `${server.origin}/v1`,
    provider: 'openai',
    files: () =>
      [...files.values()].map(({ object: f }) => ({
        id: f.id,
        purpose: f.purpose,
        filename: f.filename,
        bytes: f.bytes,
      })),
    calls: state.calls,
    billed: state.billed,
    requests: state.requests,
    close: server.close,
  };
}
