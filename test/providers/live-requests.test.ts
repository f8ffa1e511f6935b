/**
 * The live adapters' requests are the SDKs' own param types, built field by field (no casts): the
 * type-level checks below fail `tsc` (npm test runs it) when a builder stops returning the SDK's type,
 * when the SDK drops a field rge sends, or when it brings back one rge relies on being gone. The
 * runtime checks pin what the published config's requests send to each provider.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type {
  Model as AnthropicModel,
  MessageCreateParamsBase,
  MessageCreateParamsNonStreaming,
} from '@anthropic-ai/sdk/resources/messages/messages';
import {
  BlockedReason,
  FinishReason,
  type GenerateContentConfig,
  GenerateContentResponse,
  type Schema,
  type ThinkingConfig,
  ThinkingLevel,
} from '@google/genai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions/completions';
import type { ChatModel, ReasoningEffort } from 'openai/resources/shared';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { CATALOGUE } from '../../src/providers/catalogue.ts';
import { contractOf } from '../../src/providers/contract.ts';
import { anthropicStop, messageParams } from '../../src/providers/live/anthropic.ts';
import {
  geminiConfig,
  geminiContents,
  geminiResponseSchema,
  geminiStop,
} from '../../src/providers/live/gemini.ts';
import { type CompletionView, chatParams, openaiStop } from '../../src/providers/live/openai.ts';
import type { ModelRequest, RequestParameters } from '../../src/providers/types.ts';
import { type PublishedRequest, publishedRequests } from '../helpers/published-requests.ts';

describe('the request builders return the SDKs’ own param types (type level)', () => {
  it('Anthropic: MessageCreateParamsNonStreaming, which has no sampling parameter under 2026-10-21', () => {
    expectTypeOf(messageParams).returns.toEqualTypeOf<MessageCreateParamsNonStreaming>();
    // @anthropic-ai/sdk 1.x removed them with API version 2026-10-21; if a future SDK brings one back,
    // the model contract (src/providers/catalogue.ts) must be read again.
    expectTypeOf<MessageCreateParamsBase>().not.toHaveProperty('temperature');
    expectTypeOf<MessageCreateParamsBase>().not.toHaveProperty('top_p');
    expectTypeOf<MessageCreateParamsBase>().not.toHaveProperty('top_k');
    expectTypeOf<MessageCreateParamsBase>().toHaveProperty('output_config');
  });

  it('OpenAI: ChatCompletionCreateParamsNonStreaming, with reasoning_effort as the SDK spells it', () => {
    expectTypeOf(chatParams).returns.toEqualTypeOf<ChatCompletionCreateParamsNonStreaming>();
    expectTypeOf<ChatCompletionCreateParamsNonStreaming>().toHaveProperty('max_completion_tokens');
    expectTypeOf<ChatCompletionCreateParamsNonStreaming>().toHaveProperty('reasoning_effort');
    // rge's reasoning efforts are the SDK's
    expectTypeOf<NonNullable<RequestParameters['reasoning_effort']>>().toExtend<
      NonNullable<ReasoningEffort>
    >();
    // a completion as the SDK types it is what rge reads of one
    expectTypeOf<ChatCompletion>().toExtend<CompletionView>();
    // the seed rge sends a subject's cell is still a param (deprecated: see below)
    expectTypeOf<ChatCompletionCreateParamsNonStreaming['seed']>().toEqualTypeOf<number | null | undefined>();
  });

  it('Gemini: GenerateContentConfig, with the thinking level and the schema as the SDK’s enums', () => {
    expectTypeOf(geminiConfig).returns.toEqualTypeOf<GenerateContentConfig>();
    expectTypeOf(geminiResponseSchema).returns.toEqualTypeOf<Schema>();
    expectTypeOf<ThinkingConfig['thinkingLevel']>().toEqualTypeOf<ThinkingLevel | undefined>();
    expectTypeOf(geminiStop).parameter(0).toEqualTypeOf<GenerateContentResponse>();
  });
});

/** The model ids a union names, without its open `(string & {})` member. */
type NamedIds<T> = T extends string ? (string extends T ? never : T) : never;

