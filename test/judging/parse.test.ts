import { describe, expect, it } from 'vitest';
import { extractJsonText, judgeCase, judgeCaseCharged, parseVerdict } from '../../src/judging/parse.ts';
import { JudgeOutcome, type JudgeVerdict } from '../../src/judging/verdict.ts';
import { CallError } from '../../src/providers/live/adapter.ts';
import type { ModelReply, ModelRequest, Provider } from '../../src/providers/types.ts';
import { ZERO_USAGE } from '../../src/providers/types.ts';

const VERDICT: JudgeVerdict = {
  correctness: { evidence: ['Rs 3.50 per share'], rationale: 'matches the gold figure', score: 2 },
  grounding: { evidence: ['final dividend of Rs 3.50'], rationale: 'cited chunk states it', score: 2 },
  calibration: { evidence: [], rationale: 'answers plainly', score: 1 },
  unsupported_claims: [],
};

const REQUEST: ModelRequest = {
  model: 'fake',
  system: 'judge',
  messages: [{ role: 'user', content: 'the case' }],
  parameters: { temperature: 0 },
  maxTokens: 100,
};

/**
 * A provider that replies with the given texts in turn (or throws the given errors) and records what it
 * was sent; reply n is billed as charge `call-n`.
 */
function scripted(replies: readonly (string | Error)[]): Provider & { seen: ModelRequest[] } {
  const seen: ModelRequest[] = [];
  return {
    id: 'fake/judge',
    family: 'fake',
    seen,
    async complete(request): Promise<ModelReply> {
      seen.push(request);
      const text = replies[seen.length - 1];
      if (text === undefined) throw new Error('no more replies');
      if (text instanceof Error) throw text;
      const charges = [{ reservation: `call-${seen.length}`, key: `call-${seen.length}`, usd: 0.001 }];
      return { text, usage: ZERO_USAGE, latencyMs: 10, costUsd: 0.001, model: 'fake', charges };
    },
  };
}

describe('parseVerdict', () => {
  it('reads plain JSON, a fenced ```json block, and an object wrapped in prose', () => {
    const json = JSON.stringify(VERDICT);
    expect(parseVerdict(json)).toEqual({ ok: true, verdict: VERDICT });
    expect(parseVerdict(`Here is my verdict:\n\`\`\`json\n${json}\n\`\`\`\n`)).toEqual({
      ok: true,
      verdict: VERDICT,
    });
    expect(parseVerdict(`\`\`\`\n${json}\n\`\`\``)).toEqual({ ok: true, verdict: VERDICT });
    expect(parseVerdict(`My verdict: ${json} Thanks.`)).toEqual({ ok: true, verdict: VERDICT });
    expect(extractJsonText('  {"a":1}  ')).toBe('{"a":1}');
  });

  it('names what is wrong: not JSON, or the field that breaks the schema', () => {
    const notJson = parseVerdict('I think it is correct.');
    expect(notJson.ok).toBe(false);
    if (!notJson.ok) expect(notJson.error).toMatch(/not JSON/);
    const badScore = parseVerdict(
      JSON.stringify({ ...VERDICT, grounding: { ...VERDICT.grounding, score: 3 } }),
    );
    expect(badScore.ok).toBe(false);
    if (!badScore.ok) expect(badScore.error).toMatch(/grounding\.score/);
    const missing = parseVerdict(JSON.stringify({ correctness: VERDICT.correctness }));
    if (!missing.ok) expect(missing.error).toMatch(/grounding/);
  });
});

