/**
 * Ingest: extraction against pdftotext, where a cold ingest's time and memory go, and the real
 * filings at the published run's scale. Every measurement runs in its own child process
 * (bench/ingest-child.ts), so that its peak RSS and CPU time are its own; wall times are measured in
 * the same run as their references, CPU seconds are printed beside them (the machine may be shared).
 *
 * 1. Extraction of the synthetic 20-report corpus (bench/synthetic-corpus.ts; ~6,000 pages at full
 *    size, 100 with --quick) by `extractMany` on two threads, against `pdftotext` on the same PDFs
 *    one at a time (the issue's reference) and two at a time (both on two cores).
 * 2. A cold ingest of that corpus with bm25 (extract, chunk, index: the embedder costs next to
 *    nothing), with the split of its time (parse, layout, chunk, embed, write) and its peak RSS
 *    against the same child script running pdftotext over the PDFs (same Node baseline); pdftotext's
 *    own peak RSS is printed too, from /usr/bin/time when it is installed. Then the same ingest on one
 *    worker thread (`--threads 1`, the memory knob), its time and peak RSS.
 * 3. When ../shared is present: extraction of the real filings (the Indian reports and FinanceBench's
 *    10-Ks) on two threads against pdftotext on the same PDFs, one and two at a time.
 * 4. When ../shared is present: a cold ingest of the first 2,500 chunks of real filings (Indian annual
 *    reports, then FinanceBench 10-Ks; RGE_BENCH_REAL_CHUNKS sets the number, 150 with --quick) with
 *    the offline default embedder, the one configs/fixture.yaml names (RGE_BENCH_EMBEDDER overrides
 *    it), against the goal of 5 minutes.
 * 5. When ../shared is present: a warm re-ingest of real filings against their cold ingest, with the
 *    same embedder; the warm one must embed nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentIdentity } from '../src/corpus/naming.ts';
import type { IngestDocument } from '../src/ingest/documents.ts';
import { type IngestTimings, ingest } from '../src/ingest/ingest.ts';
import { corpusEmbedderOptions } from '../src/retrieval/config.ts';
import { type EmbedderName, isEmbedderName } from '../src/retrieval/index.ts';
import { loadRunConfig, withCorpus } from '../src/run/config/config.ts';
import {
  type Bench,
  type BenchContext,
  type BenchRow,
  hasPdftotext,
  latencyRow,
  skippedRow,
  throughputRow,
} from './harness.ts';
import type { ChildJob, ChildResult } from './ingest-child.ts';
import { syntheticCorpus } from './synthetic-corpus.ts';

const CHILD = fileURLToPath(new URL('./ingest-child.ts', import.meta.url));
const WARM_FILES = [
  'indian/Infosys_Q4FY24_Condensed_Consolidated_IndAS_FS.pdf',
  'indian/concall_indusind_bank_Q3FY25.pdf',
  'financebench/pdfs/AMCOR_2023Q2_10Q.pdf',
];
/** the goal for 2,500 real-report chunks with the offline default embedder, on two cores */
const REAL_GOAL_SECONDS = 300;

let jobs = 0;

/** Runs `job` in a fresh Node process (ingest-child.ts under tsx) and returns what it measured. */
async function inChild(ctx: BenchContext, job: ChildJob): Promise<ChildResult> {
  const jobFile = join(ctx.tmp, `job-${jobs++}.json`);
  await writeFile(jobFile, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, jobFile], {
      cwd: ctx.root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`${job.kind} child exited with ${code}: ${out.slice(-2000)}`));
      else resolve(JSON.parse(last) as ChildResult);
    });
  });
}

/** Runs of each extraction measurement: the fastest counts, for rge and its references alike. */
const REPEATS = 3;

/**
 * Each job in its own child, REPEATS times (once with --quick), the jobs interleaved (a, b, c, a, b,
 * c, ...) so that a slow spell of a shared machine falls on all of them; for each job the run with the
 * least wall time. Noise only ever adds time, so the fastest run is the best estimate of each one's own
 * cost (every run's time is logged).
 */
