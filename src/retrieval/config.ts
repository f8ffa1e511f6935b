/**
 * Retrieval's sections of the run config (composed by src/run/config/config.ts): the embedder a corpus is
 * indexed with, the hybrid embedder's fusion settings, and `retrieval.k`.
 */
import { z } from 'zod';
import type { FusionParameters } from './index.ts';

export const EMBEDDERS = ['use-lite', 'bge-m3', 'bm25', 'hybrid'] as const;

/** corpus.hybrid: how the hybrid embedder fuses BM25 with its dense model (recorded in the index manifest). */
export const HybridSettings = z.strictObject({
  dense: z.enum(['use-lite', 'bge-m3']).default('use-lite').describe('the dense half of the hybrid'),
  rrf_k: z.number().min(0).default(60).describe('reciprocal rank fusion constant k'),
  depth: z.number().int().min(1).default(50).describe('chunks each ranking contributes before fusion'),
  lexical_weight: z.number().min(0).default(1).describe('weight of the BM25 ranking'),
  dense_weight: z.number().min(0).default(1).describe('weight of the dense ranking'),
});
export type HybridSettings = z.infer<typeof HybridSettings>;

/**
 * corpus.bge_m3: which of the hub's ONNX weights bge-m3 runs on, alone or as a hybrid's dense half.
 * int8 (the hub's onnx/model_quantized.onnx) is faster and smaller but gives other vectors, so another
 * index checksum: it is chosen here, never taken silently for fp32 (recorded in the index manifest).
 */
export const BgeM3Settings = z.strictObject({
  weights: z
    .enum(['fp32', 'int8'])
    .default('fp32')
    .describe("bge-m3's ONNX weights: fp32 (default) or the hub's int8 (faster, other vectors and checksum)"),
});
export type BgeM3Settings = z.infer<typeof BgeM3Settings>;

/**
 * The embedder options a config's corpus section asks for: the fusion parameters of a hybrid, and
 * bge-m3's weights when bge-m3 runs (alone or as the hybrid's dense half) on other than fp32.
 */
export function corpusEmbedderOptions(corpus: {
  embedder: string;
  hybrid?: HybridSettings | undefined;
  bge_m3?: BgeM3Settings | undefined;
}): { hybrid?: FusionParameters; dtype?: 'q8' } {
  const h = corpus.embedder === 'hybrid' ? HybridSettings.parse(corpus.hybrid ?? {}) : null;
  const bgeM3 = corpus.embedder === 'bge-m3' || h?.dense === 'bge-m3';
  const int8 = bgeM3 && BgeM3Settings.parse(corpus.bge_m3 ?? {}).weights === 'int8';
  return {
    ...(h
      ? {
          hybrid: {
            dense: h.dense,
            rrfK: h.rrf_k,
            depth: h.depth,
            lexicalWeight: h.lexical_weight,
            denseWeight: h.dense_weight,
          },
        }
      : {}),
    ...(int8 ? { dtype: 'q8' as const } : {}),
  };
}

/**
 * The weights an index of this corpus section records for bge-m3 (`embedder.parameters.weights`), or
 * null when bge-m3 does not run.
 */
export function bgeM3Weights(corpus: {
  embedder: string;
  hybrid?: HybridSettings | undefined;
  bge_m3?: BgeM3Settings | undefined;
}): 'fp32' | 'int8' | null {
  const dense = corpus.embedder === 'hybrid' ? HybridSettings.parse(corpus.hybrid ?? {}).dense : null;
  if (corpus.embedder !== 'bge-m3' && dense !== 'bge-m3') return null;
  return BgeM3Settings.parse(corpus.bge_m3 ?? {}).weights;
}

/** retrieval: how many chunks each question is given. */
export const RetrievalSettings = z.strictObject({ k: z.number().int().min(1).default(5) }).default({ k: 5 });
