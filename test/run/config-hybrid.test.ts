import { describe, expect, it } from 'vitest';
import { corpusEmbedderOptions, HybridSettings } from '../../src/retrieval/config.ts';

describe('corpus.hybrid in a run config', () => {
  it('fills the fusion defaults and maps them to the embedder options', () => {
    expect(corpusEmbedderOptions({ embedder: 'hybrid' })).toEqual({
      hybrid: { dense: 'use-lite', rrfK: 60, depth: 50, lexicalWeight: 1, denseWeight: 1 },
    });
    expect(
      corpusEmbedderOptions({
        embedder: 'hybrid',
        hybrid: HybridSettings.parse({ dense: 'bge-m3', rrf_k: 20, depth: 100, lexical_weight: 2 }),
      }),
    ).toEqual({ hybrid: { dense: 'bge-m3', rrfK: 20, depth: 100, lexicalWeight: 2, denseWeight: 1 } });
  });

  it('gives other embedders no fusion options, even with a hybrid section', () => {
    expect(corpusEmbedderOptions({ embedder: 'bm25', hybrid: HybridSettings.parse({ rrf_k: 5 }) })).toEqual(
      {},
    );
  });

  it('rejects unknown keys and impossible values', () => {
    expect(HybridSettings.safeParse({ rrf: 60 }).success).toBe(false);
    expect(HybridSettings.safeParse({ depth: 0 }).success).toBe(false);
    expect(HybridSettings.safeParse({ dense: 'bm25' }).success).toBe(false);
    expect(HybridSettings.safeParse({ dense_weight: -1 }).success).toBe(false);
  });
});
