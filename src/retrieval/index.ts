/**
 * Retrieval: embedders, the embedding cache, the persistent index with its checksum, and top-k
 * retrieval. The public surface of the stage; the modules behind it are private.
 */
export { BM25_B, BM25_K1, termCounts, tokenize } from './bm25.ts';
export { type BuildIndexOptions, type BuildIndexResult, buildIndex, passageText } from './build.ts';
export { DEFAULT_EMBEDDING_CACHE_DIR, EmbeddingCache } from './cache.ts';
export { createEmbedder } from './create-embedder.ts';
export {
  type DenseEmbedder,
  EMBEDDER_NAMES,
  type Embedder,
  type EmbedderName,
  type EmbedderOptions,
  type FusionParameters,
  type HybridEmbedder,
  isEmbedderName,
  type LexicalEmbedder,
  type TermCounts,
} from './embedder.ts';
export { type BgeM3Lookup, bgeM3MissingError, resolveBgeM3Dir } from './hub.ts';
export {
  DEFAULT_FUSION,
  fusionFromId,
  fusionFromRecord,
  fusionParameters,
  fusionRecord,
  reciprocalRankFusion,
} from './hybrid.ts';
export {
  BGE_M3_WEIGHTS,
  bgeM3WeightsOf,
  EmbedderParameters,
  IndexManifest,
  IndexProvenance,
} from './manifest.ts';
export {
  documentNames,
  type QuestionScope,
  questionFiscalYears,
  questionScope,
  type ScopeDocument,
} from './scope.ts';
export {
  type AppliedScope,
  DEFAULT_K,
  Index,
  type OpenIndexOptions,
  openIndex,
  type RetrievedChunk,
  type RetrieveOptions,
  readIndexManifest,
} from './store.ts';
export { loadUseLiteModel } from './use-lite.ts';
export { type VerifyResult, verifyIndex } from './verify.ts';
