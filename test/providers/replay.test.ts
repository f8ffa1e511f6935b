import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ReplayProvider } from '../../src/providers/index.ts';
import { renderSubjectRequest } from '../../src/subject/index.ts';
import { ask } from './context.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rge-replay-'));
});

async function file(name: string, lines: readonly (string | object)[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  return path;
}

function request(model: string, questionId: string, runIndex: number) {
  return renderSubjectRequest(ask('What was the revenue?', undefined, questionId), {
    model,
    parameters: { temperature: 0 },
    maxTokens: 512,
    cell: { questionId, runIndex, seed: 's' },
  });
}

describe('replay', () => {
  it('answers from the record keyed by (question id, model, run index), with its usage, latency, cost and retrieved ids', async () => {
    const path = await file('answers.jsonl', [
      { question_id: 'gd-001', model: 'gpt-x', run_index: 0, answer: 'Rs 26,710.56 crore [a-FY24-00000001]' },
      {
        question_id: 'gd-001',
        model: 'gpt-x',
        run_index: 1,
        answer: 'second run',
        retrieved_ids: ['a-FY24-00000001', 'b-FY24-00000002'],
        usage: { input_tokens: 900, output_tokens: 40 },
        latency_ms: 812,
        cost_usd: 0.0021,
      },
      '',
      { question_id: 'gd-001', model: 'claude-y', run_index: 0, answer: 'other model' },
    ]);
    const replay = await ReplayProvider.load(path, { family: 'openai' });
    expect(replay.size).toBe(3);
    expect(replay.family).toBe('openai');

    const first = await replay.complete(request('gpt-x', 'gd-001', 0));
    expect(first.text).toBe('Rs 26,710.56 crore [a-FY24-00000001]');
    expect(first.usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(first.costUsd).toBe(0);
    expect(first.retrievedIds).toBeUndefined();

    const second = await replay.complete(request('gpt-x', 'gd-001', 1));
    expect(second).toMatchObject({
      text: 'second run',
      latencyMs: 812,
      costUsd: 0.0021,
      model: 'gpt-x',
      retrievedIds: ['a-FY24-00000001', 'b-FY24-00000002'],
      usage: { inputTokens: 900, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect((await replay.complete(request('claude-y', 'gd-001', 0))).text).toBe('other model');
  });

  it('names the file and the key when a record is missing', async () => {
    const path = await file('one.jsonl', [
      { question_id: 'gd-001', model: 'gpt-x', run_index: 0, answer: 'a' },
    ]);
    const replay = await ReplayProvider.load(path);
    await expect(replay.complete(request('gpt-x', 'gd-001', 2))).rejects.toThrow(
      `${path}: no recorded answer for question gd-001, model gpt-x, run index 2`,
    );
    await expect(replay.complete(request('gpt-z', 'gd-001', 0))).rejects.toThrow(/model gpt-z/);
    const { cell: _cell, ...noCell } = request('gpt-x', 'gd-001', 0);
    await expect(replay.complete(noCell)).rejects.toThrow(/needs request.cell/);
  });

  it('reports every bad line as file:line, and a repeated key with its first line', async () => {
    const bad = await file('bad.jsonl', [
      { question_id: 'gd-001', model: 'gpt-x', run_index: 0, answer: 'a' },
      '{not json',
      { question_id: 'gd-002', model: 'gpt-x', run_index: -1, answer: 'a' },
      { question_id: 'gd-003', model: 'gpt-x', run_index: 0 },
      { question_id: 'gd-004', model: 'gpt-x', run_index: 0, answer: 'a', extra: true },
    ]);
    const err = await ReplayProvider.load(bad).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toContain(`${bad}:2: invalid JSON`);
    expect(message).toContain(`${bad}:3: run_index:`);
    expect(message).toContain(`${bad}:4: answer:`);
    expect(message).toContain(`${bad}:5:`);
    expect(message).not.toContain(`${bad}:1:`);

    const dup = await file('dup.jsonl', [
      { question_id: 'gd-001', model: 'gpt-x', run_index: 0, answer: 'a' },
      { question_id: 'gd-001', model: 'gpt-x', run_index: 0, answer: 'b' },
    ]);
    await expect(ReplayProvider.load(dup)).rejects.toThrow(
      `${dup}:2: duplicate record for question gd-001, model gpt-x, run index 0 (first at line 1)`,
    );
    await expect(ReplayProvider.load(join(dir, 'absent.jsonl'))).rejects.toThrow(
      /absent\.jsonl: file not found/,
    );
  });
});
