/**
 * The model catalogue: every live model rge knows by API id, with its family, context window and prices
 * per million tokens, and where and when each price was read. A live subject or judge whose model is not
 * here must give its prices in the run config (`prices:`); rge never guesses what a call costs.
 *
 * Prices are USD per million tokens. `cacheWrite` is what a token written to a prompt cache costs
 * (Anthropic: 1.25x input for the 5-minute cache; OpenAI and Gemini charge nothing extra for their
 * automatic caching, so it equals `input`); `cacheRead` is a cache hit. `batchDiscount` is the fraction
 * taken off every price for a batch request (0.5 = half price). `standardTierMaxInput` is the prompt size
 * up to which these prices hold; above it the vendors charge a long-context rate that is not modelled, so
 * a larger prompt is refused rather than mispriced.
 *
 * The prices below were read on 2026-11-30 from stored copies of the pages named in `source` (this
 * machine has no internet); `source.via` names a secondary page where the vendor's own page was not the
 * copy read. Check them against the vendor pages before a published run and update `readOn`.
 */
import { z } from 'zod';
import { RgeError } from '../util/errors.ts';
import type { Usage } from './types.ts';

export const LIVE_PROVIDERS = ['anthropic', 'openai', 'gemini', 'openai-compatible'] as const;

/** The models of the offline providers: baseline subjects (`offline`) and judges (`heuristic`). */
export const OFFLINE_SUBJECT_MODELS = ['extractive', 'eager'] as const;
export const HEURISTIC_JUDGES = ['numeric', 'lexical'] as const;
export type LiveProvider = (typeof LIVE_PROVIDERS)[number];

export const ModelPrices = z
  .object({
    input: z.number().min(0),
    output: z.number().min(0),
    cache_read: z.number().min(0),
    cache_write: z.number().min(0),
    batch_discount: z.number().min(0).max(1),
  })
  .strict()
  .describe('USD per million tokens; batch_discount is the fraction off for batch requests (0.5 = half)');
export type ModelPrices = z.infer<typeof ModelPrices>;

export interface PriceSource {
  /** the page the prices come from (the vendor's) */
  page: string;
  /** the date the prices were read */
  readOn: string;
  /** the copy actually read, when it was not the vendor's page */
  via?: string;
}

export interface CatalogueEntry {
  provider: Exclude<LiveProvider, 'openai-compatible'>;
  /** the id the API takes */
  apiId: string;
  name: string;
  family: string;
  contextWindow: number;
  maxOutputTokens: number;
  prices: ModelPrices;
  /** prompt tokens up to which `prices` hold (the standard tier) */
  standardTierMaxInput: number;
  /** the shortest prefix the provider caches (shorter prompts are never cached) */
  minCacheTokens: number;
  source: PriceSource;
  /** what the model accepts: a reasoning model may reject temperature, and not every API has a seed */
  accepts: { temperature: boolean; seed: boolean };
  /**
   * The worst-case ratio of the vendor's token count to cl100k's for the same text, used to reserve
   * budget before a call (input tokens are counted with cl100k; the ledger settles to the real count).
   */
  tokenRatio: number;
  /** fixed request parameters this model needs (e.g. reasoning effort), sent with every call */
  requestDefaults?: Record<string, unknown>;
}

const ANTHROPIC_PRICING = 'https://platform.claude.com/docs/en/docs/about-claude/pricing';
const OPENAI_PRICING = 'https://openai.com/api/pricing/';
const GEMINI_PRICING = 'https://ai.google.dev/gemini-api/docs/pricing';
const READ_ON = '2026-11-30';

export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    provider: 'anthropic',
    apiId: 'claude-sonnet-4-6',
    name: 'Claude Sonnet 4.6',
    family: 'anthropic',
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    prices: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, batch_discount: 0.5 },
    standardTierMaxInput: 1_000_000,
    minCacheTokens: 1024,
    source: { page: ANTHROPIC_PRICING, readOn: READ_ON },
    accepts: { temperature: true, seed: false },
    tokenRatio: 1.35,
  },
  {
    provider: 'anthropic',
    apiId: 'claude-haiku-4-5',
    name: 'Claude Haiku 4.5',
    family: 'anthropic',
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    prices: { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25, batch_discount: 0.5 },
    standardTierMaxInput: 200_000,
    minCacheTokens: 4096,
    source: { page: ANTHROPIC_PRICING, readOn: READ_ON },
    accepts: { temperature: true, seed: false },
    tokenRatio: 1.35,
  },
  {
    provider: 'openai',
    apiId: 'gpt-5.4',
    name: 'GPT-5.4',
    family: 'openai',
    contextWindow: 1_050_000,
    maxOutputTokens: 128_000,
    prices: { input: 2.5, output: 15, cache_read: 0.25, cache_write: 2.5, batch_discount: 0.5 },
    standardTierMaxInput: 270_000,
    minCacheTokens: 1024,
    source: {
      page: OPENAI_PRICING,
      readOn: READ_ON,
      via: 'https://tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch (verified against the OpenAI page 2026-06-04)',
    },
    // GPT-5.x reason by default; with reasoning effort "none" they answer directly and take temperature.
    accepts: { temperature: true, seed: true },
    tokenRatio: 1.1,
    requestDefaults: { reasoning_effort: 'none' },
  },
  {
    provider: 'openai',
    apiId: 'gpt-5.4-mini',
    name: 'GPT-5.4 mini',
    family: 'openai',
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    prices: { input: 0.75, output: 4.5, cache_read: 0.075, cache_write: 0.75, batch_discount: 0.5 },
    standardTierMaxInput: 270_000,
    minCacheTokens: 1024,
    source: {
      page: OPENAI_PRICING,
      readOn: READ_ON,
      via: 'https://tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch (verified against the OpenAI page 2026-06-04)',
    },
    accepts: { temperature: true, seed: true },
    tokenRatio: 1.1,
    requestDefaults: { reasoning_effort: 'none' },
  },
  {
    provider: 'gemini',
    apiId: 'gemini-3.1-pro-preview',
    name: 'Gemini 3.1 Pro',
    family: 'google',
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    prices: { input: 2, output: 12, cache_read: 0.2, cache_write: 2, batch_discount: 0.5 },
    standardTierMaxInput: 200_000,
    minCacheTokens: 4096,
    source: {
      page: GEMINI_PRICING,
      readOn: READ_ON,
      via: 'https://inference.sh/apps/openrouter/gemini-3-1-pro-preview.md (updated 2026-10-11); limits from https://ai.google.dev/gemini-api/docs/models/gemini-3.1-pro-preview',
    },
    accepts: { temperature: true, seed: true },
    tokenRatio: 1.35,
    // Gemini 3 models always think; "low" keeps thinking (billed as output) small for a lookup task.
    requestDefaults: { thinkingLevel: 'low' },
  },
];