async function fastestOf<const J extends readonly ChildJob[]>(
  ctx: BenchContext,
  jobs: J,
): Promise<{ [K in keyof J]: ChildResult }> {
  const runs: ChildResult[][] = jobs.map(() => []);
  for (let r = 0; r < (ctx.quick ? 1 : REPEATS); r++)
    for (const [i, job] of jobs.entries()) (runs[i] as ChildResult[]).push(await inChild(ctx, job));
  ctx.log(
    `runs (s): ${jobs
      .map(
        (j, i) =>
          `${j.kind}${'threads' in j ? ` x${j.threads}` : ''}${'parallel' in j ? ` x${j.parallel}` : ''} ${(runs[i] as ChildResult[]).map((x) => x.seconds.toFixed(1)).join(', ')}`,
      )
      .join('; ')}`,
  );
  const fastest = runs.map((list) => list.reduce((a, b) => (b.seconds < a.seconds ? b : a)));
  // one result for each job, in the jobs' order
  return fastest as { [K in keyof J]: ChildResult };
}

/** pdftotext's own CPU seconds and peak RSS over the PDFs one at a time, from GNU time; null without it. */
function ownUsage(pdfs: readonly string[]): { cpuSeconds: number; maxRssMb: number } | null {
  if (!existsSync('/usr/bin/time')) return null;
  const script = 'for f in "$@"; do pdftotext -enc UTF-8 "$f" /dev/null; done';
  const r = spawnSync('/usr/bin/time', ['-f', 'RGE %U %S %M', 'sh', '-c', script, 'sh', ...pdfs], {
    encoding: 'utf8',
  });
  const line = (r.stderr ?? '').split('\n').find((l) => l.startsWith('RGE '));
  if (r.status !== 0 || !line) return null;
  const [, user, system, kb] = line.split(' ');
  return { cpuSeconds: Number(user) + Number(system), maxRssMb: Number(kb) / 1024 };
}

/** "parse 12.3 s, layout 0.9 s, chunk 2.1 s (thread time), embed 0.4 s, write 0.6 s" */
function split(t: IngestTimings | undefined): string {
  if (!t) return '';
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return (
    `parse ${s(t.parseMs)}, layout ${s(t.layoutMs)}, chunk ${s(t.chunkMs)} (summed over ${t.threads} threads; ` +
    `extract + chunk wall ${s(t.extractWallMs)}), embed ${s(t.embedMs)}, write ${s(t.writeMs)}`
  );
}

/** The offline default embedder: what configs/fixture.yaml names (RGE_BENCH_EMBEDDER overrides it). */
async function defaultEmbedder(ctx: BenchContext) {
  const config = withCorpus(
    await loadRunConfig(join(ctx.root, 'configs/fixture.yaml'), { root: ctx.root }),
    'the ingest bench',
  );
  const fromEnv = process.env.RGE_BENCH_EMBEDDER;
  const name: EmbedderName = fromEnv && isEmbedderName(fromEnv) ? fromEnv : config.corpus.embedder;
  const options = corpusEmbedderOptions({ ...config.corpus, embedder: name });
  return { name, options, source: fromEnv ? 'RGE_BENCH_EMBEDDER' : 'configs/fixture.yaml' };
}

/** Extraction of `pdfs` on two threads and pdftotext one and two at a time (fastestOf), with pdftotext's own usage. */
async function measureExtraction(ctx: BenchContext, pdfs: string[]) {
  const [extracted, one, two] = await fastestOf(ctx, [
    { kind: 'extract', pdfs, threads: 2 },
    { kind: 'pdftotext', pdfs, parallel: 1 },
    { kind: 'pdftotext', pdfs, parallel: 2 },
  ]);
  const own = ownUsage(pdfs);
  const cpuNote = `rge ${extracted.cpuSeconds.toFixed(1)} CPU-s${own ? `, pdftotext ${own.cpuSeconds.toFixed(1)} CPU-s` : ''}`;
  return { extracted, one, two, own, pages: extracted.pages ?? 0, cpuNote };
}

