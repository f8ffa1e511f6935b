import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProvider, createSubjectProvider } from '../../src/models/registry.ts';
import {
  EagerProvider,
  ExtractiveProvider,
  MeteredProvider,
  ReplayProvider,
} from '../../src/providers/index.ts';
import type { Subject } from '../../src/subject/config.ts';
import { RgeError } from '../../src/util/errors.ts';

const subject = (over: Partial<Subject>): Subject => ({
  id: 's',
  provider: 'offline',
  model: 'extractive',
  family: 'rge-offline-extractive',
  max_tokens: 512,
  ...over,
});

describe('createSubjectProvider', () => {
  it('builds the offline baselines with the family the run config gives them', async () => {
    const extractive = await createSubjectProvider(subject({}), { root: '/' });
    expect(extractive).toBeInstanceOf(ExtractiveProvider);
    expect(extractive.family).toBe('rge-offline-extractive');
    const eager = await createSubjectProvider(subject({ model: 'eager', family: 'fam-e' }), { root: '/' });
    expect(eager).toBeInstanceOf(EagerProvider);
    expect(eager.family).toBe('fam-e');
  });

  it('rejects an unknown offline model, naming the choices', async () => {
    await expect(createSubjectProvider(subject({ model: 'oracle' }), { root: '/' })).rejects.toThrow(
      'subject s: no offline model oracle: one of extractive, eager',
    );
  });

  it('loads a replay file relative to the root', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rge-registry-'));
    await writeFile(
      join(root, 'answers.jsonl'),
      `${JSON.stringify({ question_id: 'q', model: 'gpt-x', run_index: 0, answer: 'a' })}\n`,
    );
    const replay = await createSubjectProvider(
      subject({ provider: 'replay', model: 'gpt-x', family: 'openai', replay_file: 'answers.jsonl' }),
      { root },
    );
    expect(replay).toBeInstanceOf(ReplayProvider);
    expect(replay.id).toBe('replay/gpt-x');
    expect(replay.family).toBe('openai');
    await expect(
      createSubjectProvider(subject({ provider: 'replay', model: 'gpt-x' }), { root }),
    ).rejects.toThrow(/needs replay_file/);
  });

  const ctx = (env: Record<string, string | undefined>) => ({
    root: '/',
    env,
    settings: {},
    spender: null,
    requireKeys: true,
  });

  it.each([
    ['anthropic', 'claude-sonnet-4-6', 'ANTHROPIC_API_KEY'],
    ['openai', 'gpt-5.4', 'OPENAI_API_KEY'],
    ['gemini', 'gemini-3.1-pro-preview', 'GEMINI_API_KEY or GOOGLE_API_KEY'],
  ] as const)(
    'a live %s model without its key is one error naming the variable and who needs it',
    async (provider, model, variable) => {
      const err = await createProvider(
        subject({ provider, model, family: provider }),
        'subject',
        ctx({}),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RgeError);
      expect((err as Error).message).toBe(
        `subject s needs an API key: set ${variable} in the environment or in .env (nothing was called)`,
      );
    },
  );

  it('builds a live model as a metered provider, with the key from the environment', async () => {
    const p = await createProvider(
      subject({ provider: 'openai', model: 'gpt-5.4', family: 'openai' }),
      'judge',
      ctx({ OPENAI_API_KEY: 'sk-test-registry-0000' }),
    );
    expect(p).toBeInstanceOf(MeteredProvider);
    expect(p.id).toBe('openai/gpt-5.4');
    expect(p.family).toBe('openai');
  });

  it('refuses to build a model whose entry states a parameter its contract forbids, naming the model and the field', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test-0000', OPENAI_API_KEY: 'sk-test-registry-0000' };
    await expect(
      createProvider(
        subject({ provider: 'anthropic', model: 'claude-sonnet-4-6', family: 'anthropic', temperature: 0 }),
        'subject',
        ctx(env),
      ),
    ).rejects.toThrow(
      /^subject s: temperature: anthropic\/claude-sonnet-4-6 \(API version 2026-10-21\) accepts no temperature/,
    );
    await expect(
      createProvider(
        subject({
          provider: 'openai',
          model: 'gpt-5.4',
          family: 'openai',
          temperature: 0,
          reasoning_effort: 'medium',
        }),
        'judge',
        ctx(env),
      ),
    ).rejects.toThrow(
      /judge s: temperature: openai\/gpt-5.4 accepts temperature only with reasoning_effort: none/,
    );
    // an uncatalogued Anthropic model is under the same API version: no sampling parameter either
    await expect(
      createProvider(
        subject({
          provider: 'anthropic',
          model: 'claude-x-9',
          family: 'anthropic',
          top_p: 0.9,
          prices: { input: 1, output: 2, cache_read: 0.1, cache_write: 1.25, batch_discount: 0.5 },
        }),
        'subject',
        ctx(env),
      ),
    ).rejects.toThrow(/top_p: anthropic\/claude-x-9 \(API version 2026-10-21\) accepts no top_p/);
  });

  it('refuses a live model the catalogue does not price unless the config gives prices', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test-0000' };
    await expect(
      createProvider(
        subject({ provider: 'anthropic', model: 'claude-x-9', family: 'anthropic' }),
        'subject',
        ctx(env),
      ),
    ).rejects.toThrow(
      /model claude-x-9 of provider anthropic is not in the model catalogue.*Give its prices/,
    );
    const priced = await createProvider(
      subject({
        provider: 'anthropic',
        model: 'claude-x-9',
        family: 'anthropic',
        prices: { input: 1, output: 2, cache_read: 0.1, cache_write: 1.25, batch_discount: 0.5 },
      }),
      'subject',
      ctx(env),
    );
    // a million output tokens at the config's $2, at its 50% batch discount
    const usage = { inputTokens: 0, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect((priced as MeteredProvider).batch?.charge(usage, null, 'k').usd).toBe(1);
  });

  it('an openai-compatible model needs its base URL and reads the key variable it names', async () => {
    const spec = subject({
      provider: 'openai-compatible',
      model: 'llama-3.1-8b',
      family: 'meta',
      base_url: 'http://127.0.0.1:8000/v1',
      api_key_env: 'LOCAL_KEY',
      prices: { input: 0, output: 0, cache_read: 0, cache_write: 0, batch_discount: 0 },
    });
    await expect(createProvider(spec, 'subject', ctx({}))).rejects.toThrow(
      'subject s needs an API key: set LOCAL_KEY',
    );
    const p = await createProvider(spec, 'subject', ctx({ LOCAL_KEY: 'local-secret-1234' }));
    expect(p.id).toBe('openai-compatible/llama-3.1-8b');
  });
});
