/**
 * A loopback Anthropic Messages API for `@anthropic-ai/sdk` (pass `baseURL: server.url`):
 * POST /v1/messages (non-streaming), POST /v1/messages/count_tokens, and Message Batches (create,
 * retrieve, list, cancel, delete, results JSONL).
 *
 * Note: SDK 1.14 to 1.16 send `apiKey` as `Authorization: Bearer`, older ones as `x-api-key`; both are accepted.
 *
 * The server is as strict as the API: every request needs a known `anthropic-version` header, and a
 * Messages body (sync, count_tokens, or a batch's params) may carry only the fields that version takes
 * (`Extra inputs are not permitted`, see "Request validation" below), and no text block may be empty
 * or whitespace only (`emptyTextIssue`).
 */
import type { BatchCreateParams } from '@anthropic-ai/sdk/resources/messages/batches';
import type {
  CacheControlEphemeral,
  JSONOutputFormat,
  MessageCountTokensParams,
  MessageCreateParamsNonStreaming,
  MessageParam,
  OutputConfig,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import {
  BatchJob,
  type BatchOutcome,
  bearerToken,
  type CacheTtl,
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
  rfc3339,
  type SyncCallRenderer,
  sendJson,
  sendRaw,
  serveSyncCall,
  settleAll,
  stringOr,
} from './common.ts';
import {
  dottedPath,
  findUnknownField,
  type KeysOfUnion,
  type ObjectRule,
  type UnknownField,
  type ValueRule,
  withFields,
} from './strict.ts';

const ERROR_TYPES: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  not_found: 'not_found_error',
  rate_limit: 'rate_limit_error',
  internal: 'api_error',
  bad_gateway: 'api_error',
  unavailable: 'api_error',
  overloaded: 'overloaded_error',
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** Anthropic's error body: `{type:'error', error:{type, message}, request_id}`. */
function errorBody(kind: ErrorKind, message: string, requestId: string | null) {
  return { type: 'error', error: { type: ERROR_TYPES[kind], message }, request_id: requestId };
}

function sendError(ex: HttpExchange, status: number, kind: ErrorKind, message: string, headers = {}) {
  const requestId = newId('req_loopback_');
  sendJson(ex.res, status, errorBody(kind, message, requestId), { 'request-id': requestId, ...headers });
}

function rateLimitHeaders(s: RateLimitSnapshot): Record<string, string> {
  const reset = rfc3339(Date.now() + s.resetMs);
  const headers: Record<string, string> = {};
  if (s.requestsLimit !== null) {
    headers['anthropic-ratelimit-requests-limit'] = String(s.requestsLimit);
    headers['anthropic-ratelimit-requests-remaining'] = String(s.requestsRemaining);
    headers['anthropic-ratelimit-requests-reset'] = reset;
  }
  if (s.tokensLimit !== null) {
    for (const family of ['tokens', 'input-tokens']) {
      headers[`anthropic-ratelimit-${family}-limit`] = String(s.tokensLimit);
      headers[`anthropic-ratelimit-${family}-remaining`] = String(s.tokensRemaining);
      headers[`anthropic-ratelimit-${family}-reset`] = reset;
    }
  }
  return headers;
}

// ---------------------------------------------------------------------------------------------------
// Request validation

/**
 * The API versions the server knows: 2023-06-01, the first, which still takes sampling parameters, and
 * 2026-10-21, the one SDK 1.14 to 1.16 send (client.js `buildHeaders`), which does not.
 */
export const API_VERSIONS = ['2023-06-01', '2026-10-21'] as const;

export type ApiVersion = (typeof API_VERSIONS)[number];

/** The version header of a request, or the API's 400 message when it is missing or unknown. */
function apiVersionOf(ex: HttpExchange): { ok: true; version: ApiVersion } | { ok: false; message: string } {
  const header = ex.req.headers['anthropic-version'];
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value === undefined || value === '')
    return { ok: false, message: 'anthropic-version: header is required' };
  const version = API_VERSIONS.find((v) => v === value);
  return version
    ? { ok: true, version }
    : { ok: false, message: `anthropic-version: "${value}" is not a valid version` };
}

/** Params the SDK takes out of the body and sends as headers (`anthropic-user-profile-id`, `anthropic-workspace-id`). */
type HeaderParams = 'user_profile_id' | 'workspace_id';

