/**
 * Providers: one interface for every model call (types), the live adapters behind `MeteredProvider`,
 * the offline baseline subjects and replay of recorded answers: model calls only. The public surface of
 * the folder; the modules behind it are private. (The registry that builds a subject's or judge's
 * provider from the run config is `src/models/registry.ts`; the heuristic judges are
 * `src/judging/heuristic/`.)
 */

export {
  CATALOGUE,
  type CatalogueEntry,
  costUsd,
  findModel,
  LIVE_PROVIDERS,
  type LiveProvider,
  ModelPrices,
  type PricedModel,
  pricedModel,
  uncachedCostUsd,
  worstCaseUsd,
} from './catalogue.ts';
export { apiKeyFor, environment, redactSecrets, registerSecret } from './credentials.ts';
export type {
  BatchAdapter,
  BatchItem,
  BatchItemResult,
  BatchProgress,
  LiveAdapter,
  RawReply,
} from './live/adapter.ts';
export { CallError } from './live/adapter.ts';
export {
  DEFAULT_LIMITS,
  MeteredProvider,
  type Payer,
  ProviderLimiter,
  type RateLimits,
  requestTokens,
  type Spender,
} from './metered.ts';
export { EAGER_FAMILY, EXTRACTIVE_FAMILY } from './offline/common.ts';
export { EagerProvider, eagerAnswer } from './offline/eager.ts';
export {
  ABSTAIN_THRESHOLD,
  ABSTENTION_PREFIX,
  COVERAGE_FLOOR,
  ExtractiveProvider,
  extractiveAnswer,
} from './offline/extractive.ts';
export { REPLAY_FAMILY, type ReplayKey, ReplayProvider, ReplayRecord } from './replay.ts';
export {
  addUsage,
  CallCharge,
  type CallOptions,
  ChatMessage,
  type ContextChunk,
  type JudgeInput,
  type ModelReply,
  type ModelRequest,
  type Provider,
  type SubjectInput,
  Usage,
  ZERO_USAGE,
} from './types.ts';
