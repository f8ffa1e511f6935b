/**
 * Two ingest measurements.
 *
 * Warm re-ingest against cold: the same real filings ingested into a fresh cache (extract, chunk, embed
 * every passage with use-lite, write the index), then again with that cache (pages and vectors reused).
 * The ratio is how much faster an unchanged corpus re-ingests; the warm run must embed nothing.
 *
 * Cold ingest of a synthetic corpus shaped like the 20-report one (20 PDFs, ~6,000 chunks at full
 * size): `ingest` with the offline default embedder (use-lite) into a fresh cache, in a child process
 * so that its peak RSS (`process.resourceUsage().maxRSS`) is the ingest's own; peak heap is sampled.
 * The reference, in another child process of the same run, is the least a cold ingest must do: the
 * raw @energetic-ai `model.embed` on the same chunks' windows (16 passages a call), plus `pdftotext`
 * on the same PDFs when it is installed. use-lite costs ~0.1-0.3 s a window on a shared core, so the
 * full size takes hours: the default is 60 chunks (20 with --quick); RGE_BENCH_INGEST_CHUNKS=6000 sets
 * the full size.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import PDFDocument from 'pdfkit';
import seedrandom from 'seedrandom';
import { documentIdentity } from '../src/corpus/naming.ts';
import { type IngestDocument, ingest, prepareCorpus } from '../src/ingest/ingest.ts';
import { passageText } from '../src/retrieval/index.ts';
import { type Bench, type BenchRow, latencyRow } from './harness.ts';

const FILES = [
  'indian/Infosys_Q4FY24_Condensed_Consolidated_IndAS_FS.pdf',
  'indian/concall_indusind_bank_Q3FY25.pdf',
  'financebench/pdfs/AMCOR_2023Q2_10Q.pdf',
];

const REPORTS = 20;
/** cl100k tokens of prose a page: about the new text of one 800-token chunk with 100 overlap. */
const PAGE_TOKENS = 700;
const RAW_PASSAGES_PER_CALL = 16;

const SECTIONS = [
  'MANAGEMENT DISCUSSION AND ANALYSIS',
  "DIRECTORS' REPORT",
  'RISK MANAGEMENT',
  'CORPORATE GOVERNANCE',
  'BUSINESS RESPONSIBILITY AND SUSTAINABILITY',
  'NOTES TO THE FINANCIAL STATEMENTS',
];
const SENTENCES = [
  'Revenue from operations grew {p}% to ₹{n} crore, driven by higher volumes across segments.',
  'The Board recommended a final dividend of ₹{d} per equity share for the financial year.',
  'Gross non-performing assets stood at {d}% of gross advances as of March 31, 2024.',
  'EBITDA margin improved by {d} basis points owing to operating leverage and cost discipline.',
  'The company added {n} employees during the year and attrition declined to {p}%.',
  'Capital expenditure of ₹{n} crore was incurred on new hubs, vehicles and technology.',
  'Key risks include fuel price volatility, regulatory changes and competitive intensity.',
  'CSR spend amounted to ₹{d} crore under programmes for education, health and rural development.',
];

/** One page of seeded report prose (PAGE_TOKENS cl100k tokens), in paragraphs. */
function pageProse(rng: () => number): string[] {
  const paragraphs: string[] = [];
  let sentences: string[] = [];
  let tokens = 0;
  while (tokens < PAGE_TOKENS) {
    const s = (SENTENCES[Math.floor(rng() * SENTENCES.length)] as string)
      .replace('{p}', (rng() * 40).toFixed(1))
      .replace('{d}', (rng() * 100).toFixed(2))
      .replace('{n}', Math.floor(rng() * 99_999).toLocaleString('en-IN'));
    sentences.push(s);
    tokens += encode(s).length;
    if (sentences.length >= 6) {
      paragraphs.push(sentences.join(' '));
      sentences = [];
    }
  }
  if (sentences.length > 0) paragraphs.push(sentences.join(' '));
  return paragraphs;
}

/** A report of `pages` pages, each a numbered section heading then prose; fixed dates, no compression. */
function syntheticReport(seed: string, pages: number): Promise<Buffer> {
  const rng = seedrandom(seed);
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: false,
    info: { Title: seed, Producer: 'rge bench', CreationDate: new Date(Date.UTC(2024, 3, 1)) },
  });
  const parts: Buffer[] = [];
  doc.on('data', (c: Buffer) => parts.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
  });
  for (let p = 0; p < pages; p++) {
    doc.addPage({ size: 'A4', margin: 56 });
    const heading = `${p + 1}. ${SECTIONS[p % SECTIONS.length]}`;
    doc.font('Helvetica-Bold').fontSize(13).text(heading, { width: 483 });
    doc.moveDown(0.3);
    for (const para of pageProse(rng)) {
      doc.font('Helvetica').fontSize(10).text(para, { width: 483 });
      doc.moveDown(0.5);
    }
  }
  doc.end();
  return done;
}

