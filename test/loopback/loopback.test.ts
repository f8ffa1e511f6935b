import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, JobState } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.ts';
import {
  countTokens,
  defaultReply,
  type FaultKind,
  type LoopbackCall,
  type LoopbackOptions,
  type LoopbackServer,
  startAnthropicServer,
  startGeminiServer,
  startLoopbackServers,
  startOpenAIServer,
} from './index.ts';
import { maskedKey } from './openai.ts';

// ---------------------------------------------------------------------------------------------------
// Fixtures

const PASSAGE_ID = 'acme-FY24-1a2b3c4d';
const SUBJECT_USER = [
  'Question: What was consolidated revenue in FY24?',
  '',
  'Context (2 passages):',
  '',
  `[${PASSAGE_ID}] (Acme Corp, FY24, p. 3, Financial highlights)`,
  'Consolidated revenue rose 12% to Rs 9,00,122.00 crore in FY24. Net profit was flat.',
  '',
  '[acme-FY24-5e6f7a8b] (Acme Corp, FY24, p. 9, Outlook)',
  'The company expects growth to continue.',
  '',
  'Answer the question from the context only, citing passage ids in square brackets.',
].join('\n');
const SUBJECT_ANSWER = `According to the report, Consolidated revenue rose 12% to Rs 9,00,122.00 crore in FY24 [${PASSAGE_ID}].`;
const SYSTEM = 'You answer questions about company annual reports using only the context passages.';
/** A system prompt well over the default 1024-token cache minimum. */
const LONG_SYSTEM = Array.from(
  { length: 250 },
  (_, i) => `Rule ${i + 1}: answer only from the context and cite passage ids.`,
).join('\n');

const DIMENSION = {
  type: 'object',
  properties: {
    evidence: { type: 'array', items: { type: 'string' } },
    rationale: { type: 'string' },
    score: { type: 'integer', enum: [0, 1, 2] },
  },
  required: ['evidence', 'rationale', 'score'],
  additionalProperties: false,
};
const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    correctness: DIMENSION,
    grounding: DIMENSION,
    calibration: DIMENSION,
    unsupported_claims: { type: 'array', items: { type: 'string' } },
  },
  required: ['correctness', 'grounding', 'calibration', 'unsupported_claims'],
  additionalProperties: false,
};
const JUDGE_USER = `QUESTION (q-1, category numeric):\nWhat was revenue?\n\nRETRIEVED CHUNKS:\n[${PASSAGE_ID}] (Acme Corp, FY24, Financial highlights, pages 3-3)\nConsolidated revenue rose 12% to Rs 9,00,122.00 crore in FY24.\n\nANSWER TO JUDGE:\nRevenue was Rs 9,00,122.00 crore [${PASSAGE_ID}].`;

const KEY = 'loopback-test-key';

// ---------------------------------------------------------------------------------------------------
// Helpers

const open: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve<T extends LoopbackServer>(start: Promise<T>): Promise<T> {
  const server = await start;
  open.push(server);
  return server;
}

function faults(kind: FaultKind): LoopbackOptions {
  return { apiKey: KEY, faults: { rate: 1, seed: 'test', kinds: [kind] } };
}

function anthropic(server: LoopbackServer, opts: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) {
  return new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0, ...opts });
}

function openai(server: LoopbackServer, opts: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) {
  return new OpenAI({ apiKey: KEY, baseURL: server.url, maxRetries: 0, ...opts });
}

function gemini(
  server: LoopbackServer,
  httpOptions: { timeout?: number; fetch?: typeof fetch } = {},
  apiKey = KEY,
) {
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl: server.url, ...httpOptions } });
}

async function rejection(promise: Promise<unknown>): Promise<Error & { status?: number; headers?: Headers }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { status?: number; headers?: Headers };
  }
  throw new Error('expected a rejection');
}

/** A fetch that sends a truncated JSON body, to see the server's 400 for malformed requests. */
const corruptingFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, body: typeof init?.body === 'string' ? init.body.slice(0, 10) : init?.body });

function expectVerdict(text: string): void {
  const verdict = JSON.parse(text) as Record<string, Record<string, unknown>>;
  for (const dimension of ['correctness', 'grounding', 'calibration']) {
    const d = verdict[dimension] ?? {};
    expect(Object.keys(d)).toEqual(['evidence', 'rationale', 'score']);
    expect([0, 1, 2]).toContain(d.score);
  }
  expect(verdict.unsupported_claims).toEqual([]);
}