describe('the pinned SDKs are the ones the catalogue was read against', () => {
  // The catalogue's Claude and OpenAI models, as the pinned SDKs' model unions name them: an SDK that
  // drops one (as @anthropic-ai/sdk 1.15.0 dropped the retired claude-sonnet-4-5) fails tsc here.
  const CLAUDE = ['claude-sonnet-4-6', 'claude-haiku-4-5'] as const;
  const GPT = ['gpt-5.4', 'gpt-5.4-mini'] as const;

  it('every Claude and GPT model of the catalogue is one the pinned SDK names', () => {
    expectTypeOf<(typeof CLAUDE)[number]>().toExtend<NamedIds<AnthropicModel>>();
    expectTypeOf<(typeof GPT)[number]>().toExtend<NamedIds<ChatModel>>();
    const ids = (provider: string) =>
      CATALOGUE.filter((m) => m.provider === provider)
        .map((m) => m.apiId)
        .sort();
    expect(ids('anthropic')).toEqual([...CLAUDE].sort());
    expect(ids('openai')).toEqual([...GPT].sort());
  });

  it('the Anthropic contract names the SDK version it was read against, the one package.json pins', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const pinned = pkg.dependencies['@anthropic-ai/sdk'];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(contractOf('anthropic', 'claude-sonnet-4-6').contract.source).toContain(
      `@anthropic-ai/sdk ${pinned} MessageCreateParamsBase`,
    );
  });
});

describe("OpenAI's seed: deprecated in the pinned types, no determinism, and rge says so", () => {
  /** The doc comment of a param in the pinned SDK's declaration of the chat completion params. */
  const docOf = async (field: string): Promise<string> => {
    const js = createRequire(import.meta.url).resolve('openai/resources/chat/completions/completions');
    const dts = await readFile(js.replace(/\.js$/, '.d.ts'), 'utf8');
    const params = dts.slice(dts.indexOf('export interface ChatCompletionCreateParamsBase'));
    const at = params.indexOf(`\n    ${field}?:`);
    expect(at, `${field} is not a param of the pinned SDK`).toBeGreaterThan(0);
    return params.slice(params.lastIndexOf('/**', at), at);
  };

  it('the pinned openai types mark seed deprecated and say determinism is not guaranteed', async () => {
    const doc = (await docOf('seed')).replace(/\s*\n\s*\*\s*/g, ' ');
    expect(doc).toContain('@deprecated');
    expect(doc).toContain('best effort');
    expect(doc).toContain('Determinism is not guaranteed');
  });

  it('the GPT-5.4 contract and docs/reference/providers-and-costs.md say so, and claim no determinism', async () => {
    const { contract } = contractOf('openai', 'gpt-5.4');
    expect(contract.seed).toBe(true);
    expect(contract.note).toMatch(/deprecated in the openai types, best effort: no determinism is claimed/);
    const readme = (
      await readFile(new URL('../../docs/reference/providers-and-costs.md', import.meta.url), 'utf8')
    ).replace(/\s+/g, ' ');
    expect(readme).toContain("OpenAI's `seed` is deprecated in the pinned `openai` types");
    expect(readme).toContain('rge claims no determinism, from the seed or from temperature 0');
    expect(readme).toContain('never to a judge (a verdict request carries none)');
  });
});

describe("what the published config's requests send", () => {
  let requests: PublishedRequest[] = [];
  beforeAll(async () => {
    requests = await publishedRequests();
  });
  const of = (id: string): ModelRequest => {
    const r = requests.find((x) => x.id === id);
    if (!r) throw new Error(`no request of ${id}`);
    return r.request;
  };
  const contract = (provider: string, model: string) => contractOf(provider, model).contract;

  it('has a subject and a judge request per model', () => {
    expect(requests.map((r) => `${r.role}:${r.id}`).sort()).toEqual([
      'judge:claude-judge',
      'judge:gemini-judge',
      'judge:gpt-judge',
      'subject:claude',
      'subject:gemini',
      'subject:gpt',
    ]);
  });

  it('Claude: no temperature, top_p or top_k, the cache breakpoints and structured output', () => {
    for (const id of ['claude', 'claude-judge']) {
      const params = messageParams(of(id), contract('anthropic', 'claude-sonnet-4-6'));
      expect(Object.keys(params).sort()).toEqual(
        id === 'claude'
          ? ['max_tokens', 'messages', 'model', 'system']
          : ['max_tokens', 'messages', 'model', 'output_config', 'system'],
      );
      expect(params.system).toEqual([expect.objectContaining({ cache_control: { type: 'ephemeral' } })]);
    }
    expect(messageParams(of('claude'), contract('anthropic', 'claude-sonnet-4-6')).max_tokens).toBe(1024);
    expect(
      messageParams(of('claude-judge'), contract('anthropic', 'claude-sonnet-4-6')).output_config,
    ).toEqual({
      format: { type: 'json_schema', schema: expect.objectContaining({ type: 'object' }) },
    });
  });

  it('a request that carries a temperature for Claude is refused before it is sent', () => {
    const request = { ...of('claude'), parameters: { temperature: 0 } };
    expect(() => messageParams(request, contract('anthropic', 'claude-sonnet-4-6'))).toThrow(
      /^anthropic: not sent: anthropic\/claude-sonnet-4-6 \(API version 2026-10-21\) accepts no temperature/,
    );
  });

  it('GPT-5.4: max_completion_tokens, reasoning_effort none, temperature 0 and the cell seed', () => {
    for (const id of ['gpt', 'gpt-judge']) {
      const request = of(id);
      const params = chatParams(request, { provider: 'openai', contract: contract('openai', 'gpt-5.4') });
      expect(params).toMatchObject({ reasoning_effort: 'none', temperature: 0 });
      expect(params).not.toHaveProperty('max_tokens');
      expect(params).not.toHaveProperty('top_p');
      expect(params.max_completion_tokens).toBe(id === 'gpt' ? 1024 : 2048);
      expect(params.seed).toBe(request.seed);
      expect(params.messages[0]).toEqual({ role: 'system', content: request.system });
    }
    const judge = chatParams(of('gpt-judge'), {
      provider: 'openai',
      contract: contract('openai', 'gpt-5.4'),
    });
    expect(judge.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'verdict', strict: true },
    });
  });

  it('Gemini 3.1 Pro: thinkingLevel LOW (the REST spelling), no temperature, the seed, the thinking allowance', () => {
    for (const id of ['gemini', 'gemini-judge']) {
      const request = of(id);
      const config = geminiConfig(request, contract('gemini', 'gemini-3.1-pro-preview'));
      expect(config.thinkingConfig).toEqual({ thinkingLevel: ThinkingLevel.LOW });
      expect(config.thinkingConfig?.thinkingLevel).toBe('LOW');
      expect(config).not.toHaveProperty('temperature');
      expect(config).not.toHaveProperty('topP');
      expect(config.seed).toBe(request.seed);
      expect(config.maxOutputTokens).toBe((id === 'gemini' ? 1024 : 2048) + 2048);
      expect(config.systemInstruction).toBe(request.system);
    }
    const judge = geminiConfig(of('gemini-judge'), contract('gemini', 'gemini-3.1-pro-preview'));
    expect(judge).toMatchObject({ responseMimeType: 'application/json', responseSchema: { type: 'OBJECT' } });
    expect(geminiContents(of('gemini'))).toEqual([
      { role: 'user', parts: [{ text: of('gemini').messages[0]?.content }] },
    ]);
  });
});

