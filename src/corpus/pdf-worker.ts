/** Worker thread for `extractMany`: extracts one PDF per job and replies with the pages or the error. */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../util/errors.ts';
import { extractPdf, PdfError, type WorkerJob, type WorkerReply } from './pdf.ts';

if (!parentPort) throw new Error('pdf-worker.ts runs as a worker thread of extractMany');
const port = parentPort;

port.on('message', async (job: WorkerJob) => {
  let reply: WorkerReply;
  try {
    reply = { id: job.id, ok: true, result: await extractPdf(job.path, { tables: job.tables }) };
  } catch (err) {
    reply =
      err instanceof PdfError && err.file !== undefined
        ? { id: job.id, ok: false, pdfError: { kind: err.kind, file: err.file, detail: err.detail } }
        : {
            id: job.id,
            ok: false,
            crash: err instanceof Error ? (err.stack ?? err.message) : errorMessage(err),
          };
  }
  port.postMessage(reply);
});
