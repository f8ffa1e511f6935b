import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Index, IndexManifest, RetrieveOptions } from '../retrieval/index.ts';
import { UsageError } from '../util/errors.ts';
import { type CliIO, existingPath } from './io.ts';
import { OFFLINE_FLAG, OFFLINE_HELP } from './offline.ts';

const DEFAULT_INDEX = 'data/index';

/** The --index folder: one given on the command line must exist (exit 2); the default may be unbuilt. */
const indexDir = (io: CliIO, index: string) =>
  index === DEFAULT_INDEX ? resolve(io.cwd, index) : existingPath(io.cwd, '--index', index, 'folder');

function parseK(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--k must be a positive integer, got "${raw}"`);
  return Number(raw);
}

function parseWidth(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--width must be a positive integer, got "${raw}"`);
  return Number(raw);
}

function parsePage(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--explain-page must be a positive integer, got "${raw}"`);
  return Number(raw);
}

function parseFy(raw: string): string {
  const fy = raw.toUpperCase();
  if (!/^FY\d{2}$/.test(fy)) throw new UsageError(`--fy must look like FY24, got "${raw}"`);
  return fy;
}

function score(x: number): string {
  return x.toFixed(4);
}

function pages(c: { pages: readonly [number, number] }): string {
  return c.pages[0] === c.pages[1] ? `p. ${c.pages[0]}` : `pp. ${c.pages[0]}-${c.pages[1]}`;
}

/** company slug -> display name, from the index's documents (given by companies.yaml or --company-from) */
function companyNames(manifest: IndexManifest): Map<string, string> {
  const names = new Map<string, string>();
  for (const d of manifest.corpus?.documents ?? []) if (d.companyName) names.set(d.company, d.companyName);
  return names;
}

/** `rge retrieve --explain`: the scope and query terms, then each chunk with why it ranked. */
async function explainRetrieval(
  io: CliIO,
  idx: Index,
  question: string,
  filters: RetrieveOptions,
  opts: { json?: boolean; explainChunk?: string[]; explainPage?: number },
): Promise<void> {
  const { formatChunkExplanation, formatExplanationHead } = await import('../retrieval/explain.ts');
  // the page of the ranked scope, or, when every company was ranked, of the companies the question names
  const scope = idx.scopeOf(question, filters);
  const pageScope =
    scope.companies || scope.named.companies.length === 0
      ? scope
      : { ...scope, companies: scope.named.companies };
  const onPage = opts.explainPage === undefined ? [] : idx.chunksOnPage(opts.explainPage, pageScope);
  if (opts.explainPage !== undefined && onPage.length === 0)
    throw new UsageError(`no chunk in the ranked scope covers page ${opts.explainPage}`);
  const explanation = await idx.explain(question, {
    ...filters,
    chunkIds: [...(opts.explainChunk ?? []), ...onPage],
  });
  if (opts.json) {
    io.out(`${JSON.stringify(explanation, null, 2)}\n`);
    return;
  }
  const out = formatExplanationHead(explanation);
  const k = filters.k ?? 5;
  for (const c of explanation.chunks) {
    const place = c.rank !== null && c.rank <= k ? `${c.rank}.` : `(rank ${c.rank ?? 'none'})`;
    out.push(
      `${place} ${c.id}  ${pages(c)}  score ${c.score === null ? '-' : score(c.score)}`,
      `   ${c.company}${c.fy ? ` ${c.fy}` : ''} · ${c.heading ?? '(no heading)'}`,
      ...formatChunkExplanation(c),
    );
  }
  io.out(`${out.join('\n')}\n`);
}

export function registerRetrievalCommands(program: Command, io: CliIO): void {
  const index = program
    .command('index')
    .description('inspect the retrieval index (built by `rge corpus ingest`)');
  registerChecksumCommand(index, io);
  registerRetrieveCommand(program, io);
}

function registerChecksumCommand(index: Command, io: CliIO): void {
  index
    .command('checksum')
    .description('print the index checksum: sha256 over the embedder id, the chunk ids and their vectors')
    .option('--index <dir>', 'index folder', DEFAULT_INDEX)
    .option('--verify', 'recompute the checksum from the stored vectors; exit 1 on mismatch')
    .action((opts: { index: string; verify?: boolean }) => checksumAction(io, opts));
}

async function checksumAction(io: CliIO, opts: { index: string; verify?: boolean }): Promise<void> {
  const { openIndex, verifyIndex } = await import('../retrieval/index.ts');
  const dir = indexDir(io, opts.index);
  if (!opts.verify) {
    const idx = await openIndex(dir);
    io.out(`${idx.checksum}\n`);
    return;
  }
  const result = await verifyIndex(dir);
  if (result.ok) {
    io.out(`${result.stored}\nok: recomputed checksum matches\n`);
    return;
  }
  io.out(`${result.stored}\n`);
  for (const p of result.problems) io.err(`rge: ${dir}: ${p}\n`);
  io.exitCode = 1;
}

interface RetrieveFlags {
  index: string;
  k: number;
  company?: string;
  fy?: string;
  modelDir?: string;
  json?: boolean;
  width: number;
  color?: boolean;
  explain?: boolean;
  explainChunk?: string[];
  explainPage?: number;
  scope?: boolean;
}

function registerRetrieveCommand(program: Command, io: CliIO): void {
  program
    .command('retrieve')
    .description('print the chunks the index retrieves for a question, best first')
    .argument('<question>', 'the question, in quotes')
    .option('--index <dir>', 'index folder', DEFAULT_INDEX)
    .option('--k <n>', 'how many chunks', parseK, 5)
    .option('--company <slug>', 'only chunks of this company, e.g. hdfc-bank')
    .option('--fy <FY>', 'only chunks of this fiscal year, e.g. FY24', parseFy)
    .option(
      '--model-dir <dir>',
      'bge-m3 indexes: folder with the Xenova/bge-m3 files (or env RGE_BGE_M3_DIR)',
    )
    .option('--json', 'print a JSON array instead of text')
    .option(
      '--explain',
      'say why each chunk ranked: the scope, matched terms and fields, lexical and dense ranks',
    )
    .option(
      '--explain-chunk <id>',
      'with --explain: also explain this chunk (repeatable), e.g. the one that held the evidence',
      (id: string, ids: string[] = []) => [...ids, id],
    )
    .option(
      '--explain-page <n>',
      'with --explain: also explain the chunks that cover page n (of --company, else of the companies the question names)',
      parsePage,
    )
    .option(
      '--scope',
      'rank only the chunks of the company and fiscal year the question names (off in eval runs: see ADR 0020)',
    )
    .option(
      '--width <n>',
      'characters of each chunk to show around its best match (default 300)',
      parseWidth,
      300,
    )
    .option('--color', "mark the question's words in bold (the default on a terminal; else **word**)")
    .option('--no-color', "mark the question's words as **word** even on a terminal")
    .option(OFFLINE_FLAG, OFFLINE_HELP)
    .action((question: string, opts: RetrieveFlags) => retrieveAction(io, question, opts));
}

async function retrieveAction(io: CliIO, question: string, opts: RetrieveFlags): Promise<void> {
  if (question.trim() === '') throw new UsageError('the question is empty');
  if ((opts.explainChunk || opts.explainPage) && !opts.explain)
    throw new UsageError('--explain-chunk and --explain-page go with --explain');
  const { openIndex } = await import('../retrieval/index.ts');
  const idx = await openIndex(indexDir(io, opts.index), {
    embedderOptions: opts.modelDir ? { modelDir: resolve(io.cwd, opts.modelDir) } : {},
  });
  const filters = { k: opts.k, company: opts.company, fy: opts.fy, questionScope: opts.scope === true };
  if (opts.explain) {
    await explainRetrieval(io, idx, question, filters, opts);
    return;
  }
  const hits = await idx.retrieve(question, filters);
  if (opts.json) {
    const rows = hits.map((c) => ({
      id: c.id,
      company: c.company,
      fy: c.fy,
      source: c.source,
      heading: c.heading,
      pages: [c.pages[0], c.pages[1]],
      score: c.score,
      text: c.text,
    }));
    io.out(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (hits.length === 0) {
    io.out('no chunks matched\n');
    return;
  }
  await printHits(io, idx, question, hits, opts);
}

/** Each chunk retrieved: rank, id, pages and score; whose report and which heading; an excerpt. */
async function printHits(
  io: CliIO,
  idx: Index,
  question: string,
  hits: Awaited<ReturnType<Index['retrieve']>>,
  opts: { color?: boolean; width: number },
): Promise<void> {
  const { ansiBoldMark, excerpt, markdownMark } = await import('../retrieval/excerpt.ts');
  const env = io.env ?? process.env;
  const bold = opts.color ?? (Boolean(process.stdout.isTTY) && !env.CI && env.NO_COLOR === undefined);
  const mark = bold ? ansiBoldMark : markdownMark;
  const names = companyNames(idx.manifest);
  hits.forEach((c, i) => {
    const company = names.get(c.company);
    const who = `${company ? `${company} (${c.company})` : c.company}${c.fy ? ` ${c.fy}` : ''}`;
    io.out(
      `${i + 1}. ${c.id}  ${pages(c)}  score ${score(c.score)}\n` +
        `   ${who} · ${c.heading ?? '(no heading)'}\n` +
        `   ${excerpt(c.text, question, { width: opts.width, mark })}\n`,
    );
  });
}