/** The body fields of POST /v1/messages: `MessageCreateParamsNonStreaming` less its header params. */
const MESSAGE_BODY_FIELDS = {
  model: true,
  max_tokens: true,
  messages: true,
  cache_control: true,
  container: true,
  diagnostics: true,
  inference_geo: true,
  metadata: true,
  output_config: true,
  service_tier: true,
  speed: true,
  stop_sequences: true,
  stream: true,
  system: true,
  thinking: true,
  tool_choice: true,
  tools: true,
} satisfies Record<Exclude<keyof MessageCreateParamsNonStreaming, HeaderParams>, true>;

/** The body fields of POST /v1/messages/count_tokens: `MessageCountTokensParams` (it has no max_tokens). */
const COUNT_TOKENS_FIELDS = {
  model: true,
  messages: true,
  cache_control: true,
  output_config: true,
  speed: true,
  system: true,
  thinking: true,
  tool_choice: true,
  tools: true,
} satisfies Record<Exclude<keyof MessageCountTokensParams, HeaderParams>, true>;

/**
 * The sampling parameters API version 2023-06-01 still takes. Version 2026-10-21 (and so the SDK's
 * types) has none of them: there they are extra inputs like any other, whatever their value.
 */
const LEGACY_SAMPLING_FIELDS = { temperature: true, top_p: true, top_k: true } as const;

/** The body of POST /v1/messages/batches: `BatchCreateParams` less its header params. */
const BATCH_BODY_FIELDS = { requests: true } satisfies Record<
  Exclude<keyof BatchCreateParams, HeaderParams>,
  true
>;

/** One request of a batch: `BatchCreateParams.Request`. */
const BATCH_REQUEST_FIELDS = { custom_id: true, params: true } satisfies Record<
  keyof BatchCreateParams.Request,
  true
>;

/** A message: the fields every member of `MessageParam` (user, assistant, system) has. */
const MESSAGE_FIELDS = { role: true, content: true } satisfies Record<KeysOfUnion<MessageParam>, true>;

/** A text block: `TextBlockParam`. */
const TEXT_BLOCK_FIELDS = { type: true, text: true, cache_control: true, citations: true } satisfies Record<
  keyof TextBlockParam,
  true
>;

/** A cache breakpoint: `CacheControlEphemeral`. */
const CACHE_CONTROL_FIELDS = { type: true, ttl: true } satisfies Record<keyof CacheControlEphemeral, true>;

/** `output_config`: `OutputConfig`. */
const OUTPUT_CONFIG_FIELDS = { effort: true, format: true } satisfies Record<keyof OutputConfig, true>;

/** `output_config.format`: `JSONOutputFormat`. */
const OUTPUT_FORMAT_FIELDS = { type: true, schema: true } satisfies Record<keyof JSONOutputFormat, true>;

const CACHE_CONTROL: ObjectRule = { fields: CACHE_CONTROL_FIELDS };
const TEXT_BLOCK: ObjectRule = { fields: TEXT_BLOCK_FIELDS, children: { cache_control: CACHE_CONTROL } };
/** A block of another type: its own fields are not checked, its cache breakpoint is. */
const OTHER_BLOCK: ObjectRule = { fields: null, children: { cache_control: CACHE_CONTROL } };
const CONTENT_BLOCK: ValueRule = {
  choose: (block) => (isRecord(block) && block.type === 'text' ? TEXT_BLOCK : OTHER_BLOCK),
};
const MESSAGE: ObjectRule = { fields: MESSAGE_FIELDS, children: { content: { each: CONTENT_BLOCK } } };
const BODY_CHILDREN: ObjectRule['children'] = {
  messages: { each: MESSAGE },
  system: { each: TEXT_BLOCK },
  cache_control: CACHE_CONTROL,
  output_config: { fields: OUTPUT_CONFIG_FIELDS, children: { format: { fields: OUTPUT_FORMAT_FIELDS } } },
};

export type MessagesEndpoint = 'messages' | 'count_tokens';

function bodyRule(endpoint: MessagesEndpoint, version: ApiVersion): ObjectRule {
  const rule = {
    fields: endpoint === 'messages' ? MESSAGE_BODY_FIELDS : COUNT_TOKENS_FIELDS,
    children: BODY_CHILDREN,
  };
  return version === '2023-06-01' ? withFields(rule, LEGACY_SAMPLING_FIELDS) : rule;
}

/** A field of a request the API refuses: its dotted path, and why. */
export interface ParamsIssue {
  path: string;
  problem: string;
}

