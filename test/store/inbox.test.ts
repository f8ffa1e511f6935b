/**
 * The replies a process received (src/run/inbox.ts): a dead process's are stored by the next recovery,
 * so that its calls are settled at their cost instead of being paid again; a live process's are left.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AnswerRecord, type AttemptRecord, CellStores } from '../../src/store/cells.ts';
import { ReplyInbox, takeDeadInboxes } from '../../src/store/inbox.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { deadPid } from '../helpers/dead-pid.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const CLAUDE = { provider: 'anthropic', model: 'claude-sonnet-4-6', role: 'subject' } as const;

const freshDir = scratchDirs('rge-inbox-');

function answer(key: string, reservation: string | null, usd: number): AnswerRecord {
  return {
    kind: 'answer',
    key,
    identity: {
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      provider_version: '1',
      question_id: 'q1',
      questions_version: 1,
      run_index: 0,
      prompt_hash: 'p',
      max_tokens: 100,
      seed: 's',
      index_checksum: 'c',
      k: 5,
    },
    subject_id: 'claude',
    text: 'an answer',
    reply_model: 'claude-sonnet-4-6',
    retrieved_ids: [],
    usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    latency_ms: 1,
    cost_usd: usd,
    batch: false,
    charges: [{ reservation, key: reservation ?? `free-${key}`, usd }],
    created_at: '2026-12-01T00:00:00.000Z',
  };
}

/** A judge's unusable first reply, kept before its retry was asked. */
function attempt(key: string, reservation: string, usd: number): AttemptRecord {
  return {
    kind: 'attempt',
    key,
    identity: {
      answer_key: 'a1',
      provider: 'openai',
      model: 'gpt-5.4',
      provider_version: '1',
      judge_prompt_hash: 'j',
      request_hash: 'r',
    },
    judge_id: 'gpt-judge',
    text: 'not a verdict',
    reply_model: 'gpt-5.4',
    usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    latency_ms: 1,
    cost_usd: usd,
    batch: false,
    charges: [{ reservation, key: reservation, usd }],
    created_at: '2026-12-01T00:00:00.000Z',
  };
}

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '').length;

describe('the inbox of received replies', () => {
  it("a dead process's received replies are stored, once, and its calls settle at their cost", async () => {
    const dir = freshDir();
    const owner = { pid: await deadPid(), host: hostname(), token: 'dead' };
    // the dead process reserved two calls; both replies arrived, only the first reached its store
    const ledger = new BudgetLedger(dir, { capUsd: 1, warnUsd: 0, configFile: 'x' });
    const [r1, r2] = [await ledger.reserve(0.3, CLAUDE), await ledger.reserve(0.3, CLAUDE)];
    const inbox = new ReplyInbox(dir, owner);
    inbox.receive({ t: 'answer', record: answer('a1', r1, 0.01) });
    inbox.receive({ t: 'answer', record: answer('a2', r2, 0.02) });
    const cells = new CellStores(dir);
    await cells.answers('anthropic', 'claude-sonnet-4-6').put(answer('a1', r1, 0.01));
    // the reservations are the dead process's
    const journal = join(dir, '.budget_ledger.jsonl');
    const text = readFileSync(journal, 'utf8').replaceAll(`"pid":${process.pid}`, `"pid":${owner.pid}`);
    await writeFile(journal, text);

    expect(await takeDeadInboxes(dir, cells)).toBe(1);
    expect(existsSync(inbox.file)).toBe(false);
    const store = join(dir, 'cells', 'answers', 'anthropic__claude-sonnet-4-6.jsonl');
    expect(lines(store)).toBe(2);
    // the ledger settles both from their records: nothing written off at its worst case
    const fresh = new BudgetLedger(dir, { capUsd: 1, warnUsd: 0, configFile: 'x' });
    cells.openAll();
    expect(await fresh.recover((id) => cells.chargesOf(id))).toEqual({ settled: 2, unknown: 0 });
    expect(fresh.summary().spentUsd).toBeCloseTo(0.03, 12);
    expect(fresh.summary().unknownUsd).toBe(0);
    // taking them again stores nothing twice
    const again = new ReplyInbox(dir, owner);
    again.receive({ t: 'answer', record: answer('a2', r2, 0.02) });
    expect(await takeDeadInboxes(dir, cells)).toBe(0);
    expect(lines(store)).toBe(2);
  });

  it("a dead process's kept judge reply (killed during its retry) is stored as an attempt and settles at its cost", async () => {
    const dir = freshDir();
    const owner = { pid: await deadPid(), host: hostname(), token: 'dead' };
    const GPT = { provider: 'openai', model: 'gpt-5.4', role: 'judge' } as const;
    const ledger = new BudgetLedger(dir, { capUsd: 1, warnUsd: 0, configFile: 'x' });
    // the first reply's call, then its retry's, in flight when the process was killed
    const [first, retry] = [await ledger.reserve(0.2, GPT), await ledger.reserve(0.2, GPT)];
    new ReplyInbox(dir, owner).receive({ t: 'attempt', record: attempt('v1', first, 0.004) });
    const journal = join(dir, '.budget_ledger.jsonl');
    const text = readFileSync(journal, 'utf8').replaceAll(`"pid":${process.pid}`, `"pid":${owner.pid}`);
    await writeFile(journal, text);

    const cells = new CellStores(dir);
    expect(await takeDeadInboxes(dir, cells)).toBe(1);
    expect(cells.attempts('openai', 'gpt-5.4').get('v1')).toMatchObject({ text: 'not a verdict' });
    const fresh = new BudgetLedger(dir, { capUsd: 1, warnUsd: 0, configFile: 'x' });
    cells.openAll();
    // the first reply is settled at its cost; only the retry in flight is written off
    expect(await fresh.recover((id) => cells.chargesOf(id))).toEqual({ settled: 1, unknown: 1 });
    expect(fresh.summary().spentUsd).toBeCloseTo(0.004, 12);
    expect(fresh.summary().unknownUsd).toBeCloseTo(0.2, 12);
    expect(fresh.summary().open).toEqual([]);
    expect(retry).not.toBe(first);
  });

  it("a live process's inbox is its own: left alone, and removed when all is stored", async () => {
    const dir = freshDir();
    const cells = new CellStores(dir);
    const inbox = new ReplyInbox(dir, { pid: process.pid, host: hostname(), token: 'live' });
    inbox.receive({ t: 'answer', record: answer('a1', null, 0) });
    expect(await takeDeadInboxes(dir, cells)).toBe(0);
    expect(cells.answers('anthropic', 'claude-sonnet-4-6').get('a1')).toBeUndefined();
    // not stored yet: closing keeps it for the next run
    inbox.close();
    expect(existsSync(inbox.file)).toBe(true);
    inbox.stored('a1');
    inbox.close();
    expect(existsSync(inbox.file)).toBe(false);
  });
});
