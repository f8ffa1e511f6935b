/**
 * The offline baselines on the 200 fixture questions, over a BM25 index of the fixture corpus (the test
 * run's bm25 fixture world, built once into a temporary folder: fast, and every gold chunk is retrieved
 * in the top 5, so the figures measure the baselines rather than retrieval). The extractive baseline must be clearly better than eager: it answers
 * grounded-direct questions with the gold value and abstains on out-of-domain ones; eager never abstains.
 * `npx tsx test/subject/baseline-figures.ts [index]` prints the same figures for any index.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ABSTENTION_PREFIX,
  EagerProvider,
  ExtractiveProvider,
  type Provider,
} from '../../src/providers/index.ts';
import { renderSubjectRequest } from '../../src/subject/index.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';
import {
  containsGold,
  formatFigures,
  measureBaseline,
  type RetrievedQuestion,
  retrieveAll,
} from './baseline-figures.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('offline baselines on the fixture questions', () => {
  let retrieved: RetrievedQuestion[];

  beforeAll(async () => {
    await worldOverrides('bm25');
    retrieved = await retrieveAll(worldPaths('bm25').index, join(root, 'fixtures/questions.jsonl'));
  }, 600_000);

  const answerAll = async (provider: Provider, temperature: number, runIndex: number) =>
    Promise.all(
      retrieved.map(async ({ question: q, chunks }) => {
        const request = renderSubjectRequest(
          { kind: 'subject', questionId: q.id, question: q.text, chunks },
          {
            model: 'm',
            parameters: { temperature },
            maxTokens: 512,
            cell: { questionId: q.id, runIndex, seed: 'rge-fixture-v1' },
          },
        );
        return { q, chunks, text: (await provider.complete(request)).text };
      }),
    );

  it('extractive answers most grounded-direct questions with the gold value and abstains on most out-of-domain ones; eager does clearly worse', async () => {
    expect(retrieved).toHaveLength(200);
    const extractive = await measureBaseline(new ExtractiveProvider(), retrieved);
    const eager = await measureBaseline(new EagerProvider(), retrieved);
    console.log(`${formatFigures(extractive)}\n${formatFigures(eager)}`);
    expect(extractive.groundedDirect.n).toBe(45);
    expect(extractive.outOfDomain.n).toBe(45);
    expect(extractive.groundedDirect.share).toBeGreaterThanOrEqual(0.9);
    expect(extractive.outOfDomain.share).toBeGreaterThanOrEqual(0.85);
    expect(extractive.adversarial.distracted).toBeLessThanOrEqual(3);
    expect(eager.outOfDomain.share).toBe(0);
    expect(extractive.groundedDirect.share).toBeGreaterThan(eager.groundedDirect.share + 0.2);
    expect(eager.adversarial.distracted).toBeGreaterThan(extractive.adversarial.distracted);
  });

  it('abstains on an out-of-domain fixture question, with its reason', async () => {
    const extractive = await measureBaseline(new ExtractiveProvider(), retrieved);
    // ood-005: "What was Bharti Airtel Limited's net debt at the end of FY23?"
    const text = extractive.answers.get('ood-005') ?? '';
    expect(text.startsWith(ABSTENTION_PREFIX)).toBe(true);
    expect(text).toContain('"debt"');
  });

  it('eager never abstains, and both baselines cite only chunk ids they were given, at t=0 and t=0.7', async () => {
    for (const provider of [new ExtractiveProvider(), new EagerProvider()])
      for (const [t, run] of [
        [0, 0],
        [0.7, 1],
      ] as const)
        for (const { chunks, text } of await answerAll(provider, t, run)) {
          const given = new Set(chunks.map((c) => c.id));
          for (const m of text.matchAll(/\[([^\]]+)\]/g)) expect(given).toContain(m[1]);
          if (provider.id === 'offline/eager') expect(text.startsWith(ABSTENTION_PREFIX)).toBe(false);
        }
  });

  it('at t=0.7 three runs differ on some questions and are identical when repeated', async () => {
    const provider = new ExtractiveProvider();
    const runs = await Promise.all([0, 1, 2].map((i) => answerAll(provider, 0.7, i)));
    const again = await answerAll(provider, 0.7, 2);
    expect(again.map((a) => a.text)).toEqual(runs[2]?.map((a) => a.text));
    const differing = retrieved.filter((_, i) => new Set(runs.map((r) => r[i]?.text)).size > 1).length;
    console.log(`extractive at t=0.7: ${differing}/200 questions answered differently across 3 runs`);
    expect(differing).toBeGreaterThan(20);
    // sampling varies the answer without ruining it: each run still answers most grounded-direct questions
    for (const run of runs) {
      const direct = run.filter((a) => a.q.category === 'grounded-direct');
      const correct = direct.filter((a) => containsGold(a.text, a.q)).length;
      expect(correct / direct.length).toBeGreaterThanOrEqual(0.8);
    }
  });
});
