/**
 * Verification's optional last check: a judge of another family (a model on the strict OpenAI loopback
 * server, through the real SDK) confirms each verified question or rejects it with its reason; a reply
 * that is not a verdict leaves the question unconfirmed; a rerun asks nothing (each question a stored
 * cell) and the ledger equals the server's bill; a judge of the generator's family is refused.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkId } from '../../../src/corpus/chunk.ts';
import type { Chunk } from '../../../src/corpus/schema.ts';
import { costUsd, findModel } from '../../../src/providers/catalogue.ts';
import { CandidateBody, candidateId } from '../../../src/questions/generate/candidate.ts';
import { QuoteIndex } from '../../../src/questions/generate/verify/quote-index.ts';
import { type VerifyResult, verifyCandidates } from '../../../src/questions/generate/verify/verify.ts';
import { openConfirmationJudge } from '../../../src/run/generate/confirm.ts';
import { bm25TopK } from '../../../src/run/generate/retrievers.ts';
import { BudgetLedger } from '../../../src/store/ledger.ts';
import { UsageError } from '../../../src/util/errors.ts';
import { liveSpec, loopbackSettings } from '../../helpers/generation.ts';
import { type LoopbackServer, startOpenAIServer } from '../../loopback/index.ts';

const DOC = 'plans.md';
const chunk = (text: string): Chunk => ({
  id: chunkId('plans', null, text),
  company: 'plans',
  fy: null,
  source: DOC,
  heading: 'Plans',
  pages: [1, 1],
  tokens: 30,
  text,
});
const CHUNKS = [
  chunk('The Team plan costs $14 per member per month.'),
  chunk('Annual plans can be refunded in full within 30 days of purchase.'),
  chunk('Exports larger than 10 GB are split into parts.'),
];
const generator = {
  id: 'offline/extractive',
  family: 'offline',
  kind: 'offline' as const,
  prompt_hash: 'p',
  seed: 's',
};
const candidate = (text: string, answer: string, quote: string) => {
  const body = CandidateBody.parse({
    category: 'grounded-direct',
    text,
    gold_answer: answer,
    gold_quotes: [{ document: DOC, text: quote }],
    expected_behavior: 'answer',
  });
  return { id: candidateId(body, []), body, generator, document: DOC, source_chunk_ids: [] };
};
const CANDIDATES = [
  candidate(
    'How much does the Team plan cost per member each month?',
    '$14 per member per month.',
    'The Team plan costs $14 per member per month.',
  ),
  candidate(
    'Within how many days can an annual plan be refunded?',
    '30 days.',
    'Annual plans can be refunded in full within 30 days of purchase.',
  ),
  candidate(
    'Which exports are split into parts?',
    'Exports larger than 10 GB.',
    'Exports larger than 10 GB are split into parts.',
  ),
];
const KEY = 'sk-confirm-0123';

describe('a judge of another family confirms each verified question', () => {
  let server: LoopbackServer;
  let dir: string;
  const ledger = () => new BudgetLedger(dir, { capUsd: 5, warnUsd: 0, configFile: 'test.yaml' });
  const open = (family = 'openai') =>
    openConfirmationJudge(
      {
        spec: { ...liveSpec('openai', 'gpt-5.4'), family },
        resultsDir: dir,
        ledger: ledger(),
        registry: {
          root: dir,
          env: { OPENAI_API_KEY: KEY },
          settings: { openai: loopbackSettings(server.url) },
        },
      },
      'offline',
    );
  const verify = async (): Promise<VerifyResult> => {
    const judge = await open();
    return verifyCandidates({
      candidates: CANDIDATES,
      quotes: new QuoteIndex(CHUNKS),
      retrievers: [bm25TopK(CHUNKS)],
      target: null,
      maxShare: null,
      judge: (v) => judge.confirm(v),
    });
  };
  let first: VerifyResult;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-confirm-'));
    server = await startOpenAIServer({
      apiKey: KEY,
      respond: (call) => {
        const text = call.messages.map((m) => m.text).join('\n');
        if (text.includes('refunded'))
          return {
            text: JSON.stringify({
              answerable: true,
              unambiguous: false,
              answer_correct: true,
              reason: 'refunded in full or in part is left open',
            }),
          };
        if (text.includes('exports')) return { text: 'I think this question is fine.' };
        return {
          text: JSON.stringify({ answerable: true, unambiguous: true, answer_correct: true, reason: 'ok' }),
        };
      },
    });
    first = await verify();
  });
  afterAll(() => server?.close());

  it('keeps a confirmed question with the judge check, and rejects one the judge finds ambiguous, with its reason', () => {
    expect(first.kept.map((v) => v.candidate.id)).toEqual([CANDIDATES[0]?.id]);
    expect(first.kept[0]?.checks.at(-1)).toBe('judge');
    const ambiguous = first.rejections.find((r) => r.candidate === CANDIDATES[1]?.id);
    expect(ambiguous).toMatchObject({ reason: 'judge-rejected' });
    expect(ambiguous?.message).toMatch(/not unambiguous: refunded in full or in part is left open/);
    const prose = first.rejections.find((r) => r.candidate === CANDIDATES[2]?.id);
    expect(prose?.message).toMatch(/reply is not a verdict: "I think this question is fine\."/);
  });

  it('asks each question once: a rerun reuses every cell, and the ledger equals the bill', async () => {
    expect(server.calls).toHaveLength(3);
    const again = await verify();
    expect(server.calls).toHaveLength(3);
    expect(again.kept.map((v) => v.candidate.id)).toEqual(first.kept.map((v) => v.candidate.id));
    const billed = server.billed.reduce((usd, b) => {
      const entry = findModel(server.provider, b.model);
      if (!entry) throw new Error(`no catalogue entry for ${b.model}`);
      return usd + costUsd(b, entry.prices, { batch: b.batch });
    }, 0);
    expect(ledger().summary().spentUsd).toBeCloseTo(billed, 12);
    expect(ledger().summary().byPayer).toMatchObject([{ provider: 'openai', role: 'judge', calls: 3 }]);
  });

  it("refuses a judge of the generator's family", async () => {
    await expect(
      openConfirmationJudge(
        {
          spec: { ...liveSpec('openai', 'gpt-5.4'), family: 'offline' },
          resultsDir: dir,
          ledger: ledger(),
          registry: {
            root: dir,
            env: { OPENAI_API_KEY: KEY },
            settings: { openai: loopbackSettings(server.url) },
          },
        },
        'offline',
      ),
    ).rejects.toThrow(UsageError);
  });
});