/** The API's (pydantic's) message for a field the model of the body does not have. */
function extraInput(unknown: UnknownField): ParamsIssue {
  return { path: dottedPath([...unknown.parent, unknown.field]), problem: 'Extra inputs are not permitted' };
}

/**
 * Content that version 2026-10-21 refuses although its fields are known: document blocks in assistant
 * messages, and citations on the text blocks of user messages. The API's exact wording for these two is
 * not known; the messages here are plausible ones in its `<path>: <problem>` form.
 */
function contentIssue(messages: unknown[]): ParamsIssue | null {
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const [j, block] of message.content.entries()) {
      if (!isRecord(block)) continue;
      if (message.role === 'assistant' && block.type === 'document') {
        return {
          path: `messages.${i}.content.${j}`,
          problem: 'document blocks are not permitted in assistant messages',
        };
      }
      const cited = Array.isArray(block.citations) && block.citations.length > 0;
      if (message.role === 'user' && block.type === 'text' && cited) {
        return {
          path: `messages.${i}.content.${j}.citations`,
          problem: 'citations are not permitted on text blocks of user messages',
        };
      }
    }
  }
  return null;
}

/**
 * What the API refuses in a Messages body under `version` before it reads it: a field the endpoint does
 * not take (top level, in a message, a text block, a cache breakpoint, `output_config`, its `format`),
 * then the content rules of the version. Null when the body passes; a body that is not an object is
 * left to the parser.
 */
export function paramsIssue(
  params: unknown,
  endpoint: MessagesEndpoint,
  version: ApiVersion,
): ParamsIssue | null {
  if (!isRecord(params)) return null;
  const unknown = findUnknownField(params, bodyRule(endpoint, version));
  if (unknown) return extraInput(unknown);
  if (version !== '2023-06-01' && Array.isArray(params.messages)) return contentIssue(params.messages);
  return null;
}

/** A batch create body's first refused field: `requests.<i>.<field>` or `requests.<i>.params.<path>`. */
function batchIssue(body: Record<string, unknown>, version: ApiVersion): ParamsIssue | null {
  const unknown = findUnknownField(body, {
    fields: BATCH_BODY_FIELDS,
    children: { requests: { each: { fields: BATCH_REQUEST_FIELDS } } },
  });
  if (unknown) return extraInput(unknown);
  const requests = Array.isArray(body.requests) ? body.requests : [];
  for (const [i, request] of requests.entries()) {
    const issue = isRecord(request) ? paramsIssue(request.params, 'messages', version) : null;
    if (issue) return { ...issue, path: `requests.${i}.params.${issue.path}` };
  }
  return null;
}

/**
 * The API's refusal of a text block without text (400 invalid_request_error, whatever the version):
 * `messages: text content blocks must be non-empty` for an empty one, `messages: text content blocks
 * must contain non-whitespace text` for whitespace only (`system: ...` in the system prompt), and
 * `messages.<i>: all messages must have non-empty content except for the optional final assistant
 * message` for a message whose content is an empty string or no block. The wording is the API's, as
 * quoted with its request ids in public reports (anthropics/claude-code#59812 and #23440, #6774;
 * BoltAI/BoltAI#165 for the `system:` form of the whitespace rule; the `system:` form of the empty rule
 * is assumed to follow it).
 */
export function emptyTextIssue(params: Record<string, unknown>): string | null {
  const blocksIssue = (where: 'system' | 'messages', content: unknown): string | null => {
    if (!Array.isArray(content)) return null;
    for (const block of content) {
      if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') continue;
      if (block.text === '') return `${where}: text content blocks must be non-empty`;
      if (block.text.trim() === '') return `${where}: text content blocks must contain non-whitespace text`;
    }
    return null;
  };
  const system = blocksIssue('system', params.system);
  if (system) return system;
  const messages = Array.isArray(params.messages) ? params.messages : [];
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) continue;
    const finalAssistant = i === messages.length - 1 && message.role === 'assistant';
    const empty = message.content === '' || (Array.isArray(message.content) && message.content.length === 0);
    if (empty && !finalAssistant)
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    const issue = blocksIssue('messages', message.content);
    if (issue) return issue;
  }
  return null;
}

function issueMessage(issue: ParamsIssue): string {
  return `${issue.path}: ${issue.problem}`;
}

// ---------------------------------------------------------------------------------------------------
// Request parsing

type Parsed = { ok: true; turn: ModelTurn } | { ok: false; message: string };

