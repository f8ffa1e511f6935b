/**
 * Retrieval's sections of the run config (composed by src/run/config.ts): the embedder a corpus is
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

/** The embedder options a config's corpus section asks for (the fusion parameters of a hybrid). */
export function corpusEmbedderOptions(corpus: { embedder: string; hybrid?: HybridSettings | undefined }): {
  hybrid?: FusionParameters;
} {
  if (corpus.embedder !== 'hybrid') return {};
  const h = HybridSettings.parse(corpus.hybrid ?? {});
  return {
    hybrid: {
      dense: h.dense,
      rrfK: h.rrf_k,
      depth: h.depth,
      lexicalWeight: h.lexical_weight,
      denseWeight: h.dense_weight,
    },
  };
}

/** retrieval: how many chunks each question is given. */
export const RetrievalSettings = z.strictObject({ k: z.number().int().min(1).default(5) }).default({ k: 5 });
