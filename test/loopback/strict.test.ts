/**
 * The loopback servers refuse what the real APIs refuse, with the APIs' own statuses and messages, and
 * accept the same request once the offending field is gone. Every request goes through the real SDKs;
 * a field an SDK's types lack is sent the way the SDK documents for undocumented params (`@ts-expect-error`
 * for the Stainless SDKs, `httpOptions.extraBody` for @google/genai), and a value no SDK can produce
 * (a lower-case enum, a body without the version header) with a raw fetch.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import {
  ApiError,
  type GenerateContentParameters,
  GoogleGenAI,
  JobState,
  ThinkingLevel,
} from '@google/genai';
import OpenAI, { toFile } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.ts';
import { type LoopbackServer, startAnthropicServer, startGeminiServer, startOpenAIServer } from './index.ts';

const KEY = 'loopback-strict-key';
const USER = 'Question: What was consolidated revenue in FY24?';

const open: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(start: Promise<LoopbackServer>): Promise<LoopbackServer> {
  const server = await start;
  open.push(server);
  return server;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

// ---------------------------------------------------------------------------------------------------
// Anthropic

describe('anthropic loopback refuses what the Messages API refuses', () => {
  const LEGACY = { 'anthropic-version': '2023-06-01' };

  const client = (server: LoopbackServer, opts: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
    new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0, ...opts });

  const params = (extra: Partial<MessageCreateParamsNonStreaming> = {}): MessageCreateParamsNonStreaming => ({
    model: 'claude-sonnet-4-6',
    max_tokens: 256,
    messages: [{ role: 'user', content: USER }],
    ...extra,
  });

  /** A request with `temperature: 0`, which the SDK's types (API version 2026-10-21) no longer have. */
  const withTemperature = (): MessageCreateParamsNonStreaming => ({
    ...params(),
    // @ts-expect-error: an undocumented param, sent as the SDK's README says
    temperature: 0,
  });

  async function expectRefused(promise: Promise<unknown>, message: string): Promise<void> {
    const err = await rejection(promise);
    if (!(err instanceof Anthropic.BadRequestError)) throw err;
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message } });
  }

  /** POST /v1/messages with a body and headers of the test's choosing. */
  const post = (server: LoopbackServer, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': KEY,
        'content-type': 'application/json',
        'anthropic-version': '2026-10-21',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('refuses a top-level field the params type lacks, header params in the body included', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    await expectRefused(
      client(server).messages.create({
        ...params(),
        // @ts-expect-error: not a Messages API param
        top_logprobs: 3,
      }),
      'top_logprobs: Extra inputs are not permitted',
    );

    // The SDK sends workspace_id as a header; in the body it is an extra input.
    const inBody = await post(server, { ...params(), workspace_id: 'wrkspc_1' });
    expect(inBody.status).toBe(400);
    expect(await inBody.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'workspace_id: Extra inputs are not permitted' },
    });

    await client(server).messages.create({ ...params(), workspace_id: 'wrkspc_1' });
    expect(server.requests.at(-1)?.headers['anthropic-workspace-id']).toBe('wrkspc_1');
    expect(server.calls.map((c) => c.body)).toEqual([params()]);
  });

  it('refuses unknown fields in messages, blocks, system, cache_control and output_config', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    const system: Anthropic.TextBlockParam[] = [
      { type: 'text', text: 'Answer from the context.', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ];
    const content: Anthropic.TextBlockParam[] = [
      { type: 'text', text: 'Context: none.' },
      { type: 'text', text: USER, cache_control: { type: 'ephemeral' } },
    ];
    const valid = params({
      system,
      messages: [{ role: 'user', content }],
      cache_control: { type: 'ephemeral' },
      output_config: {
        effort: 'low',
        format: { type: 'json_schema', schema: { type: 'object', properties: {} } },
      },
    });
    const cases: [string, unknown][] = [
      [
        'messages.0.content.1.foo',
        { ...valid, messages: [{ role: 'user', content: [content[0], { ...content[1], foo: 1 }] }] },
      ],
      ['messages.0.name', { ...valid, messages: [{ role: 'user', content, name: 'analyst' }] }],
      ['system.0.foo', { ...valid, system: [{ ...system[0], foo: 1 }] }],
      [
        'system.0.cache_control.scope',
        { ...valid, system: [{ ...system[0], cache_control: { type: 'ephemeral', scope: 'org' } }] },
      ],
      ['cache_control.foo', { ...valid, cache_control: { type: 'ephemeral', foo: 1 } }],
      ['output_config.foo', { ...valid, output_config: { ...valid.output_config, foo: 1 } }],
      [
        'output_config.format.strict',
        { ...valid, output_config: { format: { type: 'json_schema', schema: {}, strict: true } } },
      ],
    ];
    for (const [path, body] of cases) {
      const response = await post(server, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: { type: 'invalid_request_error', message: `${path}: Extra inputs are not permitted` },
      });
    }
    await client(server).messages.create(valid);
    expect(server.calls).toHaveLength(1);
    expect(server.calls[0]?.body).toEqual(valid);
  });

  it('requires a known anthropic-version header, and records the version of each call', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    await expectRefused(
      client(server, { defaultHeaders: { 'anthropic-version': null } }).messages.create(params()),
      'anthropic-version: header is required',
    );
    await expectRefused(
      client(server, { defaultHeaders: { 'anthropic-version': '2024-01-01' } }).messages.create(params()),
      'anthropic-version: "2024-01-01" is not a valid version',
    );
    await expectRefused(
      client(server, { defaultHeaders: { 'anthropic-version': null } })
        .messages.batches.list()
        .then(() => {}),
      'anthropic-version: header is required',
    );

    await client(server).messages.create(params());
    await client(server, { defaultHeaders: LEGACY }).messages.create(params());
    expect(server.calls.map((c) => c.apiVersion)).toEqual(['2026-10-21', '2023-06-01']);
  });

  it('refuses temperature, top_p and top_k under 2026-10-21 whatever their values, and takes them under 2023-06-01', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    await expectRefused(
      client(server).messages.create(withTemperature()),
      'temperature: Extra inputs are not permitted',
    );
    // Their defaults (temperature 1, top_p 1) are refused too.
    for (const [field, value] of [
      ['temperature', 1],
      ['top_p', 1],
      ['top_k', 40],
    ] as const) {
      const response = await post(server, { ...params(), [field]: value });
      expect(await response.json()).toMatchObject({
        error: { message: `${field}: Extra inputs are not permitted` },
      });
    }
    await client(server).messages.create(params());

    await client(server, { defaultHeaders: LEGACY }).messages.create(withTemperature());
    const legacy = await post(server, { ...params(), temperature: 0, top_p: 1, top_k: 40 }, LEGACY);
    expect(legacy.status).toBe(200);
    expect(server.calls.map((c) => [c.apiVersion, c.temperature])).toEqual([
      ['2026-10-21', null],
      ['2023-06-01', 0],
      ['2023-06-01', 0],
    ]);
  });

  it('refuses documents in assistant turns and citations on user text under 2026-10-21 only', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    const document: Anthropic.DocumentBlockParam = {
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: 'Revenue rose 12%.' },
    };
    const cited: Anthropic.TextBlockParam = {
      type: 'text',
      text: 'Revenue rose 12%.',
      citations: [
        {
          type: 'char_location',
          cited_text: 'Revenue rose 12%.',
          document_index: 0,
          document_title: null,
          start_char_index: 0,
          end_char_index: 17,
        },
      ],
    };
    const withDocument = params({
      messages: [
        { role: 'user', content: USER },
        { role: 'assistant', content: [document] },
        { role: 'user', content: 'And net profit?' },
      ],
    });
    const withCitations = params({ messages: [{ role: 'user', content: [cited] }] });

    await expectRefused(
      client(server).messages.create(withDocument),
      'messages.1.content.0: document blocks are not permitted in assistant messages',
    );
    await expectRefused(
      client(server).messages.create(withCitations),
      'messages.0.content.0.citations: citations are not permitted on text blocks of user messages',
    );
    await client(server).messages.create(
      params({ messages: [{ role: 'user', content: [{ ...cited, citations: [] }] }] }),
    );
    await client(server, { defaultHeaders: LEGACY }).messages.create(withDocument);
    await client(server, { defaultHeaders: LEGACY }).messages.create(withCitations);
    expect(server.calls).toHaveLength(3);
  });

  it('refuses an empty or whitespace-only text block, in messages and in system, and a message with no content', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    // a retry after a reply: the reply as the assistant's turn, then the request to reply again
    const afterReply = (reply: string) =>
      params({
        messages: [
          { role: 'user', content: [{ type: 'text', text: USER }] },
          { role: 'assistant', content: [{ type: 'text', text: reply }] },
          { role: 'user', content: [{ type: 'text', text: 'Reply again with one JSON object.' }] },
        ],
      });
    await expectRefused(
      client(server).messages.create(afterReply('')),
      'messages: text content blocks must be non-empty',
    );
    await expectRefused(
      client(server).messages.create(afterReply(' \n\t ')),
      'messages: text content blocks must contain non-whitespace text',
    );
    await expectRefused(
      client(server).messages.create(params({ system: [{ type: 'text', text: '\n' }] })),
      'system: text content blocks must contain non-whitespace text',
    );
    await expectRefused(
      client(server).messages.create(
        params({
          messages: [
            { role: 'user', content: USER },
            { role: 'assistant', content: '' },
            { role: 'user', content: 'Reply again.' },
          ],
        }),
      ),
      'messages.1: all messages must have non-empty content except for the optional final assistant message',
    );
    // the same rules under the first version, and for a count
    await expectRefused(
      client(server, { defaultHeaders: LEGACY }).messages.create(afterReply('')),
      'messages: text content blocks must be non-empty',
    );
    const { max_tokens: _, ...counted } = afterReply('  ');
    await expectRefused(
      client(server).messages.countTokens(counted),
      'messages: text content blocks must contain non-whitespace text',
    );
    // a reply with text is a turn like any other
    await client(server).messages.create(afterReply('{"score": 2}'));
    expect(server.calls).toHaveLength(1);
  });

  it('applies the same rules to count_tokens, which takes no max_tokens', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    const { max_tokens: _, ...counted } = params();
    await expectRefused(
      client(server).messages.countTokens({
        ...counted,
        // @ts-expect-error: count_tokens has no max_tokens
        max_tokens: 256,
      }),
      'max_tokens: Extra inputs are not permitted',
    );
    await expectRefused(
      client(server).messages.countTokens({
        ...counted,
        // @ts-expect-error: an undocumented param, sent as the SDK's README says
        temperature: 0,
      }),
      'temperature: Extra inputs are not permitted',
    );
    expect((await client(server).messages.countTokens(counted)).input_tokens).toBeGreaterThan(0);
    const legacy = await client(server, { defaultHeaders: LEGACY }).messages.countTokens({
      ...counted,
      // @ts-expect-error: an undocumented param, sent as the SDK's README says
      temperature: 0,
    });
    expect(legacy.input_tokens).toBeGreaterThan(0);
  });

  it('refuses a whole batch for one refused request, under the version the batch is created with', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    const plain = { custom_id: 'q-1', params: params() };
    const requests = [plain, { custom_id: 'q-2', params: withTemperature() }];
    await expectRefused(
      client(server).messages.batches.create({ requests }),
      'requests.1.params.temperature: Extra inputs are not permitted',
    );
    await expectRefused(
      client(server).messages.batches.create({
        requests: [
          {
            ...plain,
            // @ts-expect-error: a batch request has only custom_id and params
            metadata: { run: 'r-1' },
          },
        ],
      }),
      'requests.0.metadata: Extra inputs are not permitted',
    );
    const none: string[] = [];
    for await (const b of client(server).messages.batches.list()) none.push(b.id);
    expect(none).toEqual([]);

    const legacy = client(server, { defaultHeaders: LEGACY });
    const batch = await legacy.messages.batches.create({ requests });
    const ended = await until(
      () => legacy.messages.batches.retrieve(batch.id),
      (b) => b.processing_status === 'ended',
    );
    expect(ended.request_counts).toMatchObject({ succeeded: 2, errored: 0 });
    expect(server.calls.map((c) => [c.customId, c.apiVersion, c.temperature])).toEqual([
      ['q-1', '2023-06-01', null],
      ['q-2', '2023-06-01', 0],
    ]);
    expect(server.calls[1]?.body).toEqual(withTemperature());
    const current = await client(server).messages.batches.create({ requests: [plain] });
    expect(current.request_counts.processing).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------
// OpenAI

describe('openai loopback refuses what Chat Completions refuses', () => {
  const client = (server: LoopbackServer) => new OpenAI({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });

  const params = (
    model: string,
    extra: Partial<ChatCompletionCreateParamsNonStreaming> = {},
  ): ChatCompletionCreateParamsNonStreaming => ({
    model,
    messages: [
      { role: 'developer', content: 'Answer from the context.' },
      { role: 'user', content: USER },
    ],
    ...extra,
  });

  async function expectRefused(
    promise: Promise<unknown>,
    error: { message: string; param: string | null; code: string | null },
  ): Promise<void> {
    const err = await rejection(promise);
    if (!(err instanceof OpenAI.BadRequestError)) throw err;
    expect(err.status).toBe(400);
    expect(err.error).toEqual({ ...error, type: 'invalid_request_error' });
  }

  const unrecognized = (field: string) => ({
    message: `Unrecognized request argument supplied: ${field}`,
    param: null,
    code: null,
  });

  const unsupported = (field: string, hint = '') => ({
    message: `Unsupported parameter: '${field}' is not supported with this model.${hint}`,
    param: field,
    code: 'unsupported_parameter',
  });

  it('refuses a field the params type lacks, at the top and in response_format', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    await expectRefused(
      client(server).chat.completions.create({
        ...params('gpt-4.1-mini'),
        // @ts-expect-error: not a Chat Completions param, sent as the SDK's README says
        top_k: 40,
      }),
      unrecognized('top_k'),
    );
    const schema = { name: 'answer', strict: true, schema: { type: 'object', properties: {} } };
    await expectRefused(
      client(server).chat.completions.create(
        params('gpt-4.1-mini', {
          response_format: {
            type: 'json_schema',
            json_schema: {
              ...schema,
              // @ts-expect-error: not a field of a JSON schema response format
              additionalProperties: false,
            },
          },
        }),
      ),
      unrecognized('response_format.json_schema.additionalProperties'),
    );
    const valid = params('gpt-4.1-mini', { response_format: { type: 'json_schema', json_schema: schema } });
    await client(server).chat.completions.create(valid);
    expect(server.calls.map((c) => c.body)).toEqual([valid]);
  });

  it('takes an empty assistant content, as the API does (only a null one without tool calls is refused)', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    const afterEmpty = params('gpt-4.1-mini', {
      messages: [
        { role: 'user', content: USER },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'Reply again.' },
      ],
    });
    await client(server).chat.completions.create(afterEmpty);
    expect(server.calls.map((c) => c.messages.map((m) => m.role))).toEqual([['user', 'assistant', 'user']]);
  });

  it('refuses max_tokens on a reasoning model, which takes max_completion_tokens', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    await expectRefused(
      client(server).chat.completions.create(params('gpt-5.4', { max_tokens: 100 })),
      unsupported('max_tokens', " Use 'max_completion_tokens' instead."),
    );
    await expectRefused(
      client(server).chat.completions.create(params('o3', { max_tokens: 100 })),
      unsupported('max_tokens', " Use 'max_completion_tokens' instead."),
    );
    await client(server).chat.completions.create(params('gpt-5.4', { max_completion_tokens: 100 }));
    await client(server).chat.completions.create(params('gpt-4.1-mini', { max_tokens: 100 }));
    expect(server.calls.map((c) => [c.model, c.maxTokens])).toEqual([
      ['gpt-5.4', 100],
      ['gpt-4.1-mini', 100],
    ]);
  });

  it('refuses temperature and top_p on a reasoning model unless its reasoning effort is none', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    await expectRefused(
      client(server).chat.completions.create(params('gpt-5.4', { temperature: 0, reasoning_effort: 'low' })),
      unsupported('temperature'),
    );
    await expectRefused(
      client(server).chat.completions.create(params('gpt-5.4', { top_p: 0.9, reasoning_effort: 'high' })),
      unsupported('top_p'),
    );
    // gpt-5-mini reasons at medium unless told otherwise, and cannot be told none.
    await expectRefused(
      client(server).chat.completions.create(params('gpt-5-mini', { temperature: 0 })),
      unsupported('temperature'),
    );
    await client(server).chat.completions.create(
      params('gpt-5.4', { temperature: 0, reasoning_effort: 'none' }),
    );
    // gpt-5.4 reasons at none unless told otherwise.
    await client(server).chat.completions.create(params('gpt-5.4', { temperature: 0 }));
    await client(server).chat.completions.create(params('gpt-5.4', { reasoning_effort: 'low' }));
    expect(server.calls.map((c) => [c.temperature, c.body.reasoning_effort])).toEqual([
      [0, 'none'],
      [0, undefined],
      [null, 'low'],
    ]);
  });

  it("refuses a reasoning effort the model does not take, listing the model's values", async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    const cases: [string, ChatCompletionCreateParamsNonStreaming['reasoning_effort'], string][] = [
      ['gpt-5.1', 'xhigh', "'none', 'low', 'medium', and 'high'"],
      ['gpt-5.4', 'minimal', "'none', 'low', 'medium', 'high', and 'xhigh'"],
      ['gpt-5-mini', 'none', "'minimal', 'low', 'medium', and 'high'"],
    ];
    for (const [model, effort, supported] of cases) {
      await expectRefused(
        client(server).chat.completions.create(params(model, { reasoning_effort: effort })),
        {
          message: `Unsupported value: '${effort}' is not supported with the '${model}' model. Supported values are: ${supported}.`,
          param: 'reasoning_effort',
          code: 'unsupported_value',
        },
      );
    }
    for (const [model, effort] of [
      ['gpt-5.1', 'high'],
      ['gpt-5.4', 'xhigh'],
      ['gpt-5.4-mini', 'none'],
      ['gpt-5-mini', 'minimal'],
    ] as const) {
      await client(server).chat.completions.create(params(model, { reasoning_effort: effort }));
    }
    expect(server.calls).toHaveLength(4);
  });

  it('refuses reasoning_effort on a model that does not reason', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    for (const model of ['gpt-4.1-mini', 'gpt-x']) {
      await expectRefused(
        client(server).chat.completions.create(params(model, { reasoning_effort: 'low' })),
        unrecognized('reasoning_effort'),
      );
    }
    await client(server).chat.completions.create(params('gpt-4.1-mini', { temperature: 0, top_p: 1 }));
    await client(server).chat.completions.create(params('gpt-x', { reasoning_effort: null }));
    expect(server.calls.map((c) => c.model)).toEqual(['gpt-4.1-mini', 'gpt-x']);
  });

  it('errors a batch line whose body is refused with a 400, and runs the others', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    const openai = client(server);
    const lines = [
      ['q-1', params('gpt-5.4', { max_completion_tokens: 100 })],
      ['q-2', params('gpt-5.4', { max_tokens: 100 })],
    ] as const;
    const jsonl = lines
      .map(([custom_id, body]) =>
        JSON.stringify({ custom_id, method: 'POST', url: '/v1/chat/completions', body }),
      )
      .join('\n');
    const file = await openai.files.create({
      file: await toFile(Buffer.from(jsonl), 'batch.jsonl'),
      purpose: 'batch',
    });
    const batch = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const ended = await until(
      () => openai.batches.retrieve(batch.id),
      (b) => !['validating', 'in_progress', 'finalizing'].includes(b.status),
    );
    expect(ended).toMatchObject({
      status: 'completed',
      request_counts: { total: 2, completed: 1, failed: 1 },
    });
    const errors = (await (await openai.files.content(ended.error_file_id ?? '')).text()).trim();
    expect(JSON.parse(errors)).toMatchObject({
      custom_id: 'q-2',
      response: {
        status_code: 400,
        body: {
          error: {
            ...unsupported('max_tokens', " Use 'max_completion_tokens' instead."),
            type: 'invalid_request_error',
          },
        },
      },
    });
    expect(server.calls.map((c) => [c.customId, c.body])).toEqual([['q-1', lines[0][1]]]);
  });

  it("refuses a batch's metadata past the API's limits (16 pairs, 512-character strings), and lists batches with theirs", async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    const openai = client(server);
    const jsonl = JSON.stringify({
      custom_id: 'q-1',
      method: 'POST',
      url: '/v1/chat/completions',
      body: params('gpt-5.4', { max_completion_tokens: 100 }),
    });
    const file = await openai.files.create({
      file: await toFile(Buffer.from(jsonl), 'batch.jsonl'),
      purpose: 'batch',
    });
    const create = (metadata: Record<string, string>) =>
      openai.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
        metadata,
      });
    const seventeen = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    await expect(create(seventeen)).rejects.toMatchObject({
      status: 400,
      error: {
        message:
          "Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with 17 properties instead.",
        code: 'object_above_max_properties',
        param: 'metadata',
      },
    });
    await expect(create({ rge_tag: 'x'.repeat(513) })).rejects.toMatchObject({
      status: 400,
      error: {
        message:
          "Invalid 'metadata.rge_tag': string too long. Expected a string with maximum length 512, but got a string with length 513 instead.",
        code: 'string_above_max_length',
      },
    });
    const made = await create({ rge_tag: 'rge-run-subject-0123456789' });
    // no batch was made by the refused creates; the list carries each batch's metadata, newest first
    const listed = [];
    for await (const b of openai.batches.list({ limit: 100 })) listed.push([b.id, b.metadata]);
    expect(listed).toEqual([[made.id, { rge_tag: 'rge-run-subject-0123456789' }]]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Gemini

describe('gemini loopback refuses what generateContent refuses', () => {
  const MODEL = 'gemini-2.5-flash';

  const client = (server: LoopbackServer) =>
    new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url } });

  const request = (
    config: GenerateContentParameters['config'] = {},
    model = MODEL,
  ): GenerateContentParameters => ({
    model,
    contents: [{ role: 'user', parts: [{ text: USER }] }],
    config: { systemInstruction: 'Answer from the context.', ...config },
  });

  /** An SDK request with `extra` merged into the REST body (the SDK's `extraBody`). */
  const withExtraBody = (extra: Record<string, unknown>): GenerateContentParameters =>
    request({ httpOptions: { extraBody: extra } });

  const googleError = (message: string) => ({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } });

  async function expectRefused(promise: Promise<unknown>, message: string): Promise<void> {
    const err = await rejection(promise);
    if (!(err instanceof ApiError)) throw err;
    expect(err.status).toBe(400);
    expect(JSON.parse(err.message)).toMatchObject(googleError(message));
  }

  /** POST a REST body the SDK would not produce to a model method. */
  const post = (server: LoopbackServer, body: unknown, method = 'generateContent') =>
    fetch(`${server.url}/v1beta/models/${MODEL}:${method}`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  const contents = [{ role: 'user', parts: [{ text: USER }] }];

  it('refuses an unknown top-level field, and takes the snake_case spellings of known ones', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    await expectRefused(
      client(server).models.generateContent(withExtraBody({ generation_settings: { temperature: 0 } })),
      'Invalid JSON payload received. Unknown name "generation_settings": Cannot find field.',
    );
    await client(server).models.generateContent(request({ temperature: 0, maxOutputTokens: 64 }));

    const snake = await post(server, {
      contents,
      system_instruction: { parts: [{ text: 'Answer from the context.' }] },
      generation_config: { max_output_tokens: 64, thinking_config: { thinking_level: 'LOW' } },
    });
    expect(snake.status).toBe(200);
    expect(server.calls.map((c) => [c.system, c.maxTokens])).toEqual([
      ['Answer from the context.', 64],
      ['Answer from the context.', 64],
    ]);
    expect(server.calls[0]?.body).toEqual({
      contents,
      systemInstruction: { parts: [{ text: 'Answer from the context.' }], role: 'user' },
      generationConfig: { temperature: 0, maxOutputTokens: 64 },
    });
  });

  it('refuses an unknown field in generationConfig and in its thinkingConfig', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    const refused = await rejection(
      client(server).models.generateContent(withExtraBody({ generationConfig: { reasoningEffort: 'low' } })),
    );
    if (!(refused instanceof ApiError)) throw refused;
    const message =
      'Invalid JSON payload received. Unknown name "reasoningEffort" at \'generation_config\': Cannot find field.';
    expect(JSON.parse(refused.message)).toEqual({
      error: {
        ...googleError(message).error,
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: 'generation_config', description: message }],
          },
        ],
      },
    });
    await expectRefused(
      client(server).models.generateContent(
        withExtraBody({ generationConfig: { thinkingConfig: { thinkingTokens: 128 } } }),
      ),
      'Invalid JSON payload received. Unknown name "thinkingTokens" at \'generation_config.thinking_config\': Cannot find field.',
    );
    await client(server).models.generateContent(
      request({ thinkingConfig: { thinkingBudget: 128, includeThoughts: false } }),
    );
    expect(server.calls[0]?.body.generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 128, includeThoughts: false },
    });
  });

  it('refuses a thinking config with both a budget and a level', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    await expectRefused(
      client(server).models.generateContent(
        request({ thinkingConfig: { thinkingBudget: 128, thinkingLevel: ThinkingLevel.LOW } }),
      ),
      'You can only set only one of thinking budget and thinking level.',
    );
    await client(server).models.generateContent(request({ thinkingConfig: { thinkingBudget: 128 } }));
    await client(server).models.generateContent(
      request({ thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } }),
    );
    expect(server.calls).toHaveLength(2);
  });

  it('refuses a thinking level not spelled as the enum, and one the model does not take', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    const lower = await post(server, {
      contents,
      generationConfig: { thinkingConfig: { thinkingLevel: 'low' } },
    });
    expect(lower.status).toBe(400);
    expect(await lower.json()).toMatchObject(
      googleError(
        'Invalid value at \'generation_config.thinking_config.thinking_level\' (type.googleapis.com/google.ai.generativelanguage.v1beta.ThinkingLevel), "low"',
      ),
    );
    await client(server).models.generateContent(
      request({ thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } }),
    );

    const pro = 'gemini-3.1-pro-preview';
    await expectRefused(
      client(server).models.generateContent(
        request({ thinkingConfig: { thinkingLevel: ThinkingLevel.MINIMAL } }, pro),
      ),
      'Thinking level MINIMAL is not supported for this model.',
    );
    await client(server).models.generateContent(
      request({ thinkingConfig: { thinkingLevel: ThinkingLevel.MINIMAL } }),
    );
    await client(server).models.generateContent(
      request({ thinkingConfig: { thinkingLevel: ThinkingLevel.HIGH } }, pro),
    );
    expect(server.calls.map((c) => c.model)).toEqual([MODEL, MODEL, pro]);
  });

  it('refuses a response schema type that is not a Type name, wherever it sits in the schema', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    const schema = (answerType: string, itemType: string) => ({
      type: 'OBJECT',
      properties: {
        answer: { type: answerType },
        passages: { type: 'ARRAY', items: { type: itemType } },
      },
    });
    const body = (responseSchema: unknown) => ({
      contents,
      generationConfig: { responseMimeType: 'application/json', responseSchema },
    });
    const cases: [unknown, string, string][] = [
      [{ ...schema('STRING', 'STRING'), type: 'object' }, 'generation_config.response_schema.type', 'object'],
      [schema('string', 'STRING'), 'generation_config.response_schema.properties[0].value.type', 'string'],
      [schema('STRING', 'str'), 'generation_config.response_schema.properties[1].value.items.type', 'str'],
    ];
    for (const [responseSchema, path, value] of cases) {
      const response = await post(server, body(responseSchema));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject(
        googleError(
          `Invalid value at '${path}' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "${value}"`,
        ),
      );
    }
    expect((await post(server, body(schema('STRING', 'STRING')))).status).toBe(200);
    // The SDK upper-cases a JSON Schema's types on its way out.
    await client(server).models.generateContent(
      request({ responseMimeType: 'application/json', responseSchema: schema('string', 'string') }),
    );
    expect(server.calls.map((c) => c.schema)).toEqual([
      schema('STRING', 'STRING'),
      schema('STRING', 'STRING'),
    ]);
  });

  it('refuses an empty text part, a part with nothing in it and a content without parts', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    const afterReply = (reply: string): GenerateContentParameters => ({
      model: MODEL,
      contents: [
        { role: 'user', parts: [{ text: USER }] },
        { role: 'model', parts: [{ text: reply }] },
        { role: 'user', parts: [{ text: 'Reply again with one JSON object.' }] },
      ],
    });
    await expectRefused(
      client(server).models.generateContent(afterReply('')),
      'Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again. ' +
        'Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini',
    );
    const noParts = await post(server, {
      contents: [contents[0], { role: 'model', parts: [] }, contents[0]],
    });
    expect(noParts.status).toBe(400);
    expect(await noParts.json()).toMatchObject(
      googleError('* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n'),
    );
    const emptyPart = await post(server, { contents: [{ role: 'user', parts: [{}] }] });
    expect(emptyPart.status).toBe(400);
    expect(await emptyPart.json()).toMatchObject(
      googleError(
        "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n",
      ),
    );
    await client(server).models.generateContent(afterReply('{"score": 2}'));
    expect(server.calls).toHaveLength(1);
  });

  it('refuses a whole inlined batch for one refused request, naming its place in the batch', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    const response = await post(
      server,
      {
        batch: {
          displayName: 'strict',
          inputConfig: {
            requests: {
              requests: [
                { request: { contents }, metadata: { key: 'q-1' } },
                {
                  request: { contents, generationConfig: { thinkingTokens: 128 } },
                  metadata: { key: 'q-2' },
                },
              ],
            },
          },
        },
      },
      'batchGenerateContent',
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject(
      googleError(
        'Invalid JSON payload received. Unknown name "thinkingTokens" at \'batch.input_config.requests.requests[1].request.generation_config\': Cannot find field.',
      ),
    );
    const genai = client(server);
    const listed: string[] = [];
    for await (const job of await genai.batches.list()) listed.push(job.name ?? '');
    expect(listed).toEqual([]);

    const src = ['q-1', 'q-2'].map((key) => ({
      contents,
      config: { thinkingConfig: { thinkingBudget: 128 } },
      metadata: { key },
    }));
    const job = await genai.batches.create({ model: MODEL, src });
    const ended = await until(
      () => genai.batches.get({ name: job.name ?? '' }),
      (j) => j.state === JobState.JOB_STATE_SUCCEEDED,
    );
    expect(ended.state).toBe(JobState.JOB_STATE_SUCCEEDED);
    expect(server.calls.map((c) => [c.customId, c.body.generationConfig])).toEqual([
      ['q-1', { thinkingConfig: { thinkingBudget: 128 } }],
      ['q-2', { thinkingConfig: { thinkingBudget: 128 } }],
    ]);
  });
});
