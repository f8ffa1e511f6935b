/**
 * Providers: one interface for every model call (types), the offline baseline subjects, replay of
 * recorded answers, and the registry that builds a subject's provider from the run config. The public
 * surface of the folder; the modules behind it are private. (The heuristic judges live in
 * `./heuristic/index.ts`.)
 */
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
  type CreateSubjectOptions,
  createSubjectProvider,
  isOfflineSubjectModel,
  LIVE_PROVIDERS,
  OFFLINE_SUBJECT_MODELS,
  type OfflineSubjectModel,
  SUBJECT_FAMILIES,
} from './registry.ts';
export { REPLAY_FAMILY, type ReplayKey, ReplayProvider, ReplayRecord } from './replay.ts';
export {
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
