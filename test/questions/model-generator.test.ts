/**
 * The question generator over a live model of the registry, against the strict loopback servers through
 * the real SDKs (in process): candidates read from a reply; a prose or malformed reply stored as a
 * failure and reported as a problem naming its task; a bad candidate dropped with its index and field,
 * the others kept; a rerun reusing every cell (the server asked nothing, the ledger unchanged); a cap
 * below one call refused before anything is sent; and the estimate within 10% of the server's bill.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Judge } from '../../src/judging/config.ts';
import type { ModelSpec } from '../../src/models/spec.ts';
import { costUsd, findModel } from '../../src/providers/catalogue.ts';
import type { ProviderSettings } from '../../src/providers/config.ts';
import type { GenerationTask, TaskOutcome } from '../../src/questions/generate/generator.ts';
import { readGeneratorPrompt } from '../../src/questions/generate/model-prompt.ts';
import { estimateGeneration, type ModelGenerator, openModelGenerator } from '../../src/run/generate/index.ts';
import { generationStore } from '../../src/store/generations.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { generationTasks, liveSpec, loopbackSettings, scriptedGeneration } from '../helpers/generation.ts';
import {
  type LoopbackCall,
  type LoopbackReply,
  type LoopbackServer,
  startAnthropicServer,
  startGeminiServer,
  startOpenAIServer,
} from '../loopback/index.ts';

const KEYS = { openai: 'sk-gen-openai-0123', anthropic: 'sk-ant-gen-0123', gemini: 'gemini-gen-0123' };
const ENV = { OPENAI_API_KEY: KEYS.openai, ANTHROPIC_API_KEY: KEYS.anthropic, GEMINI_API_KEY: KEYS.gemini };
type Vendor = keyof typeof KEYS;

const servers: LoopbackServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A server of a vendor whose replies `respond` writes. */
async function server(
  vendor: Vendor,
  respond: (call: LoopbackCall) => LoopbackReply,
): Promise<LoopbackServer> {
  const start = { openai: startOpenAIServer, anthropic: startAnthropicServer, gemini: startGeminiServer }[
    vendor
  ];
  const s = await start({ apiKey: KEYS[vendor], respond });
  servers.push(s);
  return s;
}

/** What a server billed, in USD at the catalogue's prices. */
function billedUsd(s: LoopbackServer): number {
  return s.billed.reduce((usd, b) => {
    const entry = findModel(s.provider, b.model);
    if (!entry) throw new Error(`no catalogue entry for ${s.provider}/${b.model}`);
    return usd + costUsd(b, entry.prices, { batch: b.batch });
  }, 0);
}

const ledgerOf = (dir: string, capUsd = 5) =>
  new BudgetLedger(dir, { capUsd, warnUsd: 0, configFile: 'test.yaml' });

async function generator(
  s: LoopbackServer,
  spec: ModelSpec,
  dir: string,
  capUsd = 5,
  over: Partial<ProviderSettings> = {},
): Promise<ModelGenerator> {
  return openModelGenerator({
    spec,
    resultsDir: dir,
    seed: 'gen-test',
    ledger: ledgerOf(dir, capUsd),
    registry: { root: dir, env: ENV, settings: { [s.provider]: loopbackSettings(s.url, over) } },
  });
}

const results = () => mkdtemp(join(tmpdir(), 'rge-gen-'));
const GPT = liveSpec('openai', 'gpt-5.4');

