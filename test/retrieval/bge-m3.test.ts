import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, resolveBgeM3Dir } from '../../src/retrieval/index.ts';
import { RgeError } from '../../src/util/errors.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rge-bge-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function fakeModelFolder(dir: string, weights = 'onnx/model_quantized.onnx'): Promise<string> {
  await mkdir(join(dir, 'onnx'), { recursive: true });
  await writeFile(join(dir, 'config.json'), '{"model_type":"xlm-roberta"}');
  await writeFile(join(dir, 'tokenizer.json'), '{}');
  await writeFile(join(dir, weights), '');
  return dir;
}

describe('bge-m3 model lookup', () => {
  it('fails with an error that names where it looked and how to provide the model', async () => {
    const empty = join(root, 'empty');
    await mkdir(empty);
    const err = await createEmbedder('bge-m3', { modelDir: empty }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RgeError);
    const message = (err as Error).message;
    expect(message).toContain(empty);
    expect(message).toContain('RGE_BGE_M3_DIR');
    expect(message).toContain('Xenova/bge-m3');
  });

  it('looks in the transformers.js cache, TRANSFORMERS_CACHE and HF_HOME when no folder is given', () => {
    const lookup = resolveBgeM3Dir({
      env: { TRANSFORMERS_CACHE: join(root, 'tc'), HF_HOME: join(root, 'hf') },
      cacheDir: join(root, 'tjs-cache'),
    });
    expect(lookup.found).toBeNull();
    expect(lookup.searched).toEqual([
      join(root, 'tjs-cache', 'Xenova', 'bge-m3'),
      join(root, 'tc', 'Xenova', 'bge-m3'),
      join(root, 'hf', 'Xenova', 'bge-m3'),
      join(root, 'hf', 'hub', 'models--Xenova--bge-m3', 'snapshots'),
    ]);
    const byDefault = resolveBgeM3Dir({ env: {} });
    expect(byDefault.searched).toHaveLength(1);
    expect(byDefault.searched[0]).toMatch(
      /node_modules[\\/]@huggingface[\\/]transformers[\\/]\.cache[\\/]Xenova[\\/]bge-m3$/,
    );
  });

  it('finds a complete folder given directly, through RGE_BGE_M3_DIR, in a cache or in a hub snapshot', async () => {
    const direct = await fakeModelFolder(join(root, 'direct'));
    expect(resolveBgeM3Dir({ modelDir: direct, env: {} })).toEqual({ found: direct, searched: [direct] });
    expect(resolveBgeM3Dir({ env: { RGE_BGE_M3_DIR: direct } }).found).toBe(direct);

    const cached = await fakeModelFolder(join(root, 'tc2', 'Xenova', 'bge-m3'), 'onnx/model.onnx');
    expect(resolveBgeM3Dir({ env: { TRANSFORMERS_CACHE: join(root, 'tc2') }, cacheDir: null }).found).toBe(
      cached,
    );

    const snap = await fakeModelFolder(
      join(root, 'hf2', 'hub', 'models--Xenova--bge-m3', 'snapshots', 'abc123'),
    );
    expect(resolveBgeM3Dir({ env: { HF_HOME: join(root, 'hf2') }, cacheDir: null }).found).toBe(snap);
  });

  it('does not fall back elsewhere when the given folder is incomplete', async () => {
    const partial = join(root, 'partial');
    await mkdir(partial);
    await writeFile(join(partial, 'config.json'), '{}');
    await fakeModelFolder(join(root, 'tc3', 'Xenova', 'bge-m3'));
    const lookup = resolveBgeM3Dir({ modelDir: partial, env: { TRANSFORMERS_CACHE: join(root, 'tc3') } });
    expect(lookup).toEqual({ found: null, searched: [partial] });
  });
});

describe('loading', () => {
  it('never loads transformers.js (onnxruntime) for use-lite or bm25', async () => {
    const repo = resolve(import.meta.dirname, '..', '..');
    const transformers = createRequire(join(repo, 'package.json')).resolve('@huggingface/transformers');
    const script = join(root, 'load-check.mts');
    await writeFile(
      script,
      [
        `import { buildIndex, openIndex } from ${JSON.stringify(join(repo, 'src/retrieval/index.ts'))};`,
        `import { testChunks } from ${JSON.stringify(join(repo, 'test/retrieval/chunks.ts'))};`,
        "const onnx = () => process.report.getReport().sharedObjects.some((s) => s.includes('onnxruntime'));",
        `const root = ${JSON.stringify(root)};`,
        "for (const embedder of ['bm25', 'use-lite']) {",
        "  const dir = root + '/load-' + embedder;",
        "  await buildIndex(testChunks(), { dir, embedder, cacheDir: root + '/load-cache' });",
        "  await (await openIndex(dir)).retrieve('dividend per share');",
        '}',
        'const before = onnx();',
        `await import(${JSON.stringify(pathToFileURL(transformers).href)});`,
        'process.stdout.write(JSON.stringify({ before, after: onnx() }));',
      ].join('\n'),
    );
    const tsx = join(repo, 'node_modules', '.bin', 'tsx');
    const { stdout } = await promisify(execFile)(tsx, [script]);
    // `after` shows the probe works: importing transformers.js does load the onnxruntime library
    expect(JSON.parse(stdout)).toEqual({ before: false, after: true });
  });
});
