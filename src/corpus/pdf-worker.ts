/**
 * An extraction thread of the corpus pool (workers.ts): extracts one page range of a PDF per job and
 * replies with its pages or the error. Chunking is the chunking thread's (chunk-worker.ts), so this
 * thread never loads the tokenizer.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../util/errors.ts';
import { extractPages } from './pdf.ts';
import { PdfError } from './pdf-document.ts';
import { pdfjsFallback } from './pdfjs.ts';
import type { PagesJob, PagesReply } from './workers.ts';

if (!parentPort) throw new Error('pdf-worker.ts runs as a worker thread of the corpus pool (workers.ts)');
const port = parentPort;

port.on('message', async ({ id, job }: { id: number; job: PagesJob }) => {
  let reply: PagesReply;
  try {
    const result = await extractPages(job.path, {
      first: job.first,
      last: job.last,
      tables: job.tables,
      // the pool gives this thread the next range of the same file when it can
      keepOpen: true,
    });
    reply = { id, ok: true, result };
  } catch (err) {
    reply =
      err instanceof PdfError && err.file !== undefined
        ? { id, ok: false, pdfError: { kind: err.kind, file: err.file, detail: err.detail } }
        : { id, ok: false, crash: err instanceof Error ? (err.stack ?? err.message) : errorMessage(err) };
  }
  // the pool says once why pdfjs-dist's own files run, if they do (workers.ts)
  const fallback = pdfjsFallback();
  port.postMessage(fallback === null ? reply : { ...reply, pdfjsFallback: fallback });
});