describe('a generator over a model of the registry', () => {
  let s: LoopbackServer;
  let dir: string;
  let tasks: GenerationTask[];
  let first: TaskOutcome[];

  beforeAll(async () => {
    s = await server('openai', scriptedGeneration);
    dir = await results();
    tasks = generationTasks(8, 2);
    first = await (await generator(s, GPT, dir)).generate(tasks);
  });

  it('asks each task once and reads its candidates, identified by body and chunks', () => {
    expect(s.calls).toHaveLength(8);
    expect(first.map((o) => o.problem)).toEqual(tasks.map(() => null));
    expect(first.every((o) => o.candidates.length === 2 && !o.reused && o.costUsd > 0)).toBe(true);
    const multihop = first.find((o) => o.task.category === 'grounded-multihop');
    const [c] = multihop?.candidates ?? [];
    expect(c?.id).toMatch(/^cand-[0-9a-f]{12}$/);
    expect(c?.source_chunk_ids).toEqual(multihop?.task.chunks.map((x) => x.id));
    expect(c?.body.numeric_gold[0]?.derivation?.op).toBe('sum');
    expect(c?.generator).toMatchObject({ id: 'openai/gpt-5.4', family: 'openai', kind: 'model' });
    const ood = first.find((o) => o.task.category === 'out-of-domain')?.candidates[0]?.body;
    expect(ood?.absent_terms).toHaveLength(1);
    expect(ood?.false_premise).toBeUndefined();
    // only the task's chunks are sent, with their document and heading; the schema is asked for
    const call = s.calls[0];
    expect(call?.messages[0]?.text).toContain('document="acme-annual-report-2024.pdf"');
    expect(call?.messages[0]?.text).toContain('heading="Management Discussion and Analysis > Financial');
    expect(call?.schema).not.toBeNull();
  });

  it('settles every call in the ledger, under the role generator, equal to the bill', () => {
    const ledger = ledgerOf(dir).summary();
    expect(ledger.spentUsd).toBeCloseTo(billedUsd(s), 12);
    expect(ledger.spentUsd).toBeCloseTo(
      first.reduce((n, o) => n + o.costUsd, 0),
      12,
    );
    expect(ledger.open).toEqual([]);
    expect(ledger.byPayer).toMatchObject([
      { provider: 'openai', model: 'gpt-5.4', role: 'generator', calls: 8 },
    ]);
  });

  it('a rerun reuses every cell: nothing is asked, nothing paid, the same candidates', async () => {
    const spent = ledgerOf(dir).summary().spentUsd;
    const g = await generator(s, GPT, dir);
    expect(g.estimate(tasks)).toMatchObject({ calls: 0, usd: 0, worstUsd: 0 });
    expect(g.estimate(generationTasks(9, 2)).calls).toBe(1);
    const again = await g.generate(tasks);
    expect(s.calls).toHaveLength(8);
    expect(again.every((o) => o.reused && o.costUsd === 0)).toBe(true);
    expect(again.map((o) => o.candidates)).toEqual(first.map((o) => o.candidates));
    expect(ledgerOf(dir).summary().spentUsd).toBe(spent);
  });

  it('a new seed is a new cell', async () => {
    const other = await openModelGenerator({
      spec: GPT,
      resultsDir: dir,
      seed: 'another-seed',
      ledger: ledgerOf(dir),
      registry: { root: dir, env: ENV, settings: { openai: loopbackSettings(s.url) } },
    });
    const [outcome] = await other.generate(tasks.slice(0, 1));
    expect(outcome?.reused).toBe(false);
    expect(s.calls).toHaveLength(9);
  });

  it('the estimate comes within 10% of what the server billed for the same tasks', () => {
    const bill = s.billed.slice(0, 8);
    const billedOut = bill.reduce((n, b) => n + b.outputTokens, 0);
    const billedIn = bill.reduce((n, b) => n + b.inputTokens, 0);
    const usd = bill.reduce(
      (n, b) => n + costUsd(b, findModel('openai', 'gpt-5.4')?.prices ?? ({} as never), { batch: false }),
      0,
    );
    const estimate = estimateGeneration(tasks, GPT);
    expect(estimate.calls).toBe(8);
    expect(Math.abs(estimate.usd / usd - 1)).toBeLessThan(0.1);
    expect(Math.abs(estimate.outputTokens / billedOut - 1)).toBeLessThan(0.1);
    expect(estimate.inputTokens).toBeGreaterThanOrEqual(billedIn);
    expect(estimate.worstUsd).toBeGreaterThan(estimate.usd);
    if (process.env.RGE_GENERATION_FIGURES === '1')
      process.stderr.write(
        `estimate $${estimate.usd.toFixed(6)} (in ${estimate.inputTokens}, out ${estimate.outputTokens}); ` +
          `billed $${usd.toFixed(6)} (in ${billedIn}, out ${billedOut}); worst $${estimate.worstUsd.toFixed(6)}\n`,
      );
  });
});

