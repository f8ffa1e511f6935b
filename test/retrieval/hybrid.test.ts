import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBm25Embedder } from '../../src/retrieval/bm25.ts';
import type { HybridEmbedder } from '../../src/retrieval/embedder.ts';
import { fusionFromId, hybridChecksum, hybridEmbedderId, hybridPartIds } from '../../src/retrieval/hybrid.ts';
import {
  buildIndex,
  DEFAULT_FUSION,
  type DenseEmbedder,
  type FusionParameters,
  fusionFromRecord,
  fusionParameters,
  fusionRecord,
  openIndex,
  reciprocalRankFusion,
  verifyIndex,
} from '../../src/retrieval/index.ts';
import { l2Normalise } from '../../src/retrieval/vectors.ts';
import { makeChunk } from './chunks.ts';

describe('reciprocal rank fusion', () => {
  it('sums weight / (k + rank) over the rankings, by hand', () => {
    const fused = reciprocalRankFusion(
      [
        { ids: ['a', 'b', 'c'], weight: 1 },
        { ids: ['c', 'a', 'd'], weight: 1 },
      ],
      { rrfK: 60, depth: 10 },
    );
    // a: 1/61 + 1/62; c: 1/63 + 1/61; b: 1/62; d: 1/63
    expect(fused.map(([id]) => id)).toEqual(['a', 'c', 'b', 'd']);
    expect(fused[0]?.[1]).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[1]?.[1]).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[3]?.[1]).toBeCloseTo(1 / 63, 12);
  });

  it('weights the rankings and cuts each to the depth', () => {
    const rankings = [
      { ids: ['a', 'b'], weight: 2 },
      { ids: ['b', 'c', 'a'], weight: 1 },
    ];
    const fused = reciprocalRankFusion(rankings, { rrfK: 0, depth: 2 });
    // a: 2/1 (third in the second ranking, beyond depth 2); b: 2/2 + 1/1; c: 1/2
    expect(fused).toEqual([
      ['a', 2],
      ['b', 2],
      ['c', 0.5],
    ]);
  });

  it('breaks equal scores by id and ignores a ranking of weight 0 and repeated ids', () => {
    const fused = reciprocalRankFusion(
      [
        { ids: ['z', 'y', 'y'], weight: 1 },
        { ids: ['y', 'z'], weight: 1 },
        { ids: ['x'], weight: 0 },
      ],
      { rrfK: 1, depth: 5 },
    );
    expect(fused.map(([id]) => id)).toEqual(['y', 'z']);
  });
});

describe('fusion parameters', () => {
  it('defaults to use-lite, k 60, depth 50, equal weights', () => {
    expect(fusionParameters()).toEqual({
      dense: 'use-lite',
      rrfK: 60,
      depth: 50,
      lexicalWeight: 1,
      denseWeight: 1,
    });
    expect(fusionParameters({ rrfK: 10, depth: undefined as unknown as number })).toMatchObject({
      rrfK: 10,
      depth: 50,
    });
  });

  it('rejects values RRF cannot use', () => {
    expect(() => fusionParameters({ rrfK: -1 })).toThrow(/rrf k/);
    expect(() => fusionParameters({ depth: 0 })).toThrow(/depth/);
    expect(() => fusionParameters({ depth: 2.5 })).toThrow(/depth/);
    expect(() => fusionParameters({ lexicalWeight: 0, denseWeight: 0 })).toThrow(/both be 0/);
    expect(() => fusionParameters({ dense: 'bm25' as never })).toThrow(/use-lite or bge-m3/);
  });

  it('round-trips through the manifest record and names every parameter in the id', () => {
    const f = fusionParameters({ rrfK: 20, depth: 30, lexicalWeight: 2 });
    expect(fusionRecord(f)).toEqual({
      fusion: 'rrf',
      dense: 'use-lite',
      rrfK: 20,
      depth: 30,
      lexicalWeight: 2,
      denseWeight: 1,
    });
    expect(fusionFromRecord(fusionRecord(f))).toEqual(f);
    expect(fusionFromRecord(null)).toBeNull();
    expect(fusionFromRecord({ model: 'x' })).toBeNull();
    const id = hybridEmbedderId('bm25:v', 'dense:v|x', f);
    expect(id).toBe('hybrid:rrf:k=20:depth=30:w=2,1:dense=use-lite[bm25:v|dense:v|x]');
    expect(hybridPartIds(id)).toEqual({ lexical: 'bm25:v', dense: 'dense:v|x' });
    expect(hybridPartIds('bm25:v')).toBeNull();
    const real = hybridEmbedderId('bm25:tokenizer-v2', 'use-lite:@energetic-ai/model@0.2.0:l2', f);
    expect(fusionFromId(real)).toEqual(f);
    expect(fusionFromId('use-lite:x')).toBeNull();
  });
});

/**
 * A small deterministic dense model for the index tests: letter-trigram counts hashed into 64
 * dimensions. It ranks by shared spelling, unlike BM25's whole words, which is what fusion needs.
 */