function anthropicText(message: Anthropic.Message): string {
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

// ---------------------------------------------------------------------------------------------------
// Default reply

describe('defaultReply', () => {
  const call = (text: string, schema: unknown = null): LoopbackCall => ({
    provider: 'openai',
    model: 'm',
    system: '',
    messages: [{ role: 'user', text }],
    schema,
    temperature: null,
    seed: null,
    maxTokens: null,
    batch: false,
    customId: null,
    apiVersion: null,
    body: {},
  });

  it('answers from the first passage, or says the context does not state it', () => {
    expect(defaultReply(call(SUBJECT_USER)).text).toBe(SUBJECT_ANSWER);
    expect(defaultReply(call('Question: anything?\n\n(no passages were retrieved)')).text).toBe(
      'The provided context does not state this.',
    );
  });

  it('judges deterministically, quoting the user text', () => {
    const text = defaultReply(call(JUDGE_USER, VERDICT_SCHEMA)).text;
    expect(defaultReply(call(JUDGE_USER, VERDICT_SCHEMA)).text).toBe(text);
    expectVerdict(text);
    const evidence = (JSON.parse(text) as { correctness: { evidence: string[] } }).correctness.evidence;
    for (const quote of evidence) expect(JUDGE_USER).toContain(quote);
  });
});

// ---------------------------------------------------------------------------------------------------
// Anthropic

describe('anthropic loopback via @anthropic-ai/sdk', () => {
  const params = (extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) => ({
    model: 'claude-sonnet-4-6',
    max_tokens: 512,
    system: SYSTEM,
    messages: [{ role: 'user' as const, content: SUBJECT_USER }],
    ...extra,
  });

  it('answers plain text with a fully populated usage', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    const message = await anthropic(server).messages.create(params());
    expect(anthropicText(message)).toBe(SUBJECT_ANSWER);
    expect(message._request_id).toMatch(/^req_loopback_/);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({
      input_tokens: countTokens(SYSTEM) + countTokens(SUBJECT_USER),
      output_tokens: countTokens(SUBJECT_ANSWER),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      service_tier: 'standard',
    });
    expect(Object.keys(message.usage).sort()).toEqual(
      [
        'cache_creation',
        'cache_creation_input_tokens',
        'cache_read_input_tokens',
        'inference_geo',
        'input_tokens',
        'output_tokens',
        'output_tokens_details',
        'server_tool_use',
        'service_tier',
        'speed',
      ].sort(),
    );
    expect(server.calls[0]).toMatchObject({
      provider: 'anthropic',
      system: SYSTEM,
      maxTokens: 512,
      batch: false,
    });
    expect(server.billed).toEqual([
      expect.objectContaining({
        provider: 'anthropic',
        inputTokens: message.usage.input_tokens,
        cacheReadTokens: 0,
      }),
    ]);
  });

  it('returns structured output as JSON in the text block, and cuts at max_tokens', async () => {
    const server = await serve(startAnthropicServer());
    const client = anthropic(server, { apiKey: 'any-key' });
    const message = await client.messages.create({
      ...params({ messages: [{ role: 'user', content: JUDGE_USER }] }),
      output_config: { format: { type: 'json_schema', schema: VERDICT_SCHEMA } },
    });
    expectVerdict(anthropicText(message));
    expect(server.calls[0]?.schema).toEqual(VERDICT_SCHEMA);

    const short = await client.messages.create(params({ max_tokens: 3 }));
    expect(short.stop_reason).toBe('max_tokens');
    expect(short.usage.output_tokens).toBe(3);
  });

  it('caches only at cache_control breakpoints', async () => {
    const server = await serve(startAnthropicServer());
    const client = anthropic(server);
    const marked = params({
      system: [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }],
    });
    const systemTokens = countTokens(LONG_SYSTEM);
    const first = await client.messages.create(marked);
    expect(first.usage).toMatchObject({
      cache_creation_input_tokens: systemTokens,
      cache_read_input_tokens: 0,
    });
    expect(first.usage.cache_creation?.ephemeral_5m_input_tokens).toBe(systemTokens);
    const second = await client.messages.create(marked);
    expect(second.usage).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: systemTokens,
      input_tokens: countTokens(SUBJECT_USER),
    });
    expect(server.billed[1]).toMatchObject({ cacheReadTokens: systemTokens, cacheWriteTokens: 0 });

    const unmarked = params({ system: [{ type: 'text', text: `${LONG_SYSTEM}\nOne more rule.` }] });
    await client.messages.create(unmarked);
    const again = await client.messages.create(unmarked);
    expect(again.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('runs a message batch end to end: poll, results with an expired item, list', async () => {
    const server = await serve(
      // a batch ends 1 s after creation (not the default 30 ms), so the second one is still
      // running when it is cancelled even on a loaded machine
      startAnthropicServer({ apiKey: KEY, batch: { expire: (id) => id === 'q-3', completeAfterMs: 1000 } }),
    );
    const client = anthropic(server);
    const batch = await client.messages.batches.create({
      requests: ['q-1', 'q-2', 'q-3'].map((custom_id) => ({ custom_id, params: params() })),
    });
    expect(batch).toMatchObject({
      type: 'message_batch',
      processing_status: 'in_progress',
      results_url: null,
    });
    expect(batch.request_counts.processing).toBe(3);

    const ended = await until(
      () => client.messages.batches.retrieve(batch.id),
      (b) => b.processing_status === 'ended',
      10_000,
    );
    expect(ended.request_counts).toEqual({
      processing: 0,
      succeeded: 2,
      errored: 0,
      canceled: 0,
      expired: 1,
    });
    expect(ended.ended_at).not.toBeNull();

    for (let round = 0; round < 2; round++) {
      const results: Anthropic.Messages.MessageBatchIndividualResponse[] = [];
      for await (const item of await client.messages.batches.results(batch.id)) results.push(item);
      expect(results.map((r) => [r.custom_id, r.result.type])).toEqual([
        ['q-1', 'succeeded'],
        ['q-2', 'succeeded'],
        ['q-3', 'expired'],
      ]);
      const first = results[0]?.result;
      expect(first?.type === 'succeeded' && first.message.usage.service_tier).toBe('batch');
      expect(first?.type === 'succeeded' && anthropicText(first.message)).toBe(SUBJECT_ANSWER);
    }
    expect(server.billed.map((b) => [b.customId, b.batch])).toEqual([
      ['q-1', true],
      ['q-2', true],
    ]);

    const other = await client.messages.batches.create({ requests: [{ custom_id: 'x', params: params() }] });
    const listed: string[] = [];
    for await (const b of client.messages.batches.list({ limit: 1 })) listed.push(b.id);
    expect(listed).toEqual([other.id, batch.id]);

    const canceled = await client.messages.batches.cancel(other.id);
    expect(canceled.processing_status).toBe('canceling');
    const after = await client.messages.batches.retrieve(other.id);
    expect(after).toMatchObject({ processing_status: 'ended', request_counts: { canceled: 1 } });
  });

  it('answers errors in the Anthropic format: 401, 429, 500, 529, 400 for a malformed body', async () => {
    const plain = await serve(startAnthropicServer({ apiKey: KEY }));
    const unauthorized = await rejection(anthropic(plain, { apiKey: 'wrong' }).messages.create(params()));
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((unauthorized as InstanceType<typeof Anthropic.APIError>).type).toBe('authentication_error');
    const malformed = await rejection(anthropic(plain, { fetch: corruptingFetch }).messages.create(params()));
    expect(malformed).toBeInstanceOf(Anthropic.BadRequestError);

    const limited = await serve(startAnthropicServer(faults('429')));
    const rateLimited = await rejection(anthropic(limited).messages.create(params()));
    expect(rateLimited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(rateLimited.headers?.get('retry-after')).toBe('1');
    expect(rateLimited.headers?.get('retry-after-ms')).toBe('20');

    const broken = await serve(startAnthropicServer(faults('500')));
    expect(await rejection(anthropic(broken).messages.create(params()))).toBeInstanceOf(
      Anthropic.InternalServerError,
    );

    const overloaded = await serve(startAnthropicServer(faults('529')));
    const error = await rejection(anthropic(overloaded).messages.create(params()));
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
    expect([plain, limited, broken, overloaded].flatMap((s) => s.billed)).toEqual([]);
  });

  it('holds a timed-out request, and sends a 200 with a malformed body', async () => {
    const hanging = await serve(startAnthropicServer(faults('timeout')));
    const timedOut = await rejection(anthropic(hanging, { timeout: 150 }).messages.create(params()));
    expect(timedOut).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(hanging.requests.map((r) => r.status)).toEqual([0]);

    const garbled = await serve(startAnthropicServer(faults('malformed-json')));
    await expect(anthropic(garbled).messages.create(params())).rejects.toThrow();
    expect(garbled.calls).toHaveLength(1);
    expect(garbled.billed).toEqual([]);
  });

  it('enforces a rate limit with headers, and the SDK retries after retry-after-ms', async () => {
    const server = await serve(startAnthropicServer({ rateLimit: { rpm: 1, windowMs: 150 } }));
    const { response } = await anthropic(server).messages.create(params()).withResponse();
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    const limited = await rejection(anthropic(server).messages.create(params()));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers?.get('retry-after-ms'))).toBeLessThanOrEqual(150);
    expect(limited.headers?.get('anthropic-ratelimit-requests-limit')).toBe('1');

    const retried = await anthropic(server, { maxRetries: 2 }).messages.create(params());
    expect(anthropicText(retried)).toBe(SUBJECT_ANSWER);
    expect(server.requests.map((r) => r.status)).toEqual([200, 429, 429, 200]);
  });
});

