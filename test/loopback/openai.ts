/**
 * A loopback OpenAI API for the `openai` SDK (pass `baseURL: server.url`, which ends in `/v1`):
 * POST /v1/chat/completions (non-streaming), files (multipart upload, retrieve, content, list, delete)
 * and batches over /v1/chat/completions (create, retrieve, list, cancel) with output and error files.
 */
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

/** OpenAI's error body: `{error:{message, type, param, code}}`. */
function errorBody(kind: ErrorKind, message: string, param: string | null = null) {
  return { error: { message, ...ERROR_TYPES[kind], param } };
}

function sendError(ex: HttpExchange, status: number, kind: ErrorKind, message: string, headers = {}) {
  sendJson(ex.res, status, errorBody(kind, message), { 'x-request-id': newId('req_'), ...headers });
}

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
        message: { role: 'assistant', content: reply.text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: reply.stop === 'max_tokens' ? 'length' : 'stop',
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
}

type OpenAIBatch = BatchJob<OpenAIBatchMeta>;

const EXPIRED_MESSAGE = 'This request could not be executed before the completion window expired.';

/** Parses the batch input file: one `{custom_id, method, url, body}` per line. */
function parseBatchInput(content: Buffer, endpoint: string) {
  const errors: BatchLineError[] = [];
  const entries: { customId: string; turn: ModelTurn | null; invalid: string | null }[] = [];
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
  return { entries, errors };
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

/** One line of the output or error file for an item, and which of the two it belongs in. */
function resultLine(customId: string, outcome: BatchOutcome): { file: 'output' | 'error'; line: unknown } {
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
      const body = errorBody(invalid ? 'invalid_request' : 'internal', outcome.message);
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

// ---------------------------------------------------------------------------------------------------
// Server

export async function startOpenAIServer(opts: LoopbackOptions = {}): Promise<LoopbackServer> {
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
      const { file, line } = resultLine(job.entries[i]?.customId ?? String(i), outcome);
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

    if (!state.acceptsKey(bearerToken(ex))) {
      sendError(ex, 401, 'authentication', 'Incorrect API key provided.');
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
      const parsed = parseChatParams(json.value, null);
      if (!parsed.ok) sendJson(ex.res, 400, errorBody('invalid_request', parsed.message, parsed.param));
      else await serveSyncCall(state, ex, parsed.turn, fault, renderer);
      return;
    }

    if (route === 'GET /v1/files') {
      const all = [...files.values()].reverse().map((f) => f.object);
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
      const metadata = isRecord(body.metadata)
        ? Object.fromEntries(Object.entries(body.metadata).map(([k, v]) => [k, String(v)]))
        : null;
      if (!file) {
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
        const { entries, errors } = parseBatchInput(file.content, endpoint);
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
        };
        const job: OpenAIBatch = new BatchJob(
          newId('batch_loopback', 12),
          entries,
          meta,
          state.batchCompleteAfterMs,
        );
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
    calls: state.calls,
    billed: state.billed,
    requests: state.requests,
    close: server.close,
  };
}
