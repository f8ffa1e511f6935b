/**
 * Verification from outside the generator: a model on the strict OpenAI loopback server (through the
 * real SDK) replies with planted candidates over a small handbook, and every bad one is rejected with
 * its reason while every good one is kept: a fabricated quote, a paraphrased quote, a figure the quotes
 * do not print, a leaked answer, a multihop question from one chunk, an answerable out-of-domain
 * question, twenty copies of one question, a question in the wrong language and a quote across a chunk
 * boundary. The kept ones are questions `rge questions validate` passes.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkId } from '../../../src/corpus/chunk.ts';
import { detectLanguage } from '../../../src/corpus/formats/language.ts';
import type { Chunk } from '../../../src/corpus/schema.ts';
import type { GenerationTask } from '../../../src/questions/generate/generator.ts';
import { distinctCandidates } from '../../../src/questions/generate/run.ts';
import { toQuestions } from '../../../src/questions/generate/to-question.ts';
import { QuoteIndex } from '../../../src/questions/generate/verify/quote-index.ts';
import { type VerifyResult, verifyCandidates } from '../../../src/questions/generate/verify/verify.ts';
import { parseQuestionLines } from '../../../src/questions/load.ts';
import { validateQuestions } from '../../../src/questions/validate.ts';
import { openModelGenerator } from '../../../src/run/generate/index.ts';
import { bm25TopK } from '../../../src/run/generate/retrievers.ts';
import { BudgetLedger } from '../../../src/store/ledger.ts';
import { liveSpec, loopbackSettings } from '../../helpers/generation.ts';
import { type LoopbackServer, startOpenAIServer } from '../../loopback/index.ts';

const DOC = 'handbook.md';

function chunk(text: string, heading: string): Chunk {
  return {
    id: chunkId('handbook', null, text),
    company: 'handbook',
    fy: null,
    source: DOC,
    heading,
    headings: [heading],
    pages: [1, 1],
    tokens: 60,
    text,
  };
}

const RETENTION_1 = 'Deleted projects are kept in the recycle bin for 30 days.';
const RETENTION_2 = 'After that period they are purged from all backups within 14 days.';
const RETENTION_3 = "Audit logs are exported daily to the customer's own storage bucket.";
const CHUNKS = [
  chunk(
    'Pricing\nThe Team plan costs $25 per user per month and includes 50 GB of storage per workspace.',
    'Pricing',
  ),
  chunk(
    'Service levels\nEnterprise customers receive a 99.9% uptime commitment, backed by service credits of 10% of the monthly fee.',
    'Service levels',
  ),
  chunk(
    'Support\nSupport tickets are answered within 4 business hours on the Enterprise plan and within 2 business days on the Team plan.',
    'Support',
  ),
  chunk(
    'Limits\nThe API allows 600 requests per minute per workspace; bursts above the limit receive HTTP 429 responses.',
    'Limits',
  ),
  chunk(`Data retention\n${RETENTION_1}\n${RETENTION_2}`, 'Data retention'),
  chunk(`${RETENTION_2}\n${RETENTION_3}`, 'Data retention'),
];
const [PRICING, SLA, SUPPORT, LIMITS, RETENTION] = CHUNKS as [Chunk, Chunk, Chunk, Chunk, Chunk, Chunk];

const WIRE = { numeric_gold: [], false_premise: '', distractor_kind: 'none', absent_terms: [] as string[] };
const q = (text: string) => ({ document: DOC, text });
const direct = (text: string, answer: string, quotes: string[]) => ({
  category: 'grounded-direct',
  text,
  gold_answer: answer,
  gold_quotes: quotes.map(q),
  expected_behavior: 'answer',
  ...WIRE,
});

/** What the model writes for each scenario: the planted candidate, and whether it is good. */
const SCENARIOS: {
  name: string;
  chunks: Chunk[];
  category: string;
  reject: string | null;
  body: object;
  copies?: number;
}[] = [
  {
    name: 'good direct',
    chunks: [PRICING],
    category: 'grounded-direct',
    reject: null,
    body: direct('How much does the Team plan cost per user each month?', '$25 per user per month.', [
      'The Team plan costs $25 per user per month',
    ]),
  },
  {
    name: 'good direct (limits)',
    chunks: [LIMITS],
    category: 'grounded-direct',
    reject: null,
    body: direct('How many API requests per minute does a workspace get?', '600 requests per minute.', [
      'The API allows 600 requests per minute per workspace',
    ]),
  },
  {
    name: 'good multihop',
    chunks: [SLA, SUPPORT],
    category: 'grounded-multihop',
    reject: null,
    body: {
      ...direct(
        'What uptime does the Enterprise plan commit to, and how fast are its support tickets answered?',
        '99.9% uptime, and tickets within 4 business hours.',
        [
          'Enterprise customers receive a 99.9% uptime commitment',
          'Support tickets are answered within 4 business hours on the Enterprise plan',
        ],
      ),
      category: 'grounded-multihop',
    },
  },
  {
    name: 'good adversarial',
    chunks: [PRICING],
    category: 'adversarial',
    reject: null,
    body: {
      ...direct(
        'Why does the Team plan cost $40 per user per month?',
        'It does not: the Team plan costs $25 per user per month, not $40.',
        ['The Team plan costs $25 per user per month'],
      ),
      category: 'adversarial',
      expected_behavior: 'answer-with-caveat',
      false_premise: 'the Team plan costs $40 per user per month',
      distractor_kind: 'unit-or-period-near-duplicate',
    },
  },
  {
    name: 'good out-of-domain',
    chunks: [SUPPORT],
    category: 'out-of-domain',
    reject: null,
    body: {
      ...direct(
        'What is the parental leave policy for contractors?',
        'The handbook does not cover parental leave.',
        [],
      ),
      category: 'out-of-domain',
      expected_behavior: 'refuse',
      absent_terms: ['parental leave'],
    },
  },
  {
    name: 'twenty copies',
    chunks: [RETENTION],
    category: 'grounded-direct',
    reject: 'near-duplicate',
    copies: 20,
    body: direct('How long are deleted projects kept in the recycle bin?', '30 days.', [RETENTION_1]),
  },
  {
    name: 'fabricated quote',
    chunks: [LIMITS],
    category: 'grounded-direct',
    reject: 'quote-not-found',
    body: direct(
      'Do Enterprise workspaces have an API limit?',
      'No, the API is unlimited for Enterprise workspaces.',
      ['The API allows unlimited requests for Enterprise workspaces.'],
    ),
  },
  {
    name: 'paraphrased quote',
    chunks: [SLA],
    category: 'grounded-direct',
    reject: 'quote-not-found',
    body: direct('What uptime do Enterprise clients get?', '99.9% uptime.', [
      'Enterprise clients get a 99.9% uptime guarantee, with service credits',
    ]),
  },
  {
    name: 'figure absent from the quote',
    chunks: [SUPPORT],
    category: 'grounded-direct',
    reject: 'figure-not-in-quotes',
    body: direct('How quickly are Team plan tickets answered?', 'Within 8 business hours.', [
      'within 2 business days on the Team plan',
    ]),
  },
  {
    name: 'leaked answer',
    chunks: [LIMITS],
    category: 'grounded-direct',
    reject: 'answer-leaked',
    body: direct(
      'The API allows 600 requests per minute per workspace: what is the per-minute limit?',
      '600 requests per minute.',
      ['The API allows 600 requests per minute per workspace'],
    ),
  },
  {
    name: 'multihop from one chunk',
    chunks: [PRICING, SLA],
    category: 'grounded-multihop',
    reject: 'multihop-one-chunk',
    body: {
      ...direct(
        'What does the Team plan cost, and how much storage does it include?',
        '$25 per user per month and 50 GB per workspace.',
        ['The Team plan costs $25 per user per month', 'includes 50 GB of storage per workspace'],
      ),
      category: 'grounded-multihop',
    },
  },
  {
    name: 'answerable out-of-domain',
    chunks: [LIMITS],
    category: 'out-of-domain',
    reject: 'out-of-domain-answerable',
    body: {
      ...direct('Which HTTP status do requests above the API limit receive?', 'Not covered.', []),
      category: 'out-of-domain',
      expected_behavior: 'refuse',
      absent_terms: ['HTTP 429'],
    },
  },
  {
    name: 'wrong language',
    chunks: [PRICING],
    category: 'grounded-direct',
    reject: 'wrong-language',
    body: direct(
      'Combien coûte le forfait Team par utilisateur et par mois ?',
      '$25 par utilisateur et par mois.',
      ['The Team plan costs $25 per user per month'],
    ),
  },
  {
    name: 'quote across a chunk boundary',
    chunks: [RETENTION],
    category: 'grounded-direct',
    reject: 'quote-across-chunks',
    body: direct(
      'What happens to deleted projects and to audit logs?',
      'They are purged within 14 days; audit logs are exported daily.',
      [`${RETENTION_1} ${RETENTION_2} ${RETENTION_3}`],
    ),
  },
];

