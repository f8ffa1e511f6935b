/**
 * Worker thread of the corpus pool (workers.ts): extracts one page range of a PDF, or chunks one
 * document, per job, and replies with the result or the error.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../util/errors.ts';
import { chunkDocument } from './chunk.ts';
import { extractPages } from './pdf.ts';
import { PdfError } from './pdf-document.ts';
import type { WorkerJob, WorkerReply } from './workers.ts';

if (!parentPort) throw new Error('pdf-worker.ts runs as a worker thread of the corpus pool (workers.ts)');
const port = parentPort;

async function work(id: number, job: WorkerJob): Promise<WorkerReply> {
  if (job.kind === 'pages') {
    const result = await extractPages(job.path, { first: job.first, last: job.last, tables: job.tables });
    return { id, ok: true, kind: 'pages', result };
  }
  const t0 = performance.now();
  const chunks = chunkDocument(job.pages, job.meta, job.chunking);
  return { id, ok: true, kind: 'chunk', chunks, chunkMs: performance.now() - t0 };
}

port.on('message', async ({ id, job }: { id: number; job: WorkerJob }) => {
  let reply: WorkerReply;
  try {
    reply = await work(id, job);
  } catch (err) {
    reply =
      err instanceof PdfError && err.file !== undefined
        ? { id, ok: false, pdfError: { kind: err.kind, file: err.file, detail: err.detail } }
        : { id, ok: false, crash: err instanceof Error ? (err.stack ?? err.message) : errorMessage(err) };
  }
  port.postMessage(reply);
});
