import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createSubjectProvider,
  EagerProvider,
  ExtractiveProvider,
  LIVE_PROVIDERS,
  ReplayProvider,
  SUBJECT_FAMILIES,
} from '../../src/providers/index.ts';
import type { Subject } from '../../src/run/config.ts';
import { RgeError } from '../../src/util/errors.ts';

const subject = (over: Partial<Subject>): Subject => ({
  id: 's',
  provider: 'offline',
  model: 'extractive',
  family: 'rge-offline-extractive',
  temperature: 0.7,
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
    expect(SUBJECT_FAMILIES['offline/eager']).toBe('rge-offline-eager');
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

  it.each(LIVE_PROVIDERS)('says plainly that live provider %s arrives in a later issue', async (provider) => {
    const err = await createSubjectProvider(subject({ provider, model: 'some-model', family: provider }), {
      root: '/',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RgeError);
    expect((err as Error).message).toBe(
      `subject s: provider ${provider}: live providers arrive in a later issue; use offline or replay`,
    );
  });
});