function cacheTtlOf(block: unknown): CacheTtl | null {
  if (!isRecord(block) || !isRecord(block.cache_control)) return null;
  return block.cache_control.ttl === '1h' ? '1h' : '5m';
}

/** The text a content block contributes to the prompt. */
function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (!isRecord(block)) return '';
  if (block.type === 'text') return stringOr(block.text, '');
  if (block.type === 'document' && isRecord(block.source) && block.source.type === 'text') {
    return stringOr(block.source.data, '');
  }
  if (block.type === 'tool_result') {
    const content = block.content;
    return typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map(blockText).join('\n')
        : '';
  }
  return '';
}

/** Content (a string or blocks) as cache segments, in order. */
function contentSegments(content: unknown): PromptSegment[] {
  if (typeof content === 'string') return [promptSegment(content)];
  if (!Array.isArray(content)) return [];
  return content.map((block) => promptSegment(blockText(block), cacheTtlOf(block)));
}

/** The JSON schema of `output_config.format`, or null. */
function schemaOf(params: Record<string, unknown>): unknown | null {
  const config = isRecord(params.output_config) ? params.output_config : {};
  const format = isRecord(config.format) ? config.format : null;
  return format?.type === 'json_schema' ? (format.schema ?? {}) : null;
}

/**
 * A Messages API body as a model turn: system blocks first, then every message's blocks, in order.
 * A count_tokens body has no max_tokens; its turn has none either.
 */
export function parseMessagesParams(
  params: unknown,
  customId: string | null,
  apiVersion: ApiVersion,
  endpoint: MessagesEndpoint = 'messages',
): Parsed {
  if (!isRecord(params)) return { ok: false, message: 'The request body must be a JSON object.' };
  if (params.stream === true)
    return { ok: false, message: 'stream: true is not supported by the loopback server.' };
  if (typeof params.model !== 'string' || params.model === '')
    return { ok: false, message: 'model: Field required' };
  const maxTokens = endpoint === 'count_tokens' ? null : numberOr(params.max_tokens, null);
  if (endpoint === 'messages' && (maxTokens === null || maxTokens < 0))
    return { ok: false, message: 'max_tokens: Field required' };
  if (!Array.isArray(params.messages)) return { ok: false, message: 'messages: Field required' };
  const empty = emptyTextIssue(params);
  if (empty) return { ok: false, message: empty };

  const segments = contentSegments(params.system);
  const systemTexts = segments.map((s) => s.text);
  const messages: LoopbackCall['messages'] = [];
  for (const [i, message] of params.messages.entries()) {
    if (!isRecord(message) || !['user', 'assistant', 'system'].includes(String(message.role))) {
      return { ok: false, message: `messages.${i}.role: Input should be 'user', 'assistant' or 'system'` };
    }
    const blocks = contentSegments(message.content);
    segments.push(...blocks);
    const text = blocks.map((b) => b.text).join('\n');
    if (message.role === 'system') systemTexts.push(text);
    else messages.push({ role: message.role === 'assistant' ? 'assistant' : 'user', text });
  }
  // Top-level cache_control marks the last cacheable block.
  const last = segments.at(-1);
  if (last && last.cacheTtl === null && isRecord(params.cache_control)) {
    last.cacheTtl = params.cache_control.ttl === '1h' ? '1h' : '5m';
  }
  const call: LoopbackCall = {
    provider: 'anthropic',
    model: params.model,
    system: systemTexts.join('\n'),
    messages,
    schema: schemaOf(params),
    temperature: numberOr(params.temperature, null),
    seed: null,
    maxTokens,
    batch: customId !== null,
    customId,
    apiVersion,
    body: params,
  };
  return { ok: true, turn: { call, segments } };
}

// ---------------------------------------------------------------------------------------------------
// Responses

function renderMessage(turn: ModelTurn, reply: ProducedReply) {
  const { input } = reply;
  return {
    id: newId('msg_loopback_'),
    type: 'message',
    role: 'assistant',
    model: turn.call.model,
    content: [{ type: 'text', text: reply.text, citations: null }],
    stop_reason: reply.stop === 'max_tokens' ? 'max_tokens' : reply.stop === 'end' ? 'end_turn' : 'refusal',
    stop_sequence: null,
    stop_details:
      reply.stop === 'refusal' || reply.stop === 'safety'
        ? { type: 'refusal', category: null, explanation: 'This request was declined (loopback).' }
        : null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: input.uncached,
      output_tokens: reply.outputTokens,
      cache_creation_input_tokens: input.cacheWrite,
      cache_read_input_tokens: input.cacheRead,
      cache_creation: {
        ephemeral_5m_input_tokens: input.cacheWriteTtl === '5m' ? input.cacheWrite : 0,
        ephemeral_1h_input_tokens: input.cacheWriteTtl === '1h' ? input.cacheWrite : 0,
      },
      inference_geo: null,
      output_tokens_details: { thinking_tokens: 0 },
      server_tool_use: null,
      service_tier: turn.call.batch ? 'batch' : 'standard',
      speed: 'standard',
    },
  };
}

