/** Worker thread of the USE-lite embedder (use-lite.ts): embeds one passage group per job on its own model. */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../util/errors.ts';
import { embedGroupHere, type UseLiteReply } from './use-lite.ts';

if (!parentPort) throw new Error('use-lite-worker.ts runs as a worker thread of the USE-lite embedder');
const port = parentPort;

port.on('message', async ({ id, job }: { id: number; job: { passages: string[] } }) => {
  let reply: UseLiteReply;
  try {
    reply = { id, ok: true, vectors: await embedGroupHere(job.passages) };
  } catch (err) {
    reply = { id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : errorMessage(err) };
  }
  port.postMessage(reply, reply.ok ? [reply.vectors.buffer as ArrayBuffer] : []);
});