describe('judgeCase', () => {
  it('scores a valid first reply in one attempt', async () => {
    const provider = scripted([JSON.stringify(VERDICT)]);
    const outcome = await judgeCase(provider, REQUEST);
    expect(JudgeOutcome.parse(outcome)).toEqual(outcome);
    expect(outcome).toMatchObject({ status: 'scored', attempts: 1, error: null, verdict: VERDICT });
    expect(outcome).toMatchObject({ judgeId: 'fake/judge', family: 'fake', latencyMs: 10 });
  });

  it('retries once after garbage, with the bad reply and the error appended, then scores', async () => {
    const provider = scripted(['garbage', `\`\`\`json\n${JSON.stringify(VERDICT)}\n\`\`\``]);
    const outcome = await judgeCase(provider, REQUEST);
    expect(outcome).toMatchObject({ status: 'scored', attempts: 2, error: null, verdict: VERDICT });
    expect(outcome.latencyMs).toBe(20);
    expect(outcome.costUsd).toBeCloseTo(0.002, 12);
    const retry = provider.seen[1] as ModelRequest;
    expect(retry.messages).toHaveLength(3);
    expect(retry.messages[1]).toEqual({ role: 'assistant', content: 'garbage' });
    expect(retry.messages[2]?.role).toBe('user');
    expect(retry.messages[2]?.content).toMatch(/not JSON/);
    // the caller's request is not mutated
    expect(REQUEST.messages).toHaveLength(1);
  });

  it('garbage twice: unscored with the raw text and the error, never a 0', async () => {
    const provider = scripted(['garbage', 'still garbage']);
    const outcome = await judgeCase(provider, REQUEST);
    expect(outcome).toMatchObject({ status: 'unscored', verdict: null, attempts: 2, raw: 'still garbage' });
    expect(outcome.error).toMatch(/not JSON/);
    expect(provider.seen).toHaveLength(2); // exactly one retry
    expect(JudgeOutcome.parse(outcome)).toEqual(outcome);
  });

  it('valid JSON that breaks the schema twice is unscored with the schema error', async () => {
    const bad = JSON.stringify({ ...VERDICT, calibration: { ...VERDICT.calibration, score: '2' } });
    const outcome = await judgeCase(scripted([bad, bad]), REQUEST);
    expect(outcome.status).toBe('unscored');
    expect(outcome.raw).toBe(bad);
    expect(outcome.error).toMatch(/calibration\.score/);
  });

  it('schema error then valid: scored on the retry', async () => {
    const bad = JSON.stringify({ ...VERDICT, unsupported_claims: undefined });
    const outcome = await judgeCase(scripted([bad, JSON.stringify(VERDICT)]), REQUEST);
    expect(outcome).toMatchObject({ status: 'scored', attempts: 2 });
  });

  it('a provider error is not a reply: it propagates', async () => {
    await expect(judgeCase(scripted([]), REQUEST)).rejects.toThrow(/no more replies/);
  });
});

