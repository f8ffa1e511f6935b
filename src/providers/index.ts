/**
 * Providers: one interface for every model call (types), the offline baseline subjects, replay of
 * recorded answers, and the registry that builds a subject's provider from the run config. The public
 * surface of the folder; the modules behind it are private. (The heuristic judges live in
 * `./heuristic/index.ts`.)
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
export {
  createProvider,
  createSubjectProvider,
  isLiveProvider,
  isOfflineSubjectModel,
  LIVE_ADAPTER_VERSION,
  type ModelSpec,
  OFFLINE_SUBJECT_MODELS,
  type OfflineSubjectModel,
  type ProviderSettingsSpec,
  priceOf,
  type RegistryContext,
} from './registry.ts';
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