/** The two rows of an extraction measurement: against pdftotext one at a time (`note`), and two at a time. */
function extractionRows(
  name: string,
  m: Awaited<ReturnType<typeof measureExtraction>>,
  note: string,
): BenchRow[] {
  const rate = m.pages / m.extracted.seconds;
  return [
    throughputRow(
      name,
      'pages/s',
      rate,
      { name: 'pdftotext, one at a time', value: m.pages / m.one.seconds },
      note,
    ),
    throughputRow(name, 'pages/s', rate, {
      name: 'pdftotext, two at a time',
      value: m.pages / m.two.seconds,
    }),
  ];
}

async function synthetic(ctx: BenchContext): Promise<BenchRow[]> {
  const extractName = 'extraction, 20 synthetic reports, 2 threads';
  const ingestName = 'cold ingest, 20 synthetic reports (bm25: extract, chunk, index)';
  if (!hasPdftotext())
    return [extractName, ingestName].map((n) =>
      skippedRow(n, 's', 'pdftotext (poppler-utils) not installed'),
    );
  const target = ctx.quick ? 100 : 6000;
  const g0 = performance.now();
  const docs = await syntheticCorpus(join(ctx.tmp, 'synthetic-pdfs'), target);
  const pdfs = docs.map((d) => d.path);
  ctx.log(
    `${docs.length} synthetic reports for ~${target} chunks, generated in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
  );

  const m = await measureExtraction(ctx, pdfs);
  const { extracted, one, two, own, pages } = m;
  ctx.log(
    `extraction: ${extracted.seconds.toFixed(1)} s wall, ${extracted.cpuSeconds.toFixed(1)} CPU-s, ${pages} pages; ` +
      `pdftotext one at a time ${one.seconds.toFixed(1)} s, two at a time ${two.seconds.toFixed(1)} s` +
      (own ? ` (its own CPU ${own.cpuSeconds.toFixed(1)} s, peak RSS ${own.maxRssMb.toFixed(0)} MB)` : ''),
  );
  const rows = extractionRows(
    extractName,
    m,
    `goal ratio >= 0.8; ${docs.length} PDFs, ${pages} pages; fastest of ${ctx.quick ? 1 : REPEATS} interleaved runs each; ${m.cpuNote}`,
  );

  /** A cold ingest of the corpus into its own cache and index, on `threads` (default: the machine's cores). */
  const ingestJob = (suffix: string, threads?: number): ChildJob => ({
    kind: 'ingest',
    docs,
    cacheDir: join(ctx.tmp, `synthetic-cache${suffix}`),
    indexDir: join(ctx.tmp, `synthetic-index${suffix}`),
    embedder: 'bm25',
    embedderOptions: {},
    ...(threads !== undefined ? { threads } : {}),
  });
  const ingested = await inChild(ctx, ingestJob(''));
  ctx.log(
    `cold ingest: ${ingested.seconds.toFixed(1)} s wall, ${ingested.cpuSeconds.toFixed(1)} CPU-s, ${ingested.chunks} chunks, ` +
      `peak RSS ${ingested.maxRssMb.toFixed(0)} MB; ${split(ingested.timings)}`,
  );
  const note = `${docs.length} PDFs, ${ingested.pages} pages, ${ingested.chunks} chunks`;
  rows.push(
    latencyRow(
      ingestName,
      's',
      ingested.seconds,
      { name: 'pdftotext, one at a time', value: one.seconds },
      `${note}; ${ingested.cpuSeconds.toFixed(1)} CPU-s; ${split(ingested.timings)}`,
    ),
    latencyRow(
      '  its peak RSS',
      'MB',
      ingested.maxRssMb,
      { name: 'the same child script running pdftotext', value: one.maxRssMb },
      `goal ratio >= 0.5 (within 2x); ${note}` +
        (own ? `; pdftotext's own peak RSS ${own.maxRssMb.toFixed(0)} MB` : ''),
    ),
  );

  // the memory knob for a small machine: the same cold ingest on one worker thread
  const single = await inChild(ctx, ingestJob('-1', 1));
  ctx.log(
    `cold ingest, 1 thread: ${single.seconds.toFixed(1)} s wall, ${single.cpuSeconds.toFixed(1)} CPU-s, peak RSS ${single.maxRssMb.toFixed(0)} MB`,
  );
  rows.push(
    latencyRow(
      'cold ingest, 1 thread (rge corpus ingest --threads 1)',
      's',
      single.seconds,
      { name: `the same on ${ingested.timings?.threads ?? 'the default'} threads`, value: ingested.seconds },
      `${note}; ${single.cpuSeconds.toFixed(1)} CPU-s`,
    ),
    latencyRow(
      '  its peak RSS',
      'MB',
      single.maxRssMb,
      { name: 'the same child script running pdftotext', value: one.maxRssMb },
      'a knob for small machines, not the goal measurement (the default threads, above)',
    ),
  );
  return rows;
}