describe('the retry after an empty reply', () => {
  // Anthropic refuses an empty text block (400 "messages: text content blocks must be non-empty") and a
  // whitespace-only one ("... must contain non-whitespace text"), Gemini an empty text part (400 "...
  // empty text parameter"); Gemini asks turns to alternate. So no turn without text, and one user turn.
  for (const [name, empty] of [
    ['an empty', ''],
    ['a whitespace-only', ' \n\t '],
  ] as const)
    it(`sends no assistant turn for ${name} reply: the case's turn says the reply was empty`, async () => {
      const request: ModelRequest = {
        ...REQUEST,
        messages: [{ role: 'user', content: 'the shared part. the answer', cacheBreak: 16 }],
      };
      const provider = scripted([empty, JSON.stringify(VERDICT)]);
      const outcome = await judgeCase(provider, request);
      expect(outcome).toMatchObject({ status: 'scored', attempts: 2, error: null });
      const retry = provider.seen[1] as ModelRequest;
      expect(retry.messages).toHaveLength(1);
      const turn = retry.messages[0];
      expect(turn?.role).toBe('user');
      expect(turn?.content.startsWith('the shared part. the answer\n\n')).toBe(true);
      expect(turn?.content).toMatch(
        /previous reply to this request was empty\. Reply again with one JSON object/,
      );
      // the cache breakpoint stays where it was: the shared part is still read from the cache
      expect(turn?.cacheBreak).toBe(16);
      expect(retry.messages.every((m) => m.content.trim() !== '')).toBe(true);
      expect(request.messages[0]?.content).toBe('the shared part. the answer');
    });

  it('a reply with text is still sent back as the assistant turn', async () => {
    const provider = scripted([' not a verdict ', JSON.stringify(VERDICT)]);
    await judgeCase(provider, REQUEST);
    expect((provider.seen[1] as ModelRequest).messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
  });
});

describe('a retry that fails: the paid first reply is kept', () => {
  it('the first reply is handed to beforeRetry before the retry is asked, once, and never when no retry is asked', async () => {
    const provider = scripted(['garbage', JSON.stringify(VERDICT)]);
    const kept: { text: string; asked: number }[] = [];
    const beforeRetry = async (reply: ModelReply) => {
      kept.push({ text: reply.text, asked: provider.seen.length });
    };
    const judged = await judgeCaseCharged(provider, REQUEST, { beforeRetry });
    expect(kept).toEqual([{ text: 'garbage', asked: 1 }]);
    expect(judged.charges.map((c) => c.key)).toEqual(['call-1', 'call-2']);
    kept.length = 0;
    await judgeCaseCharged(scripted([JSON.stringify(VERDICT)]), REQUEST, { beforeRetry });
    await judgeCaseCharged(scripted(['garbage', 'garbage']), REQUEST, {
      beforeRetry: async (reply) => {
        kept.push({ text: reply.text, asked: 0 });
      },
    });
    // only the first of two unusable replies is kept: the second has no retry after it
    expect(kept).toEqual([{ text: 'garbage', asked: 0 }]);
  });

  it('a retry the provider refuses as a request (400) is definitive: unscored with the first reply and both errors', async () => {
    const refused = new CallError(
      'anthropic 400: messages: text content blocks must be non-empty',
      400,
      false,
      null,
    );
    const judged = await judgeCaseCharged(scripted(['garbage', refused]), REQUEST);
    expect(judged.outcome).toMatchObject({ status: 'unscored', verdict: null, raw: 'garbage', attempts: 2 });
    expect(judged.outcome.error).toMatch(
      /^reply is not JSON .*; its retry was refused: anthropic 400: messages: text/,
    );
    // the first reply's call is on record, at its cost
    expect(judged.charges).toEqual([{ reservation: 'call-1', key: 'call-1', usd: 0.001 }]);
    expect(judged.outcome.costUsd).toBeCloseTo(0.001, 12);
    expect(JudgeOutcome.parse(judged.outcome)).toEqual(judged.outcome);
  });

  it('any other failure of the retry propagates (a later run asks again), after the first reply was kept', async () => {
    for (const failure of [
      new CallError('anthropic: 529 overloaded (6 attempts)', 529, false, null),
      new CallError('anthropic: fetch failed (6 attempts)', null, false, null),
      new CallError('anthropic 401: invalid x-api-key', 401, false, null),
      new Error('budget cap of $1.00 reached'),
      new DOMException('This operation was aborted', 'AbortError'),
    ]) {
      const kept: string[] = [];
      const provider = scripted(['garbage', failure]);
      await expect(
        judgeCaseCharged(provider, REQUEST, {
          beforeRetry: async (reply) => {
            kept.push(reply.text);
          },
        }),
      ).rejects.toBe(failure);
      expect(kept).toEqual(['garbage']);
    }
  });

  it('a first reply already paid for is the first attempt: only the retry is asked', async () => {
    const first: ModelReply = {
      text: 'garbage',
      usage: ZERO_USAGE,
      latencyMs: 7,
      costUsd: 0.002,
      model: 'fake',
      charges: [{ reservation: 'earlier', key: 'earlier', usd: 0.002 }],
    };
    const provider = scripted([JSON.stringify(VERDICT)]);
    const judged = await judgeCaseCharged(provider, REQUEST, { first });
    expect(provider.seen).toHaveLength(1);
    expect((provider.seen[0] as ModelRequest).messages.map((m) => m.content)).toEqual([
      'the case',
      'garbage',
      expect.stringMatching(/not JSON/),
    ]);
    expect(judged.outcome).toMatchObject({ status: 'scored', attempts: 2, latencyMs: 17 });
    expect(judged.outcome.costUsd).toBeCloseTo(0.003, 12);
    expect(judged.charges.map((c) => c.key)).toEqual(['earlier', 'call-1']);
  });
});
