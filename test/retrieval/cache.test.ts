/**
 * The embedding cache within one process: each passage embedded once, compact float32 files, a corrupt
 * one embedded again, keyed by embedder id. Across a process restart:
 * test/retrieval/cache-restart.integration.test.ts.
 */
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, createEmbedder, type Embedder, EmbeddingCache } from '../../src/retrieval/index.ts';
import { testChunks } from './chunks.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rge-cache-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('embedding cache (use-lite)', () => {
  const chunks = testChunks();
  let embedder: Embedder;
  beforeAll(async () => {
    embedder = await createEmbedder('use-lite');
  });

  it('embeds each passage once: an unchanged corpus is served from the cache', async () => {
    const cacheDir = join(root, 'cache-a');
    const progress: [number, number][] = [];
    const first = await buildIndex(chunks, {
      dir: join(root, 'idx-a1'),
      embedder,
      cacheDir,
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(first).toMatchObject({ chunks: 30, embedded: 30, cached: 0 });
    expect(progress.at(-1)).toEqual([30, 30]);
    const second = await buildIndex(chunks, { dir: join(root, 'idx-a2'), embedder, cacheDir });
    expect(second).toMatchObject({ chunks: 30, embedded: 0, cached: 30, checksum: first.checksum });

    const edited = chunks.map((c, i) => (i === 4 ? { ...c, text: `${c.text} (restated)` } : c));
    const third = await buildIndex(edited, { dir: join(root, 'idx-a3'), embedder, cacheDir });
    expect(third).toMatchObject({ embedded: 1, cached: 29 });
    expect(third.checksum).not.toBe(first.checksum);
  });

  it('stores compact float32 files and re-embeds a corrupt one', async () => {
    const cacheDir = join(root, 'cache-b');
    await buildIndex(chunks.slice(0, 3), { dir: join(root, 'idx-b1'), embedder, cacheDir });
    const cache = new EmbeddingCache(cacheDir, embedder.id);
    const files = (await readdir(cache.dir)).filter((f) => f.endsWith('.f32')).sort();
    expect(files).toEqual(
      chunks
        .slice(0, 3)
        .map((c) => `${c.id}.f32`)
        .sort(),
    );
    for (const f of files) expect((await stat(join(cache.dir, f))).size).toBe(44 + 512 * 4);
    await writeFile(join(cache.dir, files[0] as string), 'not a vector');
    const again = await buildIndex(chunks.slice(0, 3), { dir: join(root, 'idx-b2'), embedder, cacheDir });
    expect(again).toMatchObject({ embedded: 1, cached: 2 });
  });

  it('keys by embedder id: another embedder id does not see the vectors', async () => {
    const cacheDir = join(root, 'cache-c');
    const [c] = chunks;
    if (!c) throw new Error('no chunk');
    const a = new EmbeddingCache(cacheDir, 'model-a@1');
    const v = Float32Array.from({ length: 8 }, (_, i) => i / 10);
    await a.set(c.id, c.text, v);
    expect(await a.get(c.id, c.text)).toEqual(v);
    expect(await a.get(c.id, `${c.text}!`)).toBeNull();
    expect(await new EmbeddingCache(cacheDir, 'model-a@2').get(c.id, c.text)).toBeNull();
  });
});