interface AnthropicBatchMeta {
  /** set once the batch was deleted; a deleted batch is gone from every route */
  deleted: boolean;
}

type AnthropicBatch = BatchJob<AnthropicBatchMeta>;

function renderBatch(job: AnthropicBatch, origin: string) {
  const ended = job.ended;
  const counts = {
    processing: ended ? 0 : job.entries.length,
    succeeded: job.count('succeeded'),
    errored: job.count('errored'),
    canceled: job.count('canceled'),
    expired: job.count('expired'),
  };
  return {
    id: job.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : job.cancelRequestedAt !== null ? 'canceling' : 'in_progress',
    request_counts: counts,
    created_at: rfc3339(job.createdAt),
    ended_at: job.endedAt === null ? null : rfc3339(job.endedAt),
    expires_at: rfc3339(job.createdAt + DAY_MS),
    archived_at: null,
    cancel_initiated_at: job.cancelRequestedAt === null ? null : rfc3339(job.cancelRequestedAt),
    results_url: ended ? `${origin}/v1/messages/batches/${job.id}/results` : null,
  };
}

function renderResult(job: AnthropicBatch, outcome: BatchOutcome, index: number) {
  const entry = job.entries[index];
  const customId = entry?.customId ?? String(index);
  switch (outcome.kind) {
    case 'succeeded':
      return {
        custom_id: customId,
        result: { type: 'succeeded', message: renderMessage(outcome.turn, outcome.reply) },
      };
    case 'errored': {
      const kind: ErrorKind = outcome.cause === 'invalid_request' ? 'invalid_request' : 'internal';
      return {
        custom_id: customId,
        result: { type: 'errored', error: errorBody(kind, outcome.message, null) },
      };
    }
    default:
      return { custom_id: customId, result: { type: outcome.kind } };
  }
}

// ---------------------------------------------------------------------------------------------------
// Server