// ---------------------------------------------------------------------------------------------------
// OpenAI

describe('openai loopback via openai', () => {
  const params = (extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) => ({
    model: 'gpt-4.1-mini',
    messages: [
      { role: 'system' as const, content: SYSTEM },
      { role: 'user' as const, content: SUBJECT_USER },
    ],
    ...extra,
  });

  it('answers plain text, echoing a system fingerprint for a seeded call', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    const completion = await openai(server).chat.completions.create(params({ seed: 7, temperature: 0 }));
    expect(completion.choices[0]?.message.content).toBe(SUBJECT_ANSWER);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.system_fingerprint).toMatch(/^fp_[0-9a-f]{10}$/);
    const promptTokens = countTokens(SYSTEM) + countTokens(SUBJECT_USER);
    expect(completion.usage).toMatchObject({
      prompt_tokens: promptTokens,
      completion_tokens: countTokens(SUBJECT_ANSWER),
      total_tokens: promptTokens + countTokens(SUBJECT_ANSWER),
      prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(server.calls[0]).toMatchObject({ seed: 7, temperature: 0, system: SYSTEM });
  });

  it('returns structured output for a strict json_schema response format', async () => {
    const server = await serve(startOpenAIServer());
    const completion = await openai(server).chat.completions.create(
      params({
        messages: [{ role: 'user', content: JUDGE_USER }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'verdict', strict: true, schema: VERDICT_SCHEMA },
        },
      }),
    );
    expectVerdict(completion.choices[0]?.message.content ?? '');
  });

  it('caches prompt prefixes automatically, in multiples of 128 tokens', async () => {
    const server = await serve(startOpenAIServer());
    const client = openai(server);
    const long = params({
      messages: [
        { role: 'system', content: LONG_SYSTEM },
        { role: 'user', content: SUBJECT_USER },
      ],
    });
    const total = countTokens(LONG_SYSTEM) + countTokens(SUBJECT_USER);
    const first = await client.chat.completions.create(long);
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const second = await client.chat.completions.create(long);
    expect(second.usage?.prompt_tokens).toBe(total);
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(total - (total % 128));
    expect(server.billed[1]).toMatchObject({
      inputTokens: total % 128,
      cacheReadTokens: total - (total % 128),
    });
  });

  it('runs a batch end to end: file upload, statuses, output and error files, list by metadata', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY, batch: { expire: (id) => id === 'q-3' } }));
    const client = openai(server);
    const jsonl = ['q-1', 'q-2', 'q-3']
      .map((custom_id) =>
        JSON.stringify({ custom_id, method: 'POST', url: '/v1/chat/completions', body: params() }),
      )
      .join('\n');
    const file = await client.files.create({
      file: await toFile(Buffer.from(jsonl), 'batch.jsonl'),
      purpose: 'batch',
    });
    expect(file).toMatchObject({
      object: 'file',
      purpose: 'batch',
      filename: 'batch.jsonl',
      bytes: jsonl.length,
    });
    expect((await client.files.retrieve(file.id)).id).toBe(file.id);

    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { run: 'rge-run-1' },
    });
    expect(batch.status).toBe('validating');
    expect((await client.batches.retrieve(batch.id)).status).toBe('in_progress');
    const ended = await until(
      () => client.batches.retrieve(batch.id),
      (b) => !['validating', 'in_progress', 'finalizing'].includes(b.status),
    );
    expect(ended.status).toBe('expired');
    expect(ended.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });

    const output = (await (await client.files.content(ended.output_file_id ?? '')).text()).trim().split('\n');
    const lines = output.map(
      (l) =>
        JSON.parse(l) as {
          custom_id: string;
          response: { status_code: number; body: OpenAI.ChatCompletion };
        },
    );
    expect(lines.map((l) => [l.custom_id, l.response.status_code])).toEqual([
      ['q-1', 200],
      ['q-2', 200],
    ]);
    expect(lines[0]?.response.body.choices[0]?.message.content).toBe(SUBJECT_ANSWER);
    const errors = await (await client.files.content(ended.error_file_id ?? '')).text();
    expect(JSON.parse(errors.trim())).toMatchObject({
      custom_id: 'q-3',
      response: null,
      error: { code: 'batch_expired' },
    });
    expect(server.billed.map((b) => b.customId)).toEqual(['q-1', 'q-2']);

    const found: OpenAI.Batch[] = [];
    for await (const b of client.batches.list()) if (b.metadata?.run === 'rge-run-1') found.push(b);
    expect(found.map((b) => b.id)).toEqual([batch.id]);
  });

  it("keeps a batch's input, output and error files until they are deleted, and deletes as the API does", async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY, batch: { expire: (id) => id === 'q-2' } }));
    const client = openai(server);
    const jsonl = ['q-1', 'q-2']
      .map((custom_id) =>
        JSON.stringify({ custom_id, method: 'POST', url: '/v1/chat/completions', body: params() }),
      )
      .join('\n');
    const input = await client.files.create({
      file: await toFile(Buffer.from(jsonl), 'rge-tag.jsonl'),
      purpose: 'batch',
    });
    const other = await client.files.create({
      file: await toFile(Buffer.from('{}'), 'notes.json'),
      purpose: 'user_data',
    });
    const batch = await client.batches.create({
      input_file_id: input.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const ended = await until(
      () => client.batches.retrieve(batch.id),
      (b) => b.status === 'expired',
    );
    const made = [ended.output_file_id, ended.error_file_id] as string[];
    expect(made.every((id) => typeof id === 'string')).toBe(true);
    // the files stay, the batch's own among them, until deleted; listed by purpose, newest first
    expect(server.files().map((f) => [f.filename, f.purpose])).toEqual([
      ['rge-tag.jsonl', 'batch'],
      ['notes.json', 'user_data'],
      [`${batch.id}_output.jsonl`, 'batch_output'],
      [`${batch.id}_error.jsonl`, 'batch_output'],
    ]);
    const listed: string[] = [];
    for await (const f of client.files.list({ purpose: 'batch' })) listed.push(f.filename);
    expect(listed).toEqual(['rge-tag.jsonl']);

    for (const id of [input.id, ...made])
      expect(await client.files.delete(id)).toEqual({ id, object: 'file', deleted: true });
    expect(server.files().map((f) => f.id)).toEqual([other.id]);
    // a deleted file is gone: deleting or reading it again is a 404 naming it
    const again = await rejection(client.files.delete(input.id));
    expect(again).toBeInstanceOf(OpenAI.NotFoundError);
    expect(again.message).toBe(`404 No such File object: ${input.id}`);
    expect(await rejection(client.files.content(made[0] as string))).toBeInstanceOf(OpenAI.NotFoundError);
    // the batch still names its input file, and its results are no longer there to read
    expect((await client.batches.retrieve(batch.id)).input_file_id).toBe(input.id);
  });

  it('answers errors in the OpenAI format: 401, 429, 500, 503 for 529, 400 for a malformed body', async () => {
    const plain = await serve(startOpenAIServer({ apiKey: KEY }));
    const unauthorized = await rejection(
      openai(plain, { apiKey: 'wrong' }).chat.completions.create(params()),
    );
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((unauthorized as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    const malformed = await rejection(
      openai(plain, { fetch: corruptingFetch }).chat.completions.create(params()),
    );
    expect(malformed).toBeInstanceOf(OpenAI.BadRequestError);

    const limited = await serve(startOpenAIServer(faults('429')));
    const rateLimited = await rejection(openai(limited).chat.completions.create(params()));
    expect(rateLimited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(rateLimited.headers?.get('retry-after')).toBe('1');

    const broken = await serve(startOpenAIServer(faults('500')));
    expect(await rejection(openai(broken).chat.completions.create(params()))).toBeInstanceOf(
      OpenAI.InternalServerError,
    );
    const overloaded = await serve(startOpenAIServer(faults('529')));
    expect((await rejection(openai(overloaded).chat.completions.create(params()))).status).toBe(503);

    const hanging = await serve(startOpenAIServer(faults('timeout')));
    const timedOut = await rejection(openai(hanging, { timeout: 150 }).chat.completions.create(params()));
    expect(timedOut).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    const garbled = await serve(startOpenAIServer(faults('malformed-json')));
    await expect(openai(garbled).chat.completions.create(params())).rejects.toThrow();
    expect([plain, limited, broken, overloaded, hanging, garbled].flatMap((s) => s.billed)).toEqual([]);
  });

  it('sends rate-limit headers with a 429', async () => {
    const server = await serve(startOpenAIServer({ rateLimit: { rpm: 1 } }));
    await openai(server).chat.completions.create(params());
    const limited = await rejection(openai(server).chat.completions.create(params()));
    expect(limited.status).toBe(429);
    expect(limited.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(limited.headers?.get('x-ratelimit-reset-requests')).toMatch(/^\d+(\.\d+)?s$/);
    expect(Number(limited.headers?.get('retry-after'))).toBe(60);
  });
});

// ---------------------------------------------------------------------------------------------------
// Gemini

describe('gemini loopback via @google/genai', () => {
  const MODEL = 'gemini-2.5-flash';
  const request = (config: Record<string, unknown> = {}, text = SUBJECT_USER) => ({
    model: MODEL,
    contents: [{ role: 'user', parts: [{ text }] }],
    config: { systemInstruction: SYSTEM, temperature: 0, seed: 3, maxOutputTokens: 256, ...config },
  });

  it('answers plain text, honouring the system instruction and generation config', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    const response = await gemini(server).models.generateContent(request());
    expect(response.text).toBe(SUBJECT_ANSWER);
    const promptTokens = countTokens(SYSTEM) + countTokens(SUBJECT_USER);
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: promptTokens,
      candidatesTokenCount: countTokens(SUBJECT_ANSWER),
      totalTokenCount: promptTokens + countTokens(SUBJECT_ANSWER),
    });
    expect(server.calls[0]).toMatchObject({
      model: MODEL,
      system: SYSTEM,
      temperature: 0,
      seed: 3,
      maxTokens: 256,
    });
  });

  it('emits JSON for responseMimeType application/json with a responseSchema', async () => {
    const server = await serve(startGeminiServer());
    const response = await gemini(server).models.generateContent(
      request({ responseMimeType: 'application/json', responseSchema: VERDICT_SCHEMA }, JUDGE_USER),
    );
    expectVerdict(response.text ?? '');
    expect(server.calls[0]?.schema).toMatchObject({ type: 'OBJECT' });
  });

  it('reports implicitly cached prompt tokens on a repeated prompt', async () => {
    const server = await serve(startGeminiServer());
    const client = gemini(server);
    const long = request({ systemInstruction: LONG_SYSTEM });
    const total = countTokens(LONG_SYSTEM) + countTokens(SUBJECT_USER);
    const first = await client.models.generateContent(long);
    expect(first.usageMetadata?.cachedContentTokenCount).toBeUndefined();
    const second = await client.models.generateContent(long);
    expect(second.usageMetadata).toMatchObject({ promptTokenCount: total, cachedContentTokenCount: total });
  });

  it('runs an inlined batch end to end: create, get, inlined responses with an expired item, list', async () => {
    // batches end 1 s after creation, so a job is still running when it is read or cancelled right away
    const server = await serve(
      startGeminiServer({ apiKey: KEY, batch: { expire: (id) => id === 'q-3', completeAfterMs: 1000 } }),
    );
    const client = gemini(server);
    const src = ['q-1', 'q-2', 'q-3'].map((key) => {
      const { contents, config } = request();
      return { contents, config, metadata: { key } };
    });
    const job = await client.batches.create({ model: MODEL, src, config: { displayName: 'rge-run-7' } });
    expect(job).toMatchObject({
      state: JobState.JOB_STATE_PENDING,
      displayName: 'rge-run-7',
      model: `models/${MODEL}`,
    });
    const name = job.name ?? '';
    expect(name).toMatch(/^batches\//);
    expect((await client.batches.get({ name })).state).toBe(JobState.JOB_STATE_RUNNING);

    const ended = await until(
      () => client.batches.get({ name }),
      (j) => j.state !== JobState.JOB_STATE_RUNNING,
      10_000,
    );
    expect(ended.state).toBe(JobState.JOB_STATE_EXPIRED);
    const responses = ended.dest?.inlinedResponses ?? [];
    expect(responses.map((r) => r.metadata?.key)).toEqual(['q-1', 'q-2', 'q-3']);
    expect(responses[0]?.response?.candidates?.[0]?.content?.parts?.[0]?.text).toBe(SUBJECT_ANSWER);
    expect(responses[2]?.error).toMatchObject({ code: 4 });
    expect(server.calls.map((c) => [c.customId, c.batch, c.system])).toEqual([
      ['q-1', true, SYSTEM],
      ['q-2', true, SYSTEM],
    ]);

    const other = await client.batches.create({
      model: MODEL,
      src: src.slice(0, 1),
      config: { displayName: 'other' },
    });
    const byName = new Map<string, string>();
    for await (const j of await client.batches.list({ config: { pageSize: 1 } }))
      byName.set(j.displayName ?? '', j.state ?? '');
    expect(byName.get('rge-run-7')).toBe(JobState.JOB_STATE_EXPIRED);
    await client.batches.cancel({ name: other.name ?? '' });
    expect((await client.batches.get({ name: other.name ?? '' })).state).toBe(JobState.JOB_STATE_CANCELLED);
  });

  it('answers errors in the Google format: 400 for a wrong key, 429 with RetryInfo, 500, 400, timeout, malformed body', async () => {
    const plain = await serve(startGeminiServer({ apiKey: KEY }));
    const unauthorized = await rejection(gemini(plain, {}, 'wrong').models.generateContent(request()));
    expect(unauthorized.status).toBe(400); // Gemini refuses a wrong key with a 400 (see below)
    expect(JSON.parse(unauthorized.message)).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT' },
    });
    const malformed = await rejection(
      gemini(plain, { fetch: corruptingFetch }).models.generateContent(request()),
    );
    expect(malformed.status).toBe(400);

    const limited = await serve(startGeminiServer(faults('429')));
    const rateLimited = await rejection(gemini(limited).models.generateContent(request()));
    expect(rateLimited.status).toBe(429);
    expect(JSON.parse(rateLimited.message)).toMatchObject({
      error: {
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }],
      },
    });

    const broken = await serve(startGeminiServer(faults('500')));
    expect((await rejection(gemini(broken).models.generateContent(request()))).status).toBe(500);

    const hanging = await serve(startGeminiServer(faults('timeout')));
    await expect(gemini(hanging, { timeout: 150 }).models.generateContent(request())).rejects.toThrow();
    const garbled = await serve(startGeminiServer(faults('malformed-json')));
    await expect(gemini(garbled).models.generateContent(request())).rejects.toThrow();
    expect([plain, limited, broken, hanging, garbled].flatMap((s) => s.billed)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Across providers

describe('loopback servers together', () => {
  it('start on free ports, keep keys in their auth headers, and draw the same faults for the same seed', async () => {
    const servers = await startLoopbackServers(
      { faults: { rate: 0.5, seed: 'same-seed', kinds: ['500', 'bad-verdict'] } },
      { anthropic: { apiKey: 'sk-ant-k' }, openai: { apiKey: 'sk-k' }, gemini: { apiKey: 'g-k' } },
    );
    open.push(servers.anthropic, servers.openai, servers.gemini);
    const twin = await serve(
      startOpenAIServer({
        apiKey: 'sk-k',
        faults: { rate: 0.5, seed: 'same-seed', kinds: ['500', 'bad-verdict'] },
      }),
    );

    const outcomes = async (server: LoopbackServer) => {
      const client = openai(server, { apiKey: 'sk-k' });
      const seen: string[] = [];
      for (let i = 0; i < 8; i++) {
        const judged = params(i);
        const result = await client.chat.completions.create(judged).then(
          (c) => {
            try {
              expectVerdict(c.choices[0]?.message.content ?? '');
              return 'ok';
            } catch {
              return 'bad-verdict';
            }
          },
          (err: { status?: number }) => String(err.status),
        );
        seen.push(result);
      }
      return seen;
    };
    const params = (i: number): OpenAI.ChatCompletionCreateParamsNonStreaming => ({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: `${JUDGE_USER}\n#${i}` }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'verdict', strict: true, schema: VERDICT_SCHEMA },
      },
    });
    const first = await outcomes(servers.openai);
    expect(await outcomes(twin)).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(1);

    await anthropic(servers.anthropic, { apiKey: 'sk-ant-k' })
      .messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch(() => undefined);
    await gemini(servers.gemini, {}, 'g-k')
      .models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })
      .catch(() => undefined);
    const leaks = (server: LoopbackServer, key: string, allowed: string) =>
      server.requests.flatMap((r) =>
        Object.entries(r.headers)
          .filter(([name, value]) => name !== allowed && value.includes(key))
          .map(([name]) => name),
      );
    expect(leaks(servers.anthropic, 'sk-ant-k', 'authorization')).toEqual([]);
    expect(leaks(servers.openai, 'sk-k', 'authorization')).toEqual([]);
    expect(leaks(servers.gemini, 'g-k', 'x-goog-api-key')).toEqual([]);
    expect(servers.gemini.requests[0]?.headers['x-goog-api-key']).toBe('g-k');
  });
});