/** The synthetic corpus: REPORTS PDFs with about `chunks` chunks in all. */
async function syntheticCorpus(dir: string, chunks: number): Promise<IngestDocument[]> {
  await mkdir(dir, { recursive: true });
  const pages = Math.max(1, Math.ceil(chunks / REPORTS));
  const docs: IngestDocument[] = [];
  for (let r = 0; r < REPORTS; r++) {
    const fy = r % 2 === 0 ? 'FY2023-24' : 'FY2022-23';
    const path = join(dir, `Synthetic_Company_${String(r + 1).padStart(2, '0')}_Annual_Report_${fy}.pdf`);
    await writeFile(path, await syntheticReport(`rge-ingest-bench-${r}`, pages));
    docs.push({ path, ...documentIdentity(path) });
  }
  return docs;
}

// ---------------------------------------------------------------------------------------------
// the child processes

interface ChildResult {
  seconds: number;
  /** peak resident set of the child process (resourceUsage().maxRSS), MB */
  maxRssMb: number;
  /** peak V8 heap used, sampled every 25 ms, MB */
  peakHeapMb: number;
  /** ingest: extraction and chunking; reference: pdftotext (null when not installed) */
  extractSeconds?: number | null;
  chunks?: number;
  embedded?: number;
  windows?: number;
}

type ChildJob =
  | {
      kind: 'ingest';
      docs: IngestDocument[];
      cacheDir: string;
      indexDir: string;
      embedder: 'use-lite' | 'bm25';
    }
  | { kind: 'pdftotext'; pdfs: string[] }
  | { kind: 'reference'; pdfs: string[]; passagesFile: string };

