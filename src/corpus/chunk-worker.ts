/**
 * A chunking thread of the corpus pool (workers.ts): chunks one document per job (its pages, or the
 * page cache file that holds them) and replies with its chunks or the error. The chunking threads
 * load the cl100k tokenizer (about 15 MB resident, and a merge cache that grows with the corpus's
 * vocabulary); the extraction threads (pdf-worker.ts) never do.
 */
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../util/errors.ts';
import { chunkDocument } from './chunk.ts';
import type { PageText } from './schema.ts';
import type { ChunkJob, ChunkReply } from './workers.ts';

if (!parentPort) throw new Error('chunk-worker.ts runs as a worker thread of the corpus pool (workers.ts)');
const port = parentPort;

port.on('message', async ({ id, job }: { id: number; job: ChunkJob }) => {
  let reply: ChunkReply;
  try {
    const pages: PageText[] =
      typeof job.pages === 'string' ? JSON.parse(await readFile(job.pages, 'utf8')) : job.pages;
    const t0 = performance.now();
    const chunks = chunkDocument(pages, job.meta, job.chunking);
    reply = { id, ok: true, chunks, chunkMs: performance.now() - t0 };
  } catch (err) {
    reply = { id, ok: false, crash: err instanceof Error ? (err.stack ?? err.message) : errorMessage(err) };
  }
  port.postMessage(reply);
});