describe('replies that give no candidates are data', () => {
  it('a prose reply and a malformed JSON reply: stored with their text, reported naming their task, not asked again', async () => {
    const tasks = generationTasks(3, 1);
    const replies: Record<string, string> = {
      [tasks[0]?.chunks[0]?.id as string]:
        'Here are some great questions about the report: what was revenue?',
      [tasks[1]?.chunks[0]?.id as string]: '{"candidates": [{"category": "grounded-multihop", "text": ',
    };
    const s = await server('openai', (call) => {
      const id = /<chunk id="([^"]+)"/.exec(call.messages[0]?.text ?? '')?.[1] ?? '';
      return replies[id] !== undefined ? { text: replies[id] } : scriptedGeneration(call);
    });
    const dir = await results();
    const outcomes = await (await generator(s, GPT, dir)).generate(tasks);
    const [prose, malformed, fine] = outcomes;
    expect(prose?.problem?.task).toBe(tasks[0]?.id);
    expect(prose?.problem?.message).toMatch(/^prose: the reply is prose, not JSON: "Here are some/);
    expect(malformed?.problem?.task).toBe(tasks[1]?.id);
    expect(malformed?.problem?.message).toMatch(/^malformed-json: the reply is malformed JSON/);
    expect(fine?.problem).toBeNull();
    expect(fine?.candidates).toHaveLength(1);
    const stored = generationStore(dir, 'openai', 'gpt-5.4').records();
    expect(stored.map((r) => r.failure?.kind ?? null).sort()).toEqual(
      ['malformed-json', 'prose', null].sort(),
    );
    expect(stored.find((r) => r.failure?.kind === 'prose')?.text).toBe(
      replies[tasks[0]?.chunks[0]?.id as string],
    );
    // paid for, so settled; and never asked again
    expect(ledgerOf(dir).summary().spentUsd).toBeCloseTo(billedUsd(s), 12);
    const again = await (await generator(s, GPT, dir)).generate(tasks);
    expect(again.map((o) => o.reused)).toEqual([true, true, true]);
    expect(again[0]?.problem).toEqual(prose?.problem);
    expect(s.calls).toHaveLength(3);
  });

  it('a candidate that breaks the schema is dropped, naming its index and field; the others are kept', async () => {
    const s = await server('openai', (call) => {
      const reply = JSON.parse(scriptedGeneration(call).text) as { candidates: Record<string, unknown>[] };
      delete reply.candidates[1]?.gold_answer;
      if (reply.candidates[2]) reply.candidates[2].category = 'adversarial';
      return { text: JSON.stringify(reply) };
    });
    const dir = await results();
    const [outcome] = await (await generator(s, GPT, dir)).generate(generationTasks(1, 3));
    expect(outcome?.candidates).toHaveLength(1);
    expect(outcome?.problem?.message).toBe(
      "candidate 2: gold_answer: Invalid input: expected string, received undefined; candidate 3: category: adversarial, not the task's grounded-direct",
    );
  });

  it('a refusal is a failure of its own kind', async () => {
    const s = await server('openai', () => ({ text: 'I cannot help with that.', stop: 'refusal' }));
    const [outcome] = await (await generator(s, GPT, await results())).generate(generationTasks(1, 1));
    expect(outcome?.problem?.message).toMatch(/^refusal: the model declined/);
  });
});

