/**
 * Extraction throughput: pages/s of `extractMany` with 2 worker threads (tables 'auto', so table pages
 * pay for the layout path) against `pdftotext -layout`, also run 2 files at a time, over the same real
 * filings from ../shared/corpus.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { extractMany } from '../src/corpus/workers.ts';
import { type Bench, type BenchRow, hasPdftotext, throughputRow } from './harness.ts';

const run = promisify(execFile);

const NAME = 'extraction pages/s (2 workers)';
const FILES = [
  'financebench/pdfs/3M_2022_10K.pdf',
  'indian/Rane_Holdings_Annual_Report_FY2024-25.pdf',
  'financebench/pdfs/AMCOR_2023Q2_10Q.pdf',
  'indian/Infosys_Q4FY24_Condensed_Consolidated_IndAS_FS.pdf',
  'indian/VRL_Logistics_Annual_Report_FY2023-24.pdf',
  'indian/concall_indusind_bank_Q3FY25.pdf',
];
const QUICK_FILES = FILES.filter((_, i) => i === 2 || i === 3 || i === 5);

async function inPairs<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

const bench: Bench = async (ctx) => {
  const skipped = (why: string): BenchRow[] => [
    { name: NAME, unit: 'pages/s', value: 0, reference: null, ratio: null, skipped: why },
  ];
  if (!ctx.sharedCorpus) return skipped('../shared/corpus absent');
  if (!hasPdftotext()) return skipped('pdftotext not installed (apt-get install poppler-utils)');
  const shared = ctx.sharedCorpus;
  const paths = (ctx.quick ? QUICK_FILES : FILES).map((f) => join(shared, f)).filter((p) => existsSync(p));
  if (paths.length === 0) return skipped('none of the benchmark PDFs is in ../shared/corpus');

  // Warm-up on the last file: its time is mostly a worker's cold start (tsx, pdf.js load, first parse).
  // Every extractMany call starts its own workers, so the measured runs include that start too.
  const smallest = paths[paths.length - 1] as string;
  const w0 = performance.now();
  await extractMany([smallest], { concurrency: 1 });
  const coldMs = performance.now() - w0;
  const reps = ctx.quick ? 1 : 2;
  let pages = 0;
  let rgeMs = Number.POSITIVE_INFINITY;
  let tablePages = 0;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const results = await extractMany(paths, { concurrency: 2, tables: 'auto' });
    rgeMs = Math.min(rgeMs, performance.now() - t0);
    const failed = results.filter((x) => x.error);
    if (failed.length > 0)
      throw new Error(`extraction failed: ${failed.map((x) => x.error?.message).join('; ')}`);
    pages = results.reduce((n, x) => n + (x.result?.pageCount ?? 0), 0);
    tablePages = results.reduce(
      (n, x) => n + (x.result?.pages.filter((p) => p.method === 'table').length ?? 0),
      0,
    );
  }
  let refMs = Number.POSITIVE_INFINITY;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await inPairs(paths, async (p) => {
      await run('pdftotext', ['-layout', '-enc', 'UTF-8', p, join(ctx.tmp, `${basename(p)}.txt`)], {
        maxBuffer: 1 << 26,
      });
    });
    refMs = Math.min(refMs, performance.now() - t0);
  }
  ctx.log(
    `${paths.length} PDFs, ${pages} pages (${tablePages} on the table path); rge ${rgeMs.toFixed(0)} ms, pdftotext ${refMs.toFixed(0)} ms`,
  );
  return [
    throughputRow(
      NAME,
      'pages/s',
      pages / (rgeMs / 1000),
      { name: 'pdftotext -layout, 2 at a time', value: pages / (refMs / 1000) },
      `${paths.length} PDFs, ${pages} pages, ${tablePages} table pages; best of ${reps}; includes worker start, ~${(coldMs / 1000).toFixed(1)} s for 1 worker + 1 small PDF`,
    ),
  ];
};

export default bench;
