/**
 * The use-lite embedding cache survives a process restart: a second process, building the same chunks
 * with the same cache folder, embeds nothing (two processes under tsx, each loading the model). The
 * cache within one process: test/retrieval/cache.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testChunks } from './chunks.ts';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..', '..');

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rge-cache-restart-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('embedding cache (use-lite), across processes', () => {
  const chunks = testChunks();

  it('survives a process restart: a second process embeds nothing', async () => {
    const cacheDir = join(root, 'cache-d');
    const chunksFile = join(root, 'chunks.json');
    await writeFile(chunksFile, JSON.stringify(chunks));
    const script = join(root, 'build.mts');
    await writeFile(
      script,
      [
        `import { readFileSync } from 'node:fs';`,
        `import { buildIndex } from ${JSON.stringify(join(repo, 'src/retrieval/index.ts'))};`,
        `const chunks = JSON.parse(readFileSync(process.argv[2], 'utf8'));`,
        `const r = await buildIndex(chunks, { dir: process.argv[3], embedder: 'use-lite', cacheDir: process.argv[4] });`,
        'process.stdout.write(JSON.stringify(r));',
      ].join('\n'),
    );
    const tsx = join(repo, 'node_modules', '.bin', 'tsx');
    const once = JSON.parse((await run(tsx, [script, chunksFile, join(root, 'idx-d1'), cacheDir])).stdout);
    const twice = JSON.parse((await run(tsx, [script, chunksFile, join(root, 'idx-d2'), cacheDir])).stdout);
    expect(once).toMatchObject({ embedded: 30, cached: 0 });
    expect(twice).toMatchObject({ embedded: 0, cached: 30, checksum: once.checksum });
    const manifest = JSON.parse(await readFile(join(root, 'idx-d2', 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      chunks: 30,
      checksum: once.checksum,
      embedder: { name: 'use-lite', kind: 'dense' },
    });
  });
});