function trigramEmbedder(): DenseEmbedder {
  const embed = (text: string) => {
    const v = new Float32Array(64);
    const s = ` ${text.toLowerCase().replace(/[^a-z]+/g, ' ')} `;
    for (let i = 0; i + 3 <= s.length; i++) {
      let h = 0;
      for (const ch of s.slice(i, i + 3)) h = (h * 31 + ch.charCodeAt(0)) % 64;
      v[h] = (v[h] as number) + 1;
    }
    return l2Normalise(v);
  };
  return {
    kind: 'dense',
    name: 'trigram-test',
    id: 'trigram-test:v1',
    batchSize: 8,
    dimensions: 64,
    async embedPassages(texts) {
      return texts.map(embed);
    },
    async embedQuery(text) {
      return embed(text);
    },
  };
}

function hybridOf(fusion: FusionParameters): HybridEmbedder {
  const lexical = createBm25Embedder();
  const dense = trigramEmbedder();
  return {
    kind: 'hybrid',
    name: 'hybrid',
    id: hybridEmbedderId(lexical.id, dense.id, fusion),
    batchSize: 8,
    dimensions: 64,
    lexical,
    dense,
    fusion,
  };
}

describe('a hybrid index', () => {
  const chunks = [
    makeChunk('acme', 'FY24', 'Revenue', 10, 'Revenue from operations grew 12% to 4,500 crore.'),
    makeChunk('acme', 'FY24', 'Dividends', 11, 'The Board recommended a final dividend of 5 per share.'),
    makeChunk('acme', 'FY24', 'Employees', 12, 'Headcount rose to 12,000 employees across 40 offices.'),
    makeChunk('acme', 'FY23', 'Revenue', 10, 'Revenue from operations was 4,000 crore in the year.'),
    makeChunk(
      'beta',
      'FY24',
      'Revenues',
      3,
      'Revenues grew strongly; operational revenue reached 900 crore.',
    ),
  ];
  let root: string;
  let dir: string;
  const fusion = fusionParameters({ rrfK: 10, depth: 4 });
  const embedder = hybridOf(fusion);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'rge-hybrid-'));
    dir = join(root, 'index');
    await buildIndex(chunks, { dir, embedder, cacheDir: join(root, 'cache') });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('records the kind, the fusion parameters and a checksum over both halves in the manifest', async () => {
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.embedder).toMatchObject({
      name: 'hybrid',
      kind: 'hybrid',
      id: embedder.id,
      dimensions: 64,
    });
    expect(fusionFromId(manifest.embedder.id)).toEqual(fusion);
    expect(await verifyIndex(dir)).toMatchObject({ ok: true, problems: [] });
  });

  it('returns the fused ranking of its BM25 and dense rankings', async () => {
    const index = await openIndex(dir, { embedder });
    const question = 'How much did revenue from operations grow?';
    const k = 3;
    const lexical = index.retrieveByTerms(await embedder.lexical.embedQuery(question), { k: 4 });
    const dense = index.retrieveByVector(await embedder.dense.embedQuery(question), { k: 4 });
    const expected = reciprocalRankFusion(
      [
        { ids: lexical.map((c) => c.id), weight: 1 },
        { ids: dense.map((c) => c.id), weight: 1 },
      ],
      { rrfK: 10, depth: 4 },
    ).slice(0, k);
    const got = await index.retrieve(question, { k });
    expect(got.map((c) => [c.id, c.score])).toEqual(expected);
    for (const c of got) expect(c.text.toLowerCase()).toContain('revenue');
    // filters apply to both rankings before fusion
    const beta = await index.retrieve(question, { k, company: 'beta' });
    expect(beta.map((c) => c.company)).toEqual(['beta']);
  });

  it('catches a change to either half', async () => {
    const copy = join(root, 'tampered');
    await buildIndex(chunks, { dir: copy, embedder, cacheDir: join(root, 'cache') });
    const bm25 = JSON.parse(await readFile(join(copy, 'bm25.json'), 'utf8'));
    bm25.lengths[0] += 1;
    await writeFile(join(copy, 'bm25.json'), JSON.stringify(bm25));
    const result = await verifyIndex(copy);
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toMatch(/checksum mismatch/);
  });

  it('is queried with the parameters it records; other parameters are refused', async () => {
    const other = hybridOf(fusionParameters({ rrfK: 60, depth: 4 }));
    const index = await openIndex(dir, { embedder: other });
    await expect(index.retrieve('revenue')).rejects.toThrow(/rebuild the index/);
    expect(fusionFromId(index.manifest.embedder.id)).toEqual(fusion);
    expect(DEFAULT_FUSION.rrfK).toBe(60);
  });

  it('has a checksum that names the hybrid id and both halves', () => {
    expect(hybridChecksum('h', 'a', 'b')).not.toBe(hybridChecksum('h', 'b', 'a'));
    expect(hybridChecksum('h', 'a', 'b')).toMatch(/^[0-9a-f]{64}$/);
  });
});