describe('stop and finish reasons are read, never ignored', () => {
  it('Anthropic', () => {
    expect(anthropicStop('end_turn').kind).toBe('complete');
    expect(anthropicStop('stop_sequence').kind).toBe('complete');
    expect(anthropicStop('max_tokens')).toEqual({ kind: 'truncated', reason: 'max_tokens' });
    expect(anthropicStop('model_context_window_exceeded').kind).toBe('truncated');
    expect(anthropicStop('refusal')).toEqual({ kind: 'refusal', reason: 'refusal' });
    expect(anthropicStop('pause_turn').kind).toBe('other');
    expect(anthropicStop(null)).toEqual({ kind: 'other', reason: 'none' });
  });

  it('OpenAI', () => {
    expect(openaiStop('stop', null).kind).toBe('complete');
    expect(openaiStop('length', null)).toEqual({ kind: 'truncated', reason: 'length' });
    expect(openaiStop('content_filter', null)).toEqual({ kind: 'safety', reason: 'content_filter' });
    expect(openaiStop('stop', 'I cannot help with that.')).toEqual({ kind: 'refusal', reason: 'refusal' });
    expect(openaiStop('tool_calls', null).kind).toBe('other');
  });

  it('Gemini: MAX_TOKENS (thinking counts toward it), safety finishes and a blocked prompt', () => {
    const reply = (finishReason?: FinishReason): GenerateContentResponse =>
      Object.assign(new GenerateContentResponse(), {
        candidates: [
          { content: { parts: [{ text: 'x' }], role: 'model' }, ...(finishReason ? { finishReason } : {}) },
        ],
      });
    expect(geminiStop(reply(FinishReason.STOP)).kind).toBe('complete');
    expect(geminiStop(reply(FinishReason.MAX_TOKENS))).toEqual({ kind: 'truncated', reason: 'MAX_TOKENS' });
    for (const r of [
      FinishReason.SAFETY,
      FinishReason.RECITATION,
      FinishReason.PROHIBITED_CONTENT,
      FinishReason.BLOCKLIST,
      FinishReason.SPII,
    ])
      expect(geminiStop(reply(r))).toEqual({ kind: 'safety', reason: r });
    expect(geminiStop(reply(FinishReason.LANGUAGE)).kind).toBe('other');
    expect(geminiStop(reply())).toEqual({ kind: 'other', reason: 'FINISH_REASON_UNSPECIFIED' });
    const blocked = Object.assign(new GenerateContentResponse(), {
      promptFeedback: { blockReason: BlockedReason.PROHIBITED_CONTENT },
    });
    expect(geminiStop(blocked)).toEqual({ kind: 'safety', reason: 'prompt blocked: PROHIBITED_CONTENT' });
  });
});
