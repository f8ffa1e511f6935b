/**
 * Warm re-ingest against cold: the same real filings ingested into a fresh cache (extract, chunk, embed
 * every passage with use-lite, write the index), then again with that cache (pages and vectors reused).
 * The ratio is how much faster an unchanged corpus re-ingests; the warm run must embed nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { documentIdentity } from '../src/corpus/naming.ts';
import { type IngestDocument, ingest } from '../src/run/ingest.ts';
import { type Bench, latencyRow } from './harness.ts';

const FILES = [
  'indian/Infosys_Q4FY24_Condensed_Consolidated_IndAS_FS.pdf',
  'indian/concall_indusind_bank_Q3FY25.pdf',
  'financebench/pdfs/AMCOR_2023Q2_10Q.pdf',
];

const bench: Bench = async (ctx) => {
  const name = 'warm re-ingest (use-lite)';
  if (!ctx.sharedCorpus) return [{ ...latencyRow(name, 's', 0, null), skipped: '../shared/corpus absent' }];
  const docs: IngestDocument[] = (ctx.quick ? FILES.slice(0, 1) : FILES)
    .map((f) => join(ctx.sharedCorpus as string, f))
    .filter((p) => existsSync(p))
    .map((path) => ({ path, ...documentIdentity(path) }));
  const cacheDir = join(ctx.tmp, 'cache');
  const timed = async (label: string) => {
    const t0 = performance.now();
    const report = await ingest(docs, {
      indexDir: join(ctx.tmp, `index-${label}`),
      embedder: 'use-lite',
      cacheDir,
    });
    const seconds = (performance.now() - t0) / 1000;
    ctx.log(`${label}: ${seconds.toFixed(2)} s, ${report.chunks} chunks, ${report.index?.embedded} embedded`);
    return { seconds, report };
  };
  const cold = await timed('cold');
  const warm = await timed('warm');
  if (warm.report.index?.embedded !== 0)
    throw new Error('warm re-ingest embedded passages: the cache missed');
  if (warm.report.index?.checksum !== cold.report.index?.checksum)
    throw new Error('warm and cold checksums differ');
  return [
    latencyRow(
      name,
      's',
      warm.seconds,
      { name: 'cold ingest', value: cold.seconds },
      `${docs.length} filings, ${cold.report.chunks} chunks; warm embedded 0`,
    ),
  ];
};

export default bench;