describe('planted candidates from a model, verified', () => {
  let server: LoopbackServer;
  let result: VerifyResult;
  let byScenario: Map<string, string[]>;

  beforeAll(async () => {
    server = await startOpenAIServer({
      apiKey: 'sk-planted-0123',
      respond: (call) => {
        const text = call.messages.map((m) => m.text).join('\n');
        const s = SCENARIOS.find((x) => text.includes(`scenario: ${x.name}.`));
        if (!s) return { text: 'no scenario' };
        return { text: JSON.stringify({ candidates: Array.from({ length: s.copies ?? 1 }, () => s.body) }) };
      },
    });
    const dir = await mkdtemp(join(tmpdir(), 'rge-planted-'));
    const generator = await openModelGenerator({
      spec: liveSpec('openai', 'gpt-5.4'),
      resultsDir: dir,
      seed: 'planted',
      ledger: new BudgetLedger(dir, { capUsd: 5, warnUsd: 0, configFile: 'test.yaml' }),
      registry: {
        root: dir,
        env: { OPENAI_API_KEY: 'sk-planted-0123' },
        settings: { openai: loopbackSettings(server.url) },
      },
    });
    // the scenario's name rides in the task's chunks' heading, which the prompt shows
    const tasks: GenerationTask[] = SCENARIOS.map((s) => ({
      id: `${s.category}:${DOC}:${s.name}`,
      category: s.category as GenerationTask['category'],
      document: DOC,
      chunks: s.chunks.map((c) => ({ ...c, headings: [`${c.heading} (scenario: ${s.name}.)`] })),
      count: s.copies ?? 1,
      language: 'en',
    }));
    const outcomes = await generator.generate(tasks);
    const { candidates, copies } = distinctCandidates(outcomes);
    result = await verifyCandidates({
      candidates,
      quotes: new QuoteIndex(CHUNKS),
      retrievers: [bm25TopK(CHUNKS)],
      language: { detect: detectLanguage, documents: new Map([[DOC, 'en']]) },
      target: null,
      maxShare: null,
    });
    result.rejections.push(...copies);
    byScenario = new Map(
      outcomes.map((o, i) => [(SCENARIOS[i] as { name: string }).name, o.candidates.map((c) => c.id)]),
    );
  });
  afterAll(() => server?.close());

  it('rejects every planted bad candidate with its reason', () => {
    for (const s of SCENARIOS.filter((x) => x.reject !== null && x.copies === undefined)) {
      const [id] = byScenario.get(s.name) ?? [];
      const rejection = result.rejections.find((r) => r.candidate === id);
      expect(rejection?.reason, s.name).toBe(s.reject);
    }
    const paraphrased = result.rejections.find(
      (r) => r.candidate === byScenario.get('paraphrased quote')?.[0],
    );
    expect(paraphrased?.message).toMatch(/paraphrased\?/);
  });

  it('keeps one of twenty copies, rejecting the other nineteen as duplicates', () => {
    const [id] = byScenario.get('twenty copies') ?? [];
    expect(result.kept.filter((v) => v.candidate.id === id)).toHaveLength(1);
    expect(result.rejections.filter((r) => r.candidate === id && r.reason === 'near-duplicate')).toHaveLength(
      19,
    );
  });

  it('keeps every good candidate, as questions the validator passes', () => {
    const good = SCENARIOS.filter((s) => s.reject === null).map((s) => byScenario.get(s.name)?.[0]);
    expect(result.kept.map((v) => v.candidate.id).filter((id) => good.includes(id))).toHaveLength(
      good.length,
    );
    expect(result.kept).toHaveLength(good.length + 1);
    const questions = toQuestions(result.kept, () => ({ company: 'handbook', fy: null }), null);
    const report = validateQuestions(parseQuestionLines(questions.map((x) => JSON.stringify(x)).join('\n')), {
      chunks: CHUNKS,
    });
    expect(report.issues).toEqual([]);
    expect(report.valid).toBe(good.length + 1);
    // the multihop question's two quotes resolve to two chunks; every quote is located
    const multihop = questions.find((x) => x.category === 'grounded-multihop');
    expect(multihop?.gold_chunk_ids).toEqual([SLA.id, SUPPORT.id]);
    expect(questions.flatMap((x) => x.gold_quote_locations ?? []).every((l) => l.resolved && l.section)).toBe(
      true,
    );
  });
});