describe('the cap', () => {
  it('a cap below the worst case of one call is refused before anything is sent', async () => {
    const s = await server('openai', scriptedGeneration);
    const dir = await results();
    const tasks = generationTasks(2, 2);
    const worst = estimateGeneration(tasks, GPT).maxCallWorstUsd;
    const g = await generator(s, GPT, dir, 0.001);
    await expect(g.generate(tasks)).rejects.toThrow(
      `the cap $0.0010 is below the worst case of one generation call ($${worst.toFixed(4)}`,
    );
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect(ledgerOf(dir).summary().spentUsd).toBe(0);
  });

  it('a cap that pays for some calls: the rest are problems saying so, asked by a rerun under a larger cap', async () => {
    const s = await server('openai', scriptedGeneration);
    const dir = await results();
    const tasks = generationTasks(4, 1);
    const worst = estimateGeneration(tasks, GPT).maxCallWorstUsd;
    const g = await generator(s, GPT, dir, worst * 1.5, { concurrency: 1 });
    const outcomes = await g.generate(tasks);
    const refused = outcomes.filter((o) => o.problem !== null);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.problem?.message).toMatch(/^budget cap of \$[\d.]+ reached/);
    const asked = s.calls.length;
    const rest = await (await generator(s, GPT, dir, 5)).generate(tasks);
    expect(rest.every((o) => o.problem === null)).toBe(true);
    expect(s.calls.length - asked).toBe(refused.length);
  });
});

describe('every vendor', () => {
  for (const [vendor, model] of [
    ['anthropic', 'claude-sonnet-4-6'],
    ['gemini', 'gemini-3.1-pro-preview'],
  ] as const)
    it(`${vendor}: candidates read, the ledger equal to the bill, a rerun reused`, async () => {
      const s = await server(vendor, scriptedGeneration);
      const dir = await results();
      const spec = liveSpec(vendor, model);
      const tasks = generationTasks(4, 2);
      const outcomes = await (await generator(s, spec, dir)).generate(tasks);
      expect(outcomes.map((o) => o.problem)).toEqual(tasks.map(() => null));
      expect(outcomes.flatMap((o) => o.candidates)).toHaveLength(8);
      expect(ledgerOf(dir).summary().spentUsd).toBeCloseTo(billedUsd(s), 12);
      const again = await (await generator(s, spec, dir)).generate(tasks);
      expect(again.every((o) => o.reused)).toBe(true);
      expect(s.calls).toHaveLength(4);
    });
});

describe('an OpenAI-compatible server', () => {
  it('is its own generator: its endpoint in every cell, its key from its variable, its prices from its entry', async () => {
    const s = await server('openai', scriptedGeneration);
    const dir = await results();
    const spec = Judge.parse({
      id: 'local',
      provider: 'openai-compatible',
      model: 'qwen3-32b',
      family: 'qwen',
      base_url: s.url,
      api_key_env: 'LOCAL_LLM_KEY',
      prices: { input: 0.5, output: 1.5, cache_read: 0.05, cache_write: 0.5, batch_discount: 0 },
    });
    const g = await openModelGenerator({
      spec,
      resultsDir: dir,
      seed: 'gen-test',
      ledger: ledgerOf(dir),
      registry: { root: dir, env: { LOCAL_LLM_KEY: KEYS.openai }, settings: {} },
    });
    const outcomes = await g.generate(generationTasks(2, 1));
    expect(outcomes.map((o) => o.problem)).toEqual([null, null]);
    expect(g.ref.id).toBe('openai-compatible/qwen3-32b');
    const [record] = generationStore(dir, 'openai-compatible', 'qwen3-32b').records();
    expect(record?.identity.endpoint).toBe(s.url);
    expect(ledgerOf(dir).summary().byPayer).toMatchObject([
      { provider: 'openai-compatible', model: 'qwen3-32b', role: 'generator', calls: 2 },
    ]);
  });
});

describe('the prompt', () => {
  it('its system text is below 1,024 tokens (no model caches it: the estimate counts no cache)', () => {
    expect(encode(readGeneratorPrompt().system).length).toBeLessThan(1024);
  });
});
