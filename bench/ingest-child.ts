/**
 * The child process of the ingest bench: one job a process, so that its peak RSS
 * (`process.resourceUsage().maxRSS`) and CPU time (`process.cpuUsage()`, every thread of the process)
 * are the job's own. Every job runs in the same script with the same modules loaded (the ingest's),
 * so the pdftotext reference's RSS has the same Node baseline as the ingest's.
 *
 *   node --import tsx bench/ingest-child.ts JOB.json   (prints one JSON line: ChildResult)
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { extractMany } from '../src/corpus/workers.ts';
import type { IngestDocument } from '../src/ingest/documents.ts';
import { type IngestTimings, indexChunks, ingest, prepareCorpus } from '../src/ingest/ingest.ts';
import type { EmbedderName, EmbedderOptions } from '../src/retrieval/index.ts';

const run = promisify(execFile);

export type ChildJob =
  /** extraction alone (extractMany), `threads` worker threads */
  | { kind: 'extract'; pdfs: string[]; threads: number }
  /** pdftotext over the PDFs, `parallel` at a time, each text read into this process */
  | { kind: 'pdftotext'; pdfs: string[]; parallel: number }
  /** a cold ingest of the documents into a fresh cache and index (`threads`: default, the machine's cores) */
  | {
      kind: 'ingest';
      docs: IngestDocument[];
      cacheDir: string;
      indexDir: string;
      embedder: EmbedderName;
      embedderOptions: EmbedderOptions;
      threads?: number;
    }
  /**
   * A cold ingest of the first `chunks` chunks of `docs` taken in order: documents are extracted and
   * chunked a few at a time until there are enough chunks, then those are embedded and indexed.
   */
  | {
      kind: 'ingest-chunks';
      docs: IngestDocument[];
      chunks: number;
      cacheDir: string;
      indexDir: string;
      embedder: EmbedderName;
      embedderOptions: EmbedderOptions;
    };

export interface ChildResult {
  seconds: number;
  /** CPU seconds of the whole process (all threads), user + system */
  cpuSeconds: number;
  /** peak resident set of this process, MB */
  maxRssMb: number;
  pages?: number;
  chunks?: number;
  documents?: number;
  embedded?: number;
  timings?: IngestTimings;
}

async function runJob(job: ChildJob): Promise<Omit<ChildResult, 'seconds' | 'cpuSeconds' | 'maxRssMb'>> {
  switch (job.kind) {
    case 'extract': {
      const results = await extractMany(job.pdfs, { concurrency: job.threads });
      const failed = results.filter((r) => r.error);
      if (failed.length > 0) throw new Error(failed.map((r) => r.error?.message).join('; '));
      return { pages: results.reduce((n, r) => n + (r.result?.pageCount ?? 0), 0) };
    }
    case 'pdftotext': {
      let next = 0;
      let bytes = 0;
      await Promise.all(
        Array.from({ length: job.parallel }, async () => {
          while (next < job.pdfs.length) {
            const pdf = job.pdfs[next++] as string;
            const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', pdf, '-'], { maxBuffer: 1 << 28 });
            bytes += stdout.length;
          }
        }),
      );
      return { documents: job.pdfs.length, chunks: bytes };
    }
    case 'ingest': {
      const report = await ingest(job.docs, {
        indexDir: job.indexDir,
        cacheDir: job.cacheDir,
        embedder: job.embedder,
        embedderOptions: job.embedderOptions,
        ...(job.threads !== undefined ? { concurrency: job.threads } : {}),
      });
      if (report.failed > 0) throw new Error(`${report.failed} documents failed to ingest`);
      return {
        pages: report.documents.reduce((n, d) => n + d.pages, 0),
        chunks: report.chunks,
        documents: report.documents.length,
        embedded: report.index?.embedded ?? 0,
        timings: report.timings,
      };
    }
    case 'ingest-chunks': {
      const chunks = [];
      let pages = 0;
      let documents = 0;
      let timings: IngestTimings | null = null;
      for (let i = 0; i < job.docs.length && chunks.length < job.chunks; i += 3) {
        const prepared = await prepareCorpus(job.docs.slice(i, i + 3), { cacheDir: job.cacheDir });
        if (prepared.failed > 0) throw new Error(`${prepared.failed} documents failed to ingest`);
        chunks.push(...prepared.chunks);
        pages += prepared.documents.reduce((n, d) => n + d.pages, 0);
        documents += prepared.documents.length;
        const t = prepared.timings;
        if (!timings) timings = t;
        else
          for (const key of ['parseMs', 'layoutMs', 'chunkMs', 'extractWallMs'] as const)
            timings[key] += t[key];
      }
      const kept = chunks.slice(0, job.chunks);
      timings ??= {
        parseMs: 0,
        layoutMs: 0,
        chunkMs: 0,
        extractWallMs: 0,
        embedMs: 0,
        writeMs: 0,
        threads: 0,
      };
      const built = await indexChunks(kept, job, timings);
      return {
        pages,
        documents,
        chunks: kept.length,
        embedded: built.embedded,
        timings,
      };
    }
  }
}

const file = process.argv[2];
if (!file) throw new Error('usage: ingest-child.ts JOB.json');
const job = JSON.parse(await readFile(file, 'utf8')) as ChildJob;
const t0 = performance.now();
const c0 = process.cpuUsage();
const extra = await runJob(job);
const cpu = process.cpuUsage(c0);
const result: ChildResult = {
  seconds: (performance.now() - t0) / 1000,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  maxRssMb: process.resourceUsage().maxRSS / 1024,
  ...extra,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