// ---------------------------------------------------------------------------------------------------
// Bad keys

describe('a bad key is refused as each real API refuses it, echoing what it echoes of the key', () => {
  // a wrong key of the length and shape of a real project key (8 + 156 characters)
  const wrong = `sk-proj-${'Qx7vN2pL'.repeat(19)}Zr4s`;
  const post = (url: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

  it('OpenAI: a 401 invalid_api_key showing the key masked, its first 8 and last 4 characters', async () => {
    const server = await serve(startOpenAIServer({ apiKey: KEY }));
    const err = await rejection(
      openai(server, { apiKey: wrong }).chat.completions.create({
        model: 'gpt-4.1-mini',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    expect(err.message).toBe(
      `401 Incorrect API key provided: sk-proj-${'*'.repeat(wrong.length - 12)}Zr4s. You can find your API key at https://platform.openai.com/account/api-keys.`,
    );
    expect(maskedKey('sk-PMafPxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxE873')).toBe(
      'sk-PMafP***************************************E873',
    );
    expect(maskedKey('undefined')).toBe('undefined'); // a short key is shown whole
    // no key at all: a 401 without a code that echoes nothing
    const none = await post(`${server.url}/chat/completions`, {});
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({
      error: { message: expect.stringMatching(/^You didn't provide an API key\./), code: null },
    });
  });

  it('Anthropic: a 401 authentication_error "invalid x-api-key", nothing of the key', async () => {
    const server = await serve(startAnthropicServer({ apiKey: KEY }));
    const err = await rejection(
      anthropic(server, { apiKey: wrong }).messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(err.status).toBe(401);
    expect(err.message).toContain('"message":"invalid x-api-key"');
    expect(err.message).not.toContain('Zr4s');
  });

  it('Gemini: a 400 INVALID_ARGUMENT API_KEY_INVALID for a wrong key, a 403 without one, nothing of the key', async () => {
    const server = await serve(startGeminiServer({ apiKey: KEY }));
    const err = await rejection(
      gemini(server, {}, wrong).models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }),
    );
    expect(err.status).toBe(400);
    expect(JSON.parse(err.message)).toEqual({
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
          {
            '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
            locale: 'en-US',
            message: 'API key not valid. Please pass a valid API key.',
          },
        ],
      },
    });
    const none = await post(`${server.url}/v1beta/models/gemini-2.5-flash:generateContent`, {});
    expect(none.status).toBe(403);
    expect(await none.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
  });
});

// ---------------------------------------------------------------------------------------------------
// Batches whose client went away

describe('a batch runs at the provider whether or not its client comes back', () => {
  const ids = ['q-1', 'q-2', 'q-3', 'q-4'];
  const hi = [{ role: 'user' as const, content: 'What was revenue in FY24?' }];

  /** Submits a batch of `ids` to each fake through its SDK and never polls it. */
  const submitters = {
    anthropic: async (server: LoopbackServer) => {
      await anthropic(server).messages.batches.create({
        requests: ids.map((custom_id) => ({
          custom_id,
          params: { model: 'claude-haiku-4-5', max_tokens: 64, messages: hi },
        })),
      });
    },
    openai: async (server: LoopbackServer) => {
      const client = openai(server);
      const lines = ids.map((custom_id) =>
        JSON.stringify({
          custom_id,
          method: 'POST',
          url: '/v1/chat/completions',
          body: { model: 'gpt-4.1-mini', messages: hi },
        }),
      );
      const file = await client.files.create({
        file: await toFile(Buffer.from(lines.join('\n')), 'abandoned.jsonl'),
        purpose: 'batch',
      });
      await client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
    },
    gemini: async (server: LoopbackServer) => {
      await gemini(server).batches.create({
        model: 'gemini-2.5-flash',
        src: ids.map((key) => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], metadata: { key } })),
      });
    },
  };
  const starts = { anthropic: startAnthropicServer, openai: startOpenAIServer, gemini: startGeminiServer };

  for (const provider of ['anthropic', 'openai', 'gemini'] as const) {
    it(`${provider}: an abandoned batch is run and billed when due; one due after its window expires part way`, async () => {
      const abandoned = await serve(starts[provider]({ apiKey: KEY, batch: { completeAfterMs: 40 } }));
      await submitters[provider](abandoned);
      const requests = abandoned.requests.length;
      // nobody asks about it again, and its items are still billed, once each
      await until(
        async () => abandoned.billed.length,
        (n) => n === ids.length,
      );
      expect(abandoned.billed.map((b) => [b.customId, b.batch])).toEqual(ids.map((id) => [id, true]));
      expect(abandoned.requests.length).toBe(requests);

      // due after its 24 h (here 60 ms) window: half the items were run by then and are billed
      const late = await serve(
        starts[provider]({ apiKey: KEY, batch: { completeAfterMs: 120, windowMs: 60 } }),
      );
      await submitters[provider](late);
      await until(
        async () => late.billed.length,
        (n) => n > 0,
      );
      await new Promise((r) => setTimeout(r, 150));
      expect(late.billed.map((b) => b.customId)).toEqual(['q-1', 'q-2']);
    });
  }
});
