/**
 * The corpus pool's chunking thread (workers.ts): chunks one document per job and replies with its
 * chunks or the error. It is the one thread of an ingest that loads the cl100k tokenizer (about 15 MB
 * resident, and its merge cache grows with the corpus's vocabulary), so the extraction threads
 * (pdf-worker.ts) never load it.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../util/errors.ts';
import { chunkDocument } from './chunk.ts';
import type { ChunkJob, ChunkReply } from './workers.ts';

if (!parentPort) throw new Error('chunk-worker.ts runs as a worker thread of the corpus pool (workers.ts)');
const port = parentPort;

port.on('message', ({ id, job }: { id: number; job: ChunkJob }) => {
  let reply: ChunkReply;
  try {
    const t0 = performance.now();
    const chunks = chunkDocument(job.pages, job.meta, job.chunking);
    reply = { id, ok: true, chunks, chunkMs: performance.now() - t0 };
  } catch (err) {
    reply = { id, ok: false, crash: err instanceof Error ? (err.stack ?? err.message) : errorMessage(err) };
  }
  port.postMessage(reply);
});