/** The real filings in a fixed order: the Indian annual reports, then the FinanceBench filings. */
function realDocuments(shared: string): IngestDocument[] {
  const list = (dir: string) =>
    existsSync(join(shared, dir))
      ? readdirSync(join(shared, dir))
          .filter((f) => f.toLowerCase().endsWith('.pdf'))
          .sort()
          .map((f) => join(shared, dir, f))
      : [];
  return [...list('indian'), ...list('financebench/pdfs')].map((path) => ({
    path,
    ...documentIdentity(path),
  }));
}

/**
 * Extraction of the real filings of ../shared (the Indian reports and FinanceBench's 10-Ks; the two
 * smallest with --quick) against pdftotext on the same PDFs: the synthetic reports are set in one
 * standard font with no images, which poppler reads about 4 times faster a page than a real report,
 * so their ratio is not the one the published run's reports give.
 */
async function realExtraction(ctx: BenchContext): Promise<BenchRow[]> {
  const name = 'extraction, real filings of ../shared, 2 threads';
  if (!ctx.sharedCorpus) return [skippedRow(name, 'pages/s', '../shared/corpus absent')];
  if (!hasPdftotext()) return [skippedRow(name, 'pages/s', 'pdftotext (poppler-utils) not installed')];
  let pdfs = realDocuments(ctx.sharedCorpus).map((d) => d.path);
  if (ctx.quick) {
    const size = (p: string) => statSync(p).size;
    pdfs = [...pdfs].sort((a, b) => size(a) - size(b)).slice(0, 2);
  }
  const m = await measureExtraction(ctx, pdfs);
  const { extracted, one, two, pages } = m;
  ctx.log(
    `real filings: ${pdfs.length} PDFs, ${pages} pages, extraction ${extracted.seconds.toFixed(1)} s wall, ` +
      `${extracted.cpuSeconds.toFixed(1)} CPU-s, peak RSS ${extracted.maxRssMb.toFixed(0)} MB; pdftotext one at a time ` +
      `${one.seconds.toFixed(1)} s (peak RSS ${one.maxRssMb.toFixed(0)} MB), two at a time ${two.seconds.toFixed(1)} s`,
  );
  return extractionRows(
    name,
    m,
    `${pdfs.length} PDFs, ${pages} pages; fastest of ${ctx.quick ? 1 : REPEATS} interleaved runs each; ${m.cpuNote}; ` +
      `peak RSS ${extracted.maxRssMb.toFixed(0)} MB against ${one.maxRssMb.toFixed(0)} MB`,
  );
}