export async function startAnthropicServer(opts: LoopbackOptions = {}): Promise<LoopbackServer> {
  const state = new LoopbackState('anthropic', opts, 'explicit');
  const batches = new Map<string, AnthropicBatch>();
  const renderer: SyncCallRenderer = {
    error: sendError,
    rateLimitHeaders,
    render: renderMessage,
    replyHeaders: () => ({ 'request-id': newId('req_loopback_') }),
  };

  const liveBatch = (id: string | undefined): AnthropicBatch | null => {
    const job = id ? batches.get(id) : undefined;
    return job && !job.meta.deleted ? job : null;
  };

  const handle = async (ex: HttpExchange): Promise<void> => {
    const path = ex.url.pathname.replace(/\/+$/, '');
    const route = `${ex.method} ${path}`;
    const isMessages = route === 'POST /v1/messages';
    const fault = isMessages ? state.faults.next() : null;

    const key = stringOr(ex.req.headers['x-api-key'], null) ?? bearerToken(ex);
    if (!state.acceptsKey(key)) {
      sendError(ex, 401, 'authentication', 'invalid x-api-key');
      return;
    }
    const apiVersion = apiVersionOf(ex);
    if (!apiVersion.ok) {
      sendError(ex, 400, 'invalid_request', apiVersion.message);
      return;
    }
    const { version } = apiVersion;
    const json =
      ex.method === 'POST' && ex.body.length > 0 ? parseJsonBody(ex.body) : { ok: true as const, value: {} };
    if (!json.ok) {
      sendError(
        ex,
        400,
        'invalid_request',
        `There was an issue with your request body: invalid JSON (${json.error}).`,
      );
      return;
    }

    if (isMessages || route === 'POST /v1/messages/count_tokens') {
      const endpoint: MessagesEndpoint = isMessages ? 'messages' : 'count_tokens';
      const issue = paramsIssue(json.value, endpoint, version);
      if (issue) {
        sendError(ex, 400, 'invalid_request', issueMessage(issue));
        return;
      }
      const parsed = parseMessagesParams(json.value, null, version, endpoint);
      if (!parsed.ok) sendError(ex, 400, 'invalid_request', parsed.message);
      else if (isMessages) await serveSyncCall(state, ex, parsed.turn, fault, renderer);
      else sendJson(ex.res, 200, { input_tokens: parsed.turn.segments.reduce((n, s) => n + s.tokens, 0) });
      return;
    }

    if (route === 'POST /v1/messages/batches') {
      const body = isRecord(json.value) ? json.value : {};
      const requests = body.requests;
      if (!Array.isArray(requests) || requests.length === 0) {
        sendError(ex, 400, 'invalid_request', 'requests: List should have at least 1 item');
        return;
      }
      // A params object the API refuses (a field its version does not take) fails the whole create;
      // one that passes that check but cannot be served (no model, say) becomes an errored item.
      const issue = batchIssue(body, version);
      if (issue) {
        sendError(ex, 400, 'invalid_request', issueMessage(issue));
        return;
      }
      const ids = new Set<string>();
      const entries = [];
      for (const [i, request] of requests.entries()) {
        const customId = isRecord(request) ? request.custom_id : undefined;
        if (typeof customId !== 'string' || customId === '' || ids.has(customId)) {
          sendError(ex, 400, 'invalid_request', `requests.${i}.custom_id: must be a unique non-empty string`);
          return;
        }
        ids.add(customId);
        const parsed = parseMessagesParams(isRecord(request) ? request.params : undefined, customId, version);
        entries.push(
          parsed.ok
            ? { customId, turn: parsed.turn, invalid: null }
            : { customId, turn: null, invalid: parsed.message },
        );
      }
      const job: AnthropicBatch = new BatchJob(
        newId('msgbatch_loopback_'),
        entries,
        { deleted: false },
        state,
      );
      batches.set(job.id, job);
      sendJson(ex.res, 200, renderBatch(job, ex.origin));
      return;
    }

    if (route === 'GET /v1/messages/batches') {
      const all = (await settleAll(batches, state)).filter((j) => !j.meta.deleted);
      const { page, hasMore } = pageById(all, {
        after: ex.url.searchParams.get('after_id'),
        before: ex.url.searchParams.get('before_id'),
        limit: limitParam(ex.url, 20, 1000),
      });
      sendJson(ex.res, 200, {
        data: page.map((j) => renderBatch(j, ex.origin)),
        has_more: hasMore,
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
      });
      return;
    }

    const batchRoute = /^\/v1\/messages\/batches\/([^/]+)(?:\/(cancel|results))?$/.exec(path);
    if (batchRoute) {
      const job = liveBatch(batchRoute[1] && decodeURIComponent(batchRoute[1]));
      const action = `${ex.method} ${batchRoute[2] ?? ''}`;
      if (!job) {
        sendError(ex, 404, 'not_found', `Message batch ${batchRoute[1]} not found.`);
        return;
      }
      if (action === 'GET ') {
        await job.settle(state);
        sendJson(ex.res, 200, renderBatch(job, ex.origin));
        return;
      }
      if (action === 'POST cancel') {
        if (!job.ended && job.cancelRequestedAt === null) job.cancelRequestedAt = Date.now();
        sendJson(ex.res, 200, renderBatch(job, ex.origin));
        return;
      }
      if (action === 'DELETE ') {
        await job.settle(state);
        if (!job.ended) {
          sendError(
            ex,
            400,
            'invalid_request',
            'A batch can only be deleted once it has ended; cancel it first.',
          );
          return;
        }
        job.meta.deleted = true;
        sendJson(ex.res, 200, { id: job.id, type: 'message_batch_deleted' });
        return;
      }
      if (action === 'GET results') {
        await job.settle(state);
        if (!job.outcomes) {
          sendError(
            ex,
            404,
            'not_found',
            `Message batch ${job.id} has not ended yet; its results are not ready.`,
          );
          return;
        }
        const lines = job.outcomes.map((o, i) => `${JSON.stringify(renderResult(job, o, i))}\n`).join('');
        sendRaw(ex.res, 200, lines, 'application/binary');
        return;
      }
    }

    sendError(ex, 404, 'not_found', `No route for ${ex.method} ${path} on the loopback Anthropic server.`);
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
    provider: 'anthropic',
    calls: state.calls,
    billed: state.billed,
    requests: state.requests,
    close: server.close,
  };
}