/** The catalogue entry of a model, by provider and API id. */
export function findModel(provider: string, apiId: string): CatalogueEntry | undefined {
  return CATALOGUE.find((m) => m.provider === provider && m.apiId === apiId);
}

/** What a priced model needs for costing, from the catalogue or from a config's own `prices`. */
export interface PricedModel {
  prices: ModelPrices;
  tokenRatio: number;
  standardTierMaxInput: number;
  minCacheTokens: number;
  /** where the prices come from, for the report */
  priceSource: string;
}

/**
 * The prices of a live model: the config's `prices` when given (they win, so a user can price a model
 * the catalogue does not know or correct a stale entry), else the catalogue's; else an error naming the
 * model and saying how to fix it.
 */
export function pricedModel(
  who: string,
  provider: LiveProvider,
  apiId: string,
  configPrices?: ModelPrices,
): PricedModel {
  if (configPrices)
    return {
      prices: configPrices,
      tokenRatio: findModel(provider, apiId)?.tokenRatio ?? 1.5,
      standardTierMaxInput: findModel(provider, apiId)?.standardTierMaxInput ?? Number.POSITIVE_INFINITY,
      minCacheTokens: findModel(provider, apiId)?.minCacheTokens ?? 1024,
      priceSource: 'run config',
    };
  const entry = findModel(provider, apiId);
  if (!entry) {
    const known = CATALOGUE.filter((m) => m.provider === provider).map((m) => m.apiId);
    throw new RgeError(
      `${who}: model ${apiId} of provider ${provider} is not in the model catalogue (src/providers/catalogue.ts)` +
        `${known.length > 0 ? `; known: ${known.join(', ')}` : ''}. Give its prices in the run config ` +
        '(prices: {input, output, cache_read, cache_write, batch_discount}, USD per million tokens)',
    );
  }
  return {
    prices: entry.prices,
    tokenRatio: entry.tokenRatio,
    standardTierMaxInput: entry.standardTierMaxInput,
    minCacheTokens: entry.minCacheTokens,
    priceSource: `${entry.source.page} (read ${entry.source.readOn})`,
  };
}

/** The price of a model that costs nothing (offline baselines, heuristic judges, replay). */
export const FREE: PricedModel = {
  prices: { input: 0, output: 0, cache_read: 0, cache_write: 0, batch_discount: 0 },
  tokenRatio: 1,
  standardTierMaxInput: Number.POSITIVE_INFINITY,
  minCacheTokens: Number.POSITIVE_INFINITY,
  priceSource: 'offline (free)',
};

/** USD of a call's usage at `prices`; a batch call gets the batch discount on every part. */
export function costUsd(usage: Usage, prices: ModelPrices, opts: { batch: boolean }): number {
  const perMillion =
    usage.inputTokens * prices.input +
    usage.outputTokens * prices.output +
    usage.cacheReadTokens * prices.cache_read +
    usage.cacheWriteTokens * prices.cache_write;
  return (perMillion / 1e6) * (opts.batch ? 1 - prices.batch_discount : 1);
}

/**
 * What the same call would have cost without prompt caching (every cached token at the input price): the
 * difference to `costUsd` is what caching saved (negative when cache writes cost more than they saved).
 */
export function uncachedCostUsd(usage: Usage, prices: ModelPrices, opts: { batch: boolean }): number {
  return costUsd(
    {
      inputTokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    },
    prices,
    opts,
  );
}

/**
 * The most a call can cost: `inputTokens` (cl100k) scaled by the model's token ratio and billed at the
 * dearer of input and cache write, plus `maxOutputTokens` of output. The ledger reserves this before the
 * call is sent, so the cap holds whatever the reply.
 */
export function worstCaseUsd(
  model: PricedModel,
  inputTokens: number,
  maxOutputTokens: number,
  opts: { batch: boolean },
): number {
  const input = Math.ceil(inputTokens * model.tokenRatio);
  const p = model.prices;
  const perMillion = input * Math.max(p.input, p.cache_write) + maxOutputTokens * p.output;
  return (perMillion / 1e6) * (opts.batch ? 1 - p.batch_discount : 1);
}