async function realChunks(ctx: BenchContext): Promise<BenchRow[]> {
  const fromEnv = Number(process.env.RGE_BENCH_REAL_CHUNKS);
  const target = Number.isFinite(fromEnv) && fromEnv > 0 ? Math.floor(fromEnv) : ctx.quick ? 150 : 2500;
  const embedder = await defaultEmbedder(ctx);
  const name = `cold ingest, ${target.toLocaleString('en')} real-report chunks (${embedder.name}, from ${embedder.source})`;
  if (!ctx.sharedCorpus) return [skippedRow(name, 's', '../shared/corpus absent')];
  const docs = realDocuments(ctx.sharedCorpus);
  const r = await inChild(ctx, {
    kind: 'ingest-chunks',
    docs,
    chunks: target,
    cacheDir: join(ctx.tmp, 'real-cache'),
    indexDir: join(ctx.tmp, 'real-index'),
    embedder: embedder.name,
    embedderOptions: embedder.options,
  });
  ctx.log(
    `real filings: ${r.seconds.toFixed(1)} s wall, ${r.cpuSeconds.toFixed(1)} CPU-s, ${r.chunks} chunks of ${r.documents} ` +
      `filings (${r.pages} pages), ${r.embedded} embedded, peak RSS ${r.maxRssMb.toFixed(0)} MB; ${split(r.timings)}`,
  );
  if ((r.chunks ?? 0) < target) ctx.log(`only ${r.chunks} chunks in the real filings here`);
  const goal = (REAL_GOAL_SECONDS * (r.chunks ?? target)) / 2500;
  return [
    latencyRow(
      name,
      's',
      r.seconds,
      { name: `goal (5 minutes for 2,500 chunks)`, value: goal },
      `ratio >= 1 meets the goal; ../shared/corpus: ${r.documents} filings, ${r.pages} pages; ` +
        `${r.cpuSeconds.toFixed(1)} CPU-s; ${split(r.timings)}`,
    ),
  ];
}

async function warmReingest(ctx: BenchContext): Promise<BenchRow[]> {
  const embedder = await defaultEmbedder(ctx);
  const name = `warm re-ingest (${embedder.name})`;
  if (!ctx.sharedCorpus) return [skippedRow(name, 's', '../shared/corpus absent')];
  const docs: IngestDocument[] = (ctx.quick ? WARM_FILES.slice(0, 1) : WARM_FILES)
    .map((f) => join(ctx.sharedCorpus as string, f))
    .filter((p) => existsSync(p))
    .map((path) => ({ path, ...documentIdentity(path) }));
  if (docs.length === 0) return [skippedRow(name, 's', 'no filings of the list in ../shared/corpus')];
  const cacheDir = join(ctx.tmp, 'warm-cache');
  const timed = async (label: string) => {
    const t0 = performance.now();
    const report = await ingest(docs, {
      indexDir: join(ctx.tmp, `warm-index-${label}`),
      embedder: embedder.name,
      embedderOptions: embedder.options,
      cacheDir,
    });
    const seconds = (performance.now() - t0) / 1000;
    ctx.log(`${label}: ${seconds.toFixed(2)} s, ${report.chunks} chunks, ${report.index?.embedded} embedded`);
    return { seconds, report };
  };
  const cold = await timed('cold');
  const warm = await timed('warm');
  if (warm.report.index?.embedded !== 0 && warm.report.index?.embedder !== 'bm25')
    throw new Error('warm re-ingest embedded passages: the cache missed');
  if (warm.report.index?.checksum !== cold.report.index?.checksum)
    throw new Error('warm and cold checksums differ');
  return [
    latencyRow(
      name,
      's',
      warm.seconds,
      { name: 'cold ingest', value: cold.seconds },
      `${docs.length} filings, ${cold.report.chunks} chunks; warm: pages from the cache, ${warm.report.index?.cached} vectors from the cache`,
    ),
  ];
}

const bench: Bench = async (ctx) => [
  ...(await synthetic(ctx)),
  ...(await realExtraction(ctx)),
  ...(await realChunks(ctx)),
  ...(await warmReingest(ctx)),
];

export default bench;
