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
 * The prices below were read on 2026-12-01 from stored copies of public pages (this machine has no
 * internet): `source.read` is the copy actually read and `source.grade` says whether it is the vendor's
 * own page (`vendor`) or a secondary one (`secondary`: a price aggregator or blog that quotes the vendor).
 * Prices resting on secondary sources: GPT-5.4 mini (all), Gemini 3.1 Pro (all; its limits are the
 * vendor's), the batch discount of GPT-5.4, and the flat long-context rate of Sonnet 4.6. Check them
 * against the vendor pages before a published run and update `readOn`.
 */
import { z } from 'zod';
import { RgeError } from '../util/errors.ts';
import type { ReasoningEffort, RequestParameters, ThinkingLevel, Usage } from './types.ts';

export const LIVE_PROVIDERS = ['anthropic', 'openai', 'gemini', 'openai-compatible'] as const;

/** The models of the offline providers: baseline subjects (`offline`) and judges (`heuristic`). */
export const OFFLINE_SUBJECT_MODELS = ['extractive', 'eager'] as const;
export const HEURISTIC_JUDGES = ['numeric', 'lexical'] as const;
export type LiveProvider = (typeof LIVE_PROVIDERS)[number];

export const ModelPrices = z
  .strictObject({
    input: z.number().min(0),
    output: z.number().min(0),
    cache_read: z.number().min(0),
    cache_write: z.number().min(0),
    batch_discount: z.number().min(0).max(1),
  })
  .describe('USD per million tokens; batch_discount is the fraction off for batch requests (0.5 = half)');
export type ModelPrices = z.infer<typeof ModelPrices>;

export interface PriceSource {
  /** the vendor's page the prices belong to */
  page: string;
  /** the date the prices were read */
  readOn: string;
  /** the copy actually read (the vendor's page itself, a localized copy of it, or a secondary page) */
  read: string;
  /** `vendor`: read on the vendor's own pages; `secondary`: read on a page that quotes the vendor */
  grade: 'vendor' | 'secondary';
  /** what of the entry rests on which source, where it is mixed */
  note?: string;
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
  /** what the model's API accepts and what rge sends it (see `ModelContract`) */
  contract: ModelContract;
  /**
   * The worst-case ratio of the vendor's token count to cl100k's for the same text, used to reserve
   * budget before a call (input tokens are counted with cl100k; the ledger settles to the real count).
   */
  tokenRatio: number;
}

/** The reasoning control a model takes: OpenAI `reasoning_effort` or Gemini `thinkingLevel`, and its values. */
export type ReasoningControl =
  | { field: 'reasoning_effort'; values: readonly ReasoningEffort[] }
  | { field: 'thinking_level'; values: readonly ThinkingLevel[] };

/**
 * A model's sampling contract: which sampling and reasoning parameters its API accepts (for the API
 * version rge's pinned SDK speaks), what rge sends when the run config says nothing, and why. The run
 * config is checked against it before any call (`contract.ts`), and the report states what was sent.
 */
export interface ModelContract {
  /** the API version the contract holds for (Anthropic: the `anthropic-version` the pinned SDK sends) */
  apiVersion: string | null;
  /** the sampling parameters the API accepts for this model */
  sampling: { temperature: boolean; top_p: boolean };
  /** sampling parameters are accepted only at this reasoning setting (GPT-5.x: `reasoning_effort: none`) */
  samplingOnlyWith?: { reasoning_effort: ReasoningEffort };
  /**
   * Does the API take a sampling seed. Where it does, rge sends a subject's cell seed (never a judge's:
   * a verdict request has none) and claims no determinism from it: OpenAI's `seed` is deprecated in the
   * pinned `openai` types ("Determinism is not guaranteed"), Gemini's is best effort. What a seed buys
   * is a rerun that sends the same request; the spread of a question's runs is measured, not assumed 0.
   */
  seed: boolean;
  /** the reasoning control rge may set; null when rge sets none for this model */
  reasoning: ReasoningControl | null;
  /** what rge sends when the config states nothing (the config's statements win, within the contract) */
  defaults: RequestParameters;
  /**
   * Output tokens added to the limit for thinking the provider counts as output (Gemini 3 counts
   * thinking tokens toward `maxOutputTokens`, so 1,024 for the answer alone could cut it); 0 otherwise.
   */
  thinkingAllowanceTokens: number;
  /** why the defaults are what they are (one sentence, for the README and the report) */
  note: string;
  /** where the contract was read */
  source: string;
}

/**
 * Anthropic under API version 2026-10-21, which `@anthropic-ai/sdk` 1.x sends on every request: the
 * Messages API (sync, batch items and token counting) refuses `temperature`, `top_p` and `top_k` with a
 * 400, even at their default values; the SDK's `MessageCreateParamsBase` no longer has them. rge sets
 * no thinking or effort: Claude answers at its defaults.
 */
export const ANTHROPIC_API_VERSION = '2026-10-21';
const ANTHROPIC_CONTRACT: ModelContract = {
  apiVersion: ANTHROPIC_API_VERSION,
  sampling: { temperature: false, top_p: false },
  seed: false,
  reasoning: null,
  defaults: {},
  thinkingAllowanceTokens: 0,
  note: 'API version 2026-10-21 refuses temperature, top_p and top_k (even at their defaults), so none is sent and Claude samples at its default',
  source:
    'https://platform.claude.com/docs/en/api/migration-2026-10-21 (Migrate to API version 2026-10-21); @anthropic-ai/sdk 1.16.0 MessageCreateParamsBase',
};

/**
 * GPT-5.x on Chat Completions: a reasoning model that takes `reasoning_effort`; `temperature` and
 * `top_p` only with `reasoning_effort: none` (then it answers without reasoning), `max_completion_tokens`
 * never `max_tokens`, and a `seed`, which the pinned `openai` types mark deprecated and which promises
 * a best effort at most. rge sends effort none with temperature 0, the methodology's setting, and a
 * subject's cell seed; neither makes a reply repeat, and rge does not claim they do.
 */
const GPT5_CONTRACT: ModelContract = {
  apiVersion: null,
  sampling: { temperature: true, top_p: true },
  samplingOnlyWith: { reasoning_effort: 'none' },
  seed: true,
  reasoning: { field: 'reasoning_effort', values: ['none', 'low', 'medium', 'high', 'xhigh'] },
  defaults: { reasoning_effort: 'none', temperature: 0, seed: true },
  thinkingAllowanceTokens: 0,
  note: "reasoning_effort none, the one setting at which GPT-5.x accept temperature, so the methodology's temperature 0 is sent, with a subject's cell seed (deprecated in the openai types, best effort: no determinism is claimed)",
  source: 'https://platform.openai.com/docs/guides/latest-model (GPT-5.x parameter compatibility)',
};

/**
 * Gemini 3 always thinks (`thinkingLevel`; Pro takes low, medium and high) and counts thinking tokens
 * toward `maxOutputTokens`. It accepts `temperature`, but Google's Gemini 3 guide recommends leaving it at
 * its default 1.0 and warns that lower values can cause looping or degraded performance; rge follows the
 * vendor (no temperature sent, a subject's cell seed sent, which Gemini honours as a best effort only)
 * and reports the deviation from temperature 0.
 */
const GEMINI3_CONTRACT: ModelContract = {
  apiVersion: 'v1beta',
  sampling: { temperature: true, top_p: true },
  seed: true,
  reasoning: { field: 'thinking_level', values: ['low', 'medium', 'high'] },
  defaults: { thinking_level: 'low', seed: true },
  thinkingAllowanceTokens: 2048,
  note: "Google's Gemini 3 guide advises keeping temperature at its default 1.0 (lower values can loop), so none is sent; thinking level low, with 2,048 output tokens added for thinking, which Gemini counts as output",
  source: 'https://ai.google.dev/gemini-api/docs/gemini-3 (temperature, thinking level)',
};

const ANTHROPIC_PRICING = 'https://platform.claude.com/docs/en/about-claude/pricing';
/** Where Anthropic states each model's minimum cacheable prompt length. */
const ANTHROPIC_CACHE_LIMITS =
  'https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations';
/**
 * How the cache limits were read: this machine has no internet, and the stored copies of the vendor's
 * page that could be searched give only its opening, so the section was read where public repositories
 * quote it: verbatim as of 2026-07-28 (a test fixture), in a fact check against the page of 2026-10-01
 * (its tiers listed, the Haiku 4.5 line verbatim) and in an undated full copy from May to July 2026.
 */
const ANTHROPIC_CACHE_READ =
  'read 2026-12-03 where public repositories quote that list: verbatim as of 2026-07-28, in a fact check of 2026-10-01 and in an undated full copy of the page from mid-2026; not on the live page';
const OPENAI_PRICING = 'https://openai.com/api/pricing/';
const GEMINI_PRICING = 'https://ai.google.dev/gemini-api/docs/pricing';
const READ_ON = '2026-12-01';

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
    source: {
      page: ANTHROPIC_PRICING,
      readOn: READ_ON,
      read: "https://platform.claude.com/docs/zh-CN/about-claude/pricing (the vendor's localized copy: $3 input, $3.75 5-minute cache write, $0.30 cache hit, $15 output) and https://platform.claude.com/docs/en/models/sonnet-4-6/overview (1M context, 128K output)",
      grade: 'vendor',
      note:
        'the flat rate above 200K input tokens (no long-context premium since 2026-03-13) rests on secondary sources (agentmastered.com, deploybase.ai); the 50% batch discount is on the vendor model pages; ' +
        `cache minimum: 1,024 tokens (${ANTHROPIC_CACHE_LIMITS}: "1,024 tokens for Claude Opus 4.8, Claude Sonnet 5, Claude Sonnet 4.6, Claude Sonnet 4.5, ..."; ${ANTHROPIC_CACHE_READ}). ` +
        'The page gave 2,048 for Sonnet 4.6 for a time in spring 2026 (a copy read 2026-04-14), until its revision of 2026-05-15 lowered it to 1,024 (a docs-change digest of that day), the likely origin of the 2,048 reported; in February 2026, when the page said 1,024, a user saw no caching below about 2,048 tokens on claude-sonnet-4-6 (github.com/anthropics/anthropic-sdk-python/issues/1194). rge uses the figure for the expected cost only; the worst case a call reserves does not depend on it',
    },
    contract: ANTHROPIC_CONTRACT,
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
    source: {
      page: ANTHROPIC_PRICING,
      readOn: READ_ON,
      read: 'https://platform.claude.com/docs/zh-CN/about-claude/pricing and https://platform.claude.com/docs/en/models/haiku-4-5/overview (model id claude-haiku-4-5-20251001, whose alias this is; 200K context, 64K output)',
      grade: 'vendor',
      note: `cache minimum: 4,096 tokens (${ANTHROPIC_CACHE_LIMITS}: "4,096 tokens for Claude Haiku 4.5"; ${ANTHROPIC_CACHE_READ}); the page's figure for Haiku 4.5 in every copy read, from February to October 2026`,
    },
    contract: ANTHROPIC_CONTRACT,
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
    standardTierMaxInput: 272_000,
    minCacheTokens: 1024,
    source: {
      page: 'https://developers.openai.com/api/docs/models/gpt-5.4',
      readOn: READ_ON,
      read: 'https://developers.openai.com/api/docs/models/gpt-5.4 ($2.50 input, $0.25 cached input, $15 output; 1,050,000 context, 128,000 output; above 272K input tokens 2x input and 1.5x output)',
      grade: 'vendor',
      note: 'the 50% batch discount rests on secondary pages quoting openai.com/api/pricing (benchlm.ai)',
    },
    contract: GPT5_CONTRACT,
    tokenRatio: 1.1,
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
      read: 'https://tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch and benchlm.ai, quoting openai.com/api/pricing; 400K context and 128K output from the Vercel AI Gateway and OpenRouter model pages',
      grade: 'secondary',
    },
    contract: GPT5_CONTRACT,
    tokenRatio: 1.1,
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
      read: "https://inference.sh/apps/openrouter/gemini-3-1-pro-preview.md and blog.laozhang.ai (rechecked against Google's pricing page 2026-03-28): $2 input and $12 output up to 200K, $0.20 cache read, batch half price",
      grade: 'secondary',
      note: "the limits (1,048,576 input, 65,536 output) and the model id are the vendor's: https://ai.google.dev/gemini-api/docs/models/gemini-3.1-pro-preview",
    },
    contract: GEMINI3_CONTRACT,
    tokenRatio: 1.35,
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
    priceSource: `${entry.source.page} (read ${entry.source.readOn}${entry.source.grade === 'secondary' ? ', from a secondary source' : ''})`,
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