function hasPdftotext(): boolean {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function runChildJob(job: ChildJob): Promise<ChildResult> {
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 25);
  const t0 = performance.now();
  let extra: Partial<ChildResult> = {};
  if (job.kind === 'ingest') {
    let embedFrom: number | null = null;
    const report = await ingest(job.docs, {
      indexDir: job.indexDir,
      embedder: job.embedder,
      cacheDir: job.cacheDir,
      onStage: (stage) => {
        if (stage !== 'extract' && embedFrom === null) embedFrom = performance.now();
      },
    });
    if (report.failed > 0) throw new Error(`${report.failed} documents failed to ingest`);
    const extractEnd: number = embedFrom ?? t0;
    extra = {
      chunks: report.chunks,
      embedded: report.index?.embedded ?? 0,
      extractSeconds: (extractEnd - t0) / 1000,
    };
  } else if (job.kind === 'pdftotext') {
    for (const pdf of job.pdfs)
      execFileSync('pdftotext', ['-enc', 'UTF-8', pdf, '-'], { maxBuffer: 1 << 28 });
  } else {
    let extractSeconds: number | null = null;
    if (hasPdftotext()) {
      const e0 = performance.now();
      for (const pdf of job.pdfs)
        execFileSync('pdftotext', ['-enc', 'UTF-8', pdf, '-'], { maxBuffer: 1 << 28 });
      extractSeconds = (performance.now() - e0) / 1000;
    }
    const { loadUseLiteModel, passageWindows } = await import('../src/retrieval/use-lite.ts');
    const passages = JSON.parse(await readFile(job.passagesFile, 'utf8')) as string[];
    const model = await loadUseLiteModel();
    let windows = 0;
    for (let i = 0; i < passages.length; i += RAW_PASSAGES_PER_CALL) {
      const call = passages.slice(i, i + RAW_PASSAGES_PER_CALL).flatMap(passageWindows);
      windows += call.length;
      await model.embed(call);
    }
    extra = { extractSeconds, windows };
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  return {
    seconds,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapMb: peakHeap / 2 ** 20,
    ...extra,
  };
}

const SELF = fileURLToPath(import.meta.url);

/** Runs `job` in a fresh Node process (this file, under tsx) and returns what it measured. */
async function inChild(job: ChildJob, jobFile: string): Promise<ChildResult> {
  await writeFile(jobFile, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--child', jobFile], {
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

if (process.argv[2] === '--child' && process.argv[1] === SELF) {
  const job = JSON.parse(await readFile(process.argv[3] as string, 'utf8')) as ChildJob;
  process.stdout.write(`${JSON.stringify(await runChildJob(job))}\n`);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------

async function coldIngest(ctx: Parameters<Bench>[0]): Promise<BenchRow[]> {
  const fromEnv = Number(process.env.RGE_BENCH_INGEST_CHUNKS);
  const target = Number.isFinite(fromEnv) && fromEnv > 0 ? Math.floor(fromEnv) : ctx.quick ? 20 : 60;
  const g0 = performance.now();
  const docs = await syntheticCorpus(join(ctx.tmp, 'synthetic-pdfs'), target);
  ctx.log(
    `cold ingest: ${docs.length} synthetic reports for ~${target} chunks, generated in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
  );
  const cacheDir = join(ctx.tmp, 'cold-cache');
  const ours = await inChild(
    { kind: 'ingest', docs, cacheDir, indexDir: join(ctx.tmp, 'cold-index'), embedder: 'use-lite' },
    join(ctx.tmp, 'ingest-job.json'),
  );
  ctx.log(
    `cold ingest: ${ours.seconds.toFixed(1)} s (extract + chunk ${ours.extractSeconds?.toFixed(1)} s), ${ours.chunks} chunks (${ours.embedded} embedded), peak RSS ${ours.maxRssMb.toFixed(0)} MB, peak heap ${ours.peakHeapMb.toFixed(0)} MB`,
  );
  // the same chunks, from the page cache the ingest just wrote
  const prepared = await prepareCorpus(docs, { cacheDir });
  if (prepared.chunks.length !== ours.chunks)
    throw new Error("the reference does not see the ingest's chunks");
  const passagesFile = join(ctx.tmp, 'passages.json');
  await writeFile(passagesFile, JSON.stringify(prepared.chunks.map(passageText)));
  const ref = await inChild(
    { kind: 'reference', pdfs: docs.map((d) => d.path), passagesFile },
    join(ctx.tmp, 'reference-job.json'),
  );
  const refName =
    ref.extractSeconds === null
      ? `raw model.embed on the same ${ref.windows} windows (pdftotext not installed)`
      : `pdftotext (${ref.extractSeconds?.toFixed(1)} s) + raw model.embed on the same ${ref.windows} windows`;
  ctx.log(
    `reference: ${ref.seconds.toFixed(1)} s, peak RSS ${ref.maxRssMb.toFixed(0)} MB, peak heap ${ref.peakHeapMb.toFixed(0)} MB`,
  );
  const note = `${docs.length} PDFs, ${ours.chunks} chunks; RGE_BENCH_INGEST_CHUNKS=${target}`;
  return [
    latencyRow(
      'cold ingest, synthetic 20-report corpus (use-lite)',
      's',
      ours.seconds,
      { name: refName, value: ref.seconds },
      note,
    ),
    latencyRow(
      'cold ingest peak RSS',
      'MB',
      ours.maxRssMb,
      { name: 'reference peak RSS', value: ref.maxRssMb },
      note,
    ),
    latencyRow(
      'cold ingest peak heap used (sampled)',
      'MB',
      ours.peakHeapMb,
      { name: 'reference peak heap', value: ref.peakHeapMb },
      note,
    ),
  ];
}

async function warmReingest(ctx: Parameters<Bench>[0]): Promise<BenchRow[]> {
  const name = 'warm re-ingest (use-lite)';
  if (!ctx.sharedCorpus) return [{ ...latencyRow(name, 's', 0, null), skipped: '../shared/corpus absent' }];
  const docs: IngestDocument[] = (ctx.quick ? FILES.slice(0, 1) : FILES)
    .map((f) => join(ctx.sharedCorpus as string, f))
    .filter((p) => existsSync(p))
    .map((path) => ({ path, ...documentIdentity(path) }));
  if (docs.length === 0)
    return [{ ...latencyRow(name, 's', 0, null), skipped: 'no filings of the list in ../shared/corpus' }];
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
}

/**
 * The full corpus size (6,000 chunks; 1,000 with --quick) with bm25, whose embedding costs next to
 * nothing: what is left is extraction, chunking and the index, against `pdftotext` on the same PDFs
 * (the speed reference for extraction), each in its own child process for its peak RSS.
 */
async function coldIngestFullSize(ctx: Parameters<Bench>[0]): Promise<BenchRow[]> {
  const name = 'cold ingest, 20 synthetic reports at full size (bm25: extract, chunk, index)';
  if (!hasPdftotext())
    return [{ ...latencyRow(name, 's', 0, null), skipped: 'pdftotext (poppler-utils) not installed' }];
  const target = ctx.quick ? 1000 : 6000;
  const docs = await syntheticCorpus(join(ctx.tmp, 'full-size-pdfs'), target);
  const ours = await inChild(
    {
      kind: 'ingest',
      docs,
      cacheDir: join(ctx.tmp, 'full-size-cache'),
      indexDir: join(ctx.tmp, 'full-size-index'),
      embedder: 'bm25',
    },
    join(ctx.tmp, 'full-size-job.json'),
  );
  const ref = await inChild(
    { kind: 'pdftotext', pdfs: docs.map((d) => d.path) },
    join(ctx.tmp, 'pdftotext-job.json'),
  );
  ctx.log(
    `full size: ${ours.seconds.toFixed(1)} s for ${ours.chunks} chunks (extract ${ours.extractSeconds?.toFixed(1)} s), peak RSS ${ours.maxRssMb.toFixed(0)} MB; pdftotext ${ref.seconds.toFixed(1)} s`,
  );
  const note = `${docs.length} PDFs, ${ours.chunks} chunks`;
  return [
    latencyRow(name, 's', ours.seconds, { name: 'pdftotext on the same PDFs', value: ref.seconds }, note),
    latencyRow(
      '  its peak RSS',
      'MB',
      ours.maxRssMb,
      { name: 'pdftotext child peak RSS', value: ref.maxRssMb },
      note,
    ),
  ];
}

const bench: Bench = async (ctx) => [
  ...(await warmReingest(ctx)),
  ...(await coldIngest(ctx)),
  ...(await coldIngestFullSize(ctx)),
];

export default bench;
