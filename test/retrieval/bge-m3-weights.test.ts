/**
 * bge-m3's weights and batches, on the tiny ONNX model (test/helpers/tiny-onnx.ts, real inference
 * through onnxruntime-node): fp32 unless int8 is asked for, never int8 silently; int8 recorded in the
 * index manifest with another checksum, and a config that asks for the other weights does not reuse
 * the index; the hub's int8 file downloaded when int8 is asked for; passages batched by length with
 * their vectors back in input order.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byLength, createBgeM3Embedder } from '../../src/retrieval/bge-m3.ts';
import { corpusEmbedderOptions } from '../../src/retrieval/config.ts';
import { BGE_M3_MODEL, WEIGHT_FILES } from '../../src/retrieval/hub.ts';
import {
  bgeM3WeightsOf,
  buildIndex,
  type IndexManifest,
  readIndexManifest,
} from '../../src/retrieval/index.ts';
import { RgeError } from '../../src/util/errors.ts';
import { captureStream } from '../helpers/capture-stream.ts';
import { type HubServer, startHubServer } from '../helpers/hub-server.ts';
import { makeTinyModel, type TinyModel } from '../helpers/tiny-onnx.ts';
import { testChunks } from './chunks.ts';

const WORDS = ['revenue', 'profit', 'dividend', 'share', 'rose', 'fell'];
let root: string;
let model: TinyModel;

async function modelFolder(name: string, files: readonly string[]): Promise<string> {
  const dir = join(root, name);
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), model.files.get(file) as Buffer);
  }
  return dir;
}

const BASE = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

function closeTo(actual: Float32Array | undefined, expected: Float32Array): void {
  expect(actual?.length).toBe(expected.length);
  expected.forEach((x, i) => {
    expect(actual?.[i]).toBeCloseTo(x, 5);
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rge-bge-weights-'));
  model = makeTinyModel(WORDS, 8, { int8: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('bge-m3 weights', () => {
  it('runs on fp32 by default, even where int8 is present too', async () => {
    const dir = await modelFolder('both', [...BASE, WEIGHT_FILES.fp32, WEIGHT_FILES.q8]);
    const embedder = await createBgeM3Embedder({ modelDir: dir, env: {} });
    expect(embedder.id).toContain(':fp32:');
    expect(embedder.parameters).toEqual({ weights: 'fp32' });
    closeTo(await embedder.embedQuery('profit rose'), model.expectedVector('profit'));
  });

  it('never falls back to int8: a folder without fp32 is an error naming the option', async () => {
    const dir = await modelFolder('int8-only', [...BASE, WEIGHT_FILES.q8]);
    const err = await createBgeM3Embedder({ modelDir: dir, env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RgeError);
    const message = (err as Error).message;
    expect(message).toContain(join(dir, 'onnx/model.onnx'));
    expect(message).toContain('int8 (onnx/model_quantized.onnx)');
    expect(message).toContain('corpus.bge_m3.weights');
  });

  it('int8 when asked for: its own vectors, recorded in the manifest, another checksum', async () => {
    const dir = await modelFolder('both-2', [...BASE, WEIGHT_FILES.fp32, WEIGHT_FILES.q8]);
    const int8 = await createBgeM3Embedder({ modelDir: dir, env: {}, dtype: 'q8' });
    expect(int8.id).toContain(':q8:');
    expect(int8.parameters).toEqual({ weights: 'int8' });
    const [v] = await int8.embedPassages(['dividend per share']);
    closeTo(v, model.expectedVector('dividend', 'int8'));
    // the rounding moves the vector, a little
    expect(
      Math.max(
        ...(v as Float32Array).map((x, i) => Math.abs(x - (model.expectedVector('dividend')[i] as number))),
      ),
    ).toBeGreaterThan(1e-4);

    const manifests: IndexManifest[] = [];
    for (const [label, dtype] of [
      ['fp32', undefined],
      ['int8', 'q8'],
    ] as const) {
      const embedder = await createBgeM3Embedder({ modelDir: dir, env: {}, ...(dtype ? { dtype } : {}) });
      const index = join(root, `index-${label}`);
      await buildIndex(testChunks(), { dir: index, embedder, cacheDir: join(root, 'cache') });
      const manifest = await readIndexManifest(index);
      if (!manifest) throw new Error(`no manifest in ${index}`);
      manifests.push(manifest);
    }
    const [fp32, q8] = manifests as [IndexManifest, IndexManifest];
    expect(fp32.embedder.parameters).toEqual({ weights: 'fp32' });
    expect(q8.embedder.parameters).toEqual({ weights: 'int8' });
    expect(bgeM3WeightsOf(fp32)).toBe('fp32');
    expect(bgeM3WeightsOf(q8)).toBe('int8');
    expect(q8.checksum).not.toBe(fp32.checksum);
    // an index from before the record: the weights come from the embedder id
    expect(bgeM3WeightsOf({ ...q8, embedder: { ...q8.embedder, parameters: null } })).toBe('int8');
  });

  it('a config asks for int8 by corpus.bge_m3.weights, alone or as the hybrid dense half', () => {
    expect(corpusEmbedderOptions({ embedder: 'bge-m3', bge_m3: { weights: 'int8' } })).toEqual({
      dtype: 'q8',
    });
    expect(corpusEmbedderOptions({ embedder: 'bge-m3' })).toEqual({});
    expect(
      corpusEmbedderOptions({
        embedder: 'hybrid',
        hybrid: { dense: 'bge-m3', rrf_k: 60, depth: 50, lexical_weight: 1, dense_weight: 1 },
        bge_m3: { weights: 'int8' },
      }).dtype,
    ).toBe('q8');
    // where bge-m3 does not run, the setting does nothing
    expect(corpusEmbedderOptions({ embedder: 'use-lite', bge_m3: { weights: 'int8' } })).toEqual({});
  });
});

describe('bge-m3 int8 download', () => {
  let hub: HubServer;
  beforeAll(async () => {
    hub = await startHubServer({ model: BGE_M3_MODEL, files: model.files });
  });
  afterAll(async () => {
    await hub.close();
  });

  it('downloads the hub int8 file (and not the fp32 one) when int8 is asked for', async () => {
    const cacheDir = join(root, 'dl-cache');
    const progress = captureStream();
    const embedder = await createBgeM3Embedder({ cacheDir, hub: hub.host, env: {}, dtype: 'q8', progress });
    expect(progress.text).toContain('(revision main, q8)');
    const dir = join(cacheDir, BGE_M3_MODEL);
    expect(existsSync(join(dir, WEIGHT_FILES.q8))).toBe(true);
    expect(existsSync(join(dir, WEIGHT_FILES.fp32))).toBe(false);
    closeTo(await embedder.embedQuery('share'), model.expectedVector('share', 'int8'));
  });
});

describe('bge-m3 batches', () => {
  it('batches passages by length and gives their vectors back in input order', async () => {
    const texts = [
      'share',
      'revenue rose and profit fell and dividend rose',
      'profit',
      'dividend rose',
      'fell',
    ];
    expect(byLength(texts)).toEqual([1, 3, 2, 0, 4]);
    const dir = await modelFolder('batches', [...BASE, WEIGHT_FILES.fp32]);
    const embedder = await createBgeM3Embedder({ modelDir: dir, env: {}, batchSize: 2, threads: 2 });
    const progress: number[] = [];
    const vectors = await embedder.embedPassages(texts, (d) => progress.push(d));
    expect(progress).toEqual([2, 4, 5]);
    texts.forEach((t, i) => {
      closeTo(vectors[i], model.expectedVector(t.split(' ')[0] as string));
    });
  });
});
