/**
 * What a bundled worker thread takes from its parent's Node options (workerExecArgv), and that a
 * parent started with V8 options still starts its corpus threads: given to `new Worker`, those options
 * throw ERR_WORKER_INVALID_EXEC_ARGV.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ResourceLimits } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { WORKER_HEAP } from '../../src/corpus/workers.ts';
import { WorkerPool, workerExecArgv } from '../../src/util/worker-pool.ts';
import { makeTextPdf } from '../helpers/make-pdf.ts';

const run = promisify(execFile);
const RGE = fileURLToPath(new URL('../../bin/rge.mjs', import.meta.url));

describe('workerExecArgv', () => {
  it('drops tsx in each spelling and source maps, and keeps other preloads', () => {
    expect(
      workerExecArgv([
        '--import',
        'tsx',
        '--import=tsx/esm',
        '--require',
        '/x/node_modules/tsx/dist/preflight.cjs',
        '--import',
        'file:///x/node_modules/tsx/dist/loader.mjs',
        '--enable-source-maps',
        '--import',
        './otel.mjs',
        '-r',
        'dotenv/config',
        '--require=./hook.cjs',
      ]),
    ).toEqual(['--import', './otel.mjs', '-r', 'dotenv/config', '--require=./hook.cjs']);
  });

  it('drops V8 and per-process options, which a worker refuses, and keeps conditions and warning switches', () => {
    const refused = [
      '--max-old-space-size=4096',
      '--expose-gc',
      '--stack-size=2000',
      '--trace-gc',
      '--title=rge',
    ];
    const kept = [
      '--conditions',
      'development',
      '-C',
      'custom',
      '--conditions=other',
      '--no-warnings',
      '--disable-warning',
      'ExperimentalWarning',
      '--no-deprecation',
    ];
    expect(workerExecArgv([...refused, ...kept])).toEqual(kept);
  });

  it('keeps nothing of an empty or flag-free list', () => {
    expect(workerExecArgv([])).toEqual([]);
    expect(workerExecArgv(['--max-semi-space-size', '8'])).toEqual([]);
  });
});

describe('a parent started with V8 options', () => {
  it('still starts its corpus threads (node --max-old-space-size=2048 --expose-gc --stack-size=2000 bin/rge.mjs corpus ingest)', async () => {
    const work = await mkdtemp(join(tmpdir(), 'rge-worker-flags-'));
    await mkdir(join(work, 'pdfs'));
    await writeFile(
      join(work, 'pdfs', 'Acme_FY2023-24.pdf'),
      await makeTextPdf([
        'DIVIDEND\nThe Board recommended a final dividend of Rs 7.50 per equity share.',
        'RISK\nCurrency risk arises from imports priced in US dollars.',
      ]),
    );
    const { stdout } = await run(
      process.execPath,
      [
        '--max-old-space-size=2048',
        '--expose-gc',
        '--stack-size=2000',
        RGE,
        'corpus',
        'ingest',
        '--pdfs',
        'pdfs',
        '--index',
        'idx',
        '--embedder',
        'bm25',
        '--cache-dir',
        'cache',
        '--threads',
        '2',
        '-q',
      ],
      { cwd: work },
    );
    expect(stdout).toMatch(/1\/1 documents ingested/);
  }, 60_000);
});

describe('WorkerPool heap limits', () => {
  it("starts each thread with the pool's resourceLimits, and with Node's own without them", async () => {
    const entry = new URL('../fixtures/workers/limits-worker.ts', import.meta.url);
    const ask = async (resourceLimits?: ResourceLimits) => {
      const pool = new WorkerPool<null, { id: number; resourceLimits: ResourceLimits }>(entry, {
        size: 1,
        name: 'test',
        resourceLimits,
      });
      try {
        return (await pool.run(null)).resourceLimits;
      } finally {
        await pool.close();
      }
    };
    expect(await ask(WORKER_HEAP)).toMatchObject(WORKER_HEAP);
    const own = await ask();
    expect(own.maxYoungGenerationSizeMb).not.toBe(WORKER_HEAP.maxYoungGenerationSizeMb);
  });
});

describe('WorkerPool job keys', () => {
  it("gives a free thread the waiting job with its last job's key first, ahead of the queue's order", async () => {
    type Reply = { id: number; name: string; threadId: number; before: number };
    const pool = new WorkerPool<{ name: string; ms: number }, Reply>(
      new URL('../fixtures/workers/echo-worker.ts', import.meta.url),
      { size: 2, name: 'test' },
    );
    try {
      // both threads busy: a on key A (short), b on key B (long)
      const a1 = pool.run({ name: 'a1', ms: 50 }, { key: 'A' });
      const b1 = pool.run({ name: 'b1', ms: 1500 }, { key: 'B' });
      // waiting, in this order: a B job, then an A job; a1's thread frees first
      const b2 = pool.run({ name: 'b2', ms: 0 }, { key: 'B' });
      const a2 = pool.run({ name: 'a2', ms: 0 }, { key: 'A' });
      const [ra1, rb1, rb2, ra2] = await Promise.all([a1, b1, b2, a2]);
      expect([ra1, rb1, rb2, ra2].map((r) => r.name)).toEqual(['a1', 'b1', 'b2', 'a2']);
      expect(ra1.threadId).not.toBe(rb1.threadId);
      // a1's thread took a2 (its key) first, although b2 waited ahead of it
      expect([ra2.threadId, ra2.before]).toEqual([ra1.threadId, 1]);
      // a key never keeps a free thread waiting: with no A job left, it took b2 while b1 still ran
      expect([rb2.threadId, rb2.before]).toEqual([ra1.threadId, 2]);
      // without keys the queue's order holds: the first free thread takes the first job waiting
      const c1 = pool.run({ name: 'c1', ms: 50 });
      const d1 = pool.run({ name: 'd1', ms: 1500 });
      const c2 = pool.run({ name: 'c2', ms: 0 });
      const [rc1, rd1, rc2] = await Promise.all([c1, d1, c2]);
      expect(rc2.threadId).toBe(rc1.threadId);
      expect(rc2.before).toBe(rc1.before + 1);
      expect(rd1.threadId).not.toBe(rc1.threadId);
    } finally {
      await pool.close();
    }
  });
});
