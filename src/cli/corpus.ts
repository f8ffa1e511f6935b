import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import type { IngestDocument } from '../ingest/documents.ts';
import type { IngestReport } from '../ingest/ingest.ts';
import type { EmbedderName, EmbedderOptions } from '../retrieval/index.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import type { Progress } from '../util/progress.ts';
import { registerFetchCommand } from './corpus-fetch.ts';
import { type CliIO, existingPath, nonNegativeInteger, positiveInteger } from './io.ts';
import { forbidDownloads, OFFLINE_FLAG, OFFLINE_HELP } from './offline.ts';

export const DEFAULTS = {
  sources: 'data/corpus/sources.yaml',
  pdfDir: 'data/corpus/pdfs',
  index: 'data/index',
  /** DEFAULT_CACHE_DIR of src/run/config/corpus-index.ts, here so that `--help` loads no ingest code (test/cli/startup.test.ts) */
  cacheDir: '.cache/rge',
  /** the best offline retriever measured on real filings (docs/adr/0020-offline-retriever.md) */
  embedder: 'bm25',
};

interface IngestFlags {
  config?: string;
  /** from --config: the embedder's settings (hybrid fusion) */
  embedderOptions?: EmbedderOptions;
  chunkTokens?: string;
  overlapTokens?: string;
  sources: string;
  pdfDir: string;
  pdfs?: string;
  companyFrom?: string;
  index: string;
  embedder: EmbedderName;
  cacheDir: string;
  tables: 'auto' | 'always' | 'never';
  threads?: string;
  allowFailures?: boolean;
  json?: boolean;
  quiet?: boolean;
}

export function registerCorpusCommands(program: Command, io: CliIO): void {
  const corpus = program.command('corpus').description('fetch, verify and ingest the document corpus');
  registerFetchCommand(corpus, io);
  corpus
    .command('ingest')
    .description(
      'extract pages, chunk (800 cl100k tokens, 100 overlap), embed and index the corpus; ' +
        'from sources.yaml, or from every PDF of a folder with --pdfs',
    )
    .option(
      '--config <file>',
      'build the index a run config names: its sources, pdfs, index, embedder, chunking and tables (flags given override); a generated corpus is (re)built',
    )
    .option('--sources <file>', 'sources file listing the documents', DEFAULTS.sources)
    .option('--pdf-dir <dir>', 'where the fetched PDFs of the sources file are', DEFAULTS.pdfDir)
    .option(
      '--pdfs <dir>',
      "ingest every PDF of this folder instead (company from the folder's companies.yaml, else the file name stem)",
    )
    .option(
      '--company-from <file>',
      "with --pdfs: company (and fy) of each file, a CSV file,company[,fy] or a YAML map (instead of the folder's companies.yaml)",
    )
    .option('--index <dir>', 'index folder to write', DEFAULTS.index)
    .option(
      '--embedder <name>',
      'bm25 | use-lite | hybrid (bm25 and use-lite fused by reciprocal rank) | bge-m3',
      DEFAULTS.embedder,
    )
    .option('--cache-dir <dir>', 'cache of extracted pages and embeddings', DEFAULTS.cacheDir)
    .option('--chunk-tokens <n>', 'chunk size in cl100k tokens (default 800)')
    .option('--overlap-tokens <n>', 'overlap between consecutive chunks in tokens (default 100)')
    .addOption(
      new Option('--tables <mode>', 'table-aware extraction: auto (per page), always, never')
        .choices(['auto', 'always', 'never'])
        .default('auto'),
    )
    .option(
      '--threads <n>',
      "worker threads that extract and chunk (default: the machine's cores); fewer use less memory and take longer",
    )
    .option('--allow-failures', 'exit 0 even when some documents could not be ingested')
    .option('--json', 'print the ingest report as JSON')
    .option('-q, --quiet', 'no progress output')
    .option(OFFLINE_FLAG, OFFLINE_HELP)
    .action(async (flags: IngestFlags, cmd: Command) => {
      if (flags.config) {
        const fromConfig = await ingestFlagsFromConfig(flags, cmd, io);
        if (fromConfig === 'generated') return;
        flags = fromConfig;
      }
      const report = await runIngest(flags, io);
      if (flags.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
      else io.out(formatIngestReport(report));
      if ((report.failed > 0 && !flags.allowFailures) || report.index === null)
        throw new RgeError(ingestFailure(report));
    });
}

async function runIngest(flags: IngestFlags, io: CliIO): Promise<IngestReport> {
  const { isEmbedderName } = await import('../retrieval/index.ts');
  const { documentsFromFolder, documentsFromSources } = await import('../ingest/documents.ts');
  const { ingest } = await import('../ingest/ingest.ts');
  const { loadSources } = await import('../corpus/sources.ts');
  const { CHUNK_TOKENS, OVERLAP_TOKENS } = await import('../corpus/chunk.ts');
  const { createProgress } = await import('../util/progress.ts');
  if (!isEmbedderName(flags.embedder)) {
    throw new UsageError(`unknown embedder "${flags.embedder}" (use-lite, bge-m3, bm25 or hybrid)`);
  }
  const at = (p: string) => resolve(io.cwd, p);
  const threads = positiveInteger('threads', flags.threads);
  let docs: IngestDocument[];
  if (flags.companyFrom !== undefined && !flags.pdfs)
    throw new UsageError('--company-from names the companies of a --pdfs folder; give --pdfs too');
  if (flags.companyFrom !== undefined && !existsSync(at(flags.companyFrom)))
    throw new UsageError('--company-from: no such file', { file: at(flags.companyFrom) });
  if (flags.pdfs)
    docs = await documentsFromFolder(
      existingPath(io.cwd, '--pdfs', flags.pdfs, 'folder'),
      flags.companyFrom === undefined ? {} : { companies: at(flags.companyFrom) },
    );
  else docs = documentsFromSources((await loadSources(at(flags.sources))).documents, at(flags.pdfDir));

  const bars = new Map<string, Progress>();
  const stageLabels = { extract: 'extract', chunk: 'chunk', embed: 'embed' } as const;
  const chunkTokens = positiveInteger('chunk-tokens', flags.chunkTokens) ?? CHUNK_TOKENS;
  const overlapTokens = nonNegativeInteger('overlap-tokens', flags.overlapTokens) ?? OVERLAP_TOKENS;
  if (overlapTokens >= chunkTokens)
    throw new UsageError(
      `--overlap-tokens (${overlapTokens}) must be less than --chunk-tokens (${chunkTokens})`,
    );
  const report = await ingest(docs, {
    indexDir: at(flags.index),
    embedder: flags.embedder,
    cacheDir: at(flags.cacheDir),
    tables: flags.tables,
    chunking: { maxTokens: chunkTokens, overlapTokens },
    ...(threads !== undefined ? { concurrency: threads } : {}),
    ...(flags.embedderOptions ? { embedderOptions: flags.embedderOptions } : {}),
    onStage: (stage, done, total, label) => {
      if (flags.quiet || stage === 'chunk') return;
      let bar = bars.get(stage);
      if (!bar) {
        bar = createProgress({ total, label: stageLabels[stage] });
        bars.set(stage, bar);
      }
      bar.set(done, label);
      if (done >= total) bar.done();
    },
  });
  return report;
}

/**
 * `--config`: the corpus flags a run config implies, flags given on the command line winning. A
 * generated corpus (the fixture world) is built or rebuilt here to match the config ('generated').
 */
async function ingestFlagsFromConfig(
  flags: IngestFlags,
  cmd: Command,
  io: CliIO,
): Promise<IngestFlags | 'generated'> {
  const at = (p: string) => resolve(io.cwd, p);
  const configFile = at(flags.config as string);
  if (!existsSync(configFile)) throw new UsageError(`no config file ${configFile}`);
  const { loadRunConfig, withCorpus } = await import('../run/config/config.ts');
  const { corpusEmbedderOptions } = await import('../retrieval/config.ts');
  const { ensureCorpusIndex } = await import('../run/config/corpus-index.ts');
  const config = withCorpus(
    await loadRunConfig(configFile, { root: io.cwd }),
    'rge corpus ingest',
    flags.config,
  );
  const given = (name: string) => cmd.getOptionValueSource(name) === 'cli';
  const c = config.corpus;
  // corpus.allow_download: false forbids model downloads as --offline does
  if (!c.allow_download) forbidDownloads();
  if (c.generated_from) {
    const { createProgress } = await import('../util/progress.ts');
    const rebuilt = await ensureCorpusIndex(config, at, {
      cacheDir: flags.cacheDir,
      // asked to ingest this config's corpus: an index of other settings there is rebuilt
      replace: true,
      log: (line) => io.err(`${line}\n`),
      // a bar on a terminal, plain lines with an ETA otherwise; nothing under --quiet
      progress: (stage, total) => createProgress({ total, label: stage, quiet: flags.quiet ?? false }),
    });
    io.out(
      `${rebuilt ? 'built' : 'up to date:'} ${c.index} (${c.embedder}, ${c.chunk_tokens}/${c.overlap_tokens} tokens, generated from ${c.generated_from})\n`,
    );
    return 'generated';
  }
  return {
    ...flags,
    sources: given('sources') ? flags.sources : (c.sources ?? flags.sources),
    pdfDir: given('pdfDir') ? flags.pdfDir : c.pdfs,
    index: given('index') ? flags.index : c.index,
    embedder: given('embedder') ? flags.embedder : c.embedder,
    chunkTokens: given('chunkTokens') ? flags.chunkTokens : String(c.chunk_tokens),
    overlapTokens: given('overlapTokens') ? flags.overlapTokens : String(c.overlap_tokens),
    tables: given('tables') ? flags.tables : c.tables,
    embedderOptions: corpusEmbedderOptions(c),
  };
}

/** The one error line of an ingest with failed documents: the first (its file and why) and how many. */
function ingestFailure(report: IngestReport): string {
  const failed = report.documents.filter((d) => d.status === 'failed');
  const of = `${failed.length} of ${report.documents.length} document(s) failed`;
  const outcome =
    report.index === null ? 'no index written' : 'the others are indexed; --allow-failures accepts this';
  return `${failed[0]?.error ?? 'no document'} (${of}${failed.length > 1 ? ', listed above' : ''}; ${outcome})`;
}

export function formatIngestReport(report: IngestReport): string {
  const lines: string[] = [];
  for (const d of report.documents) {
    if (d.status === 'failed') lines.push(`FAILED  ${d.source}: ${d.error}`);
    else
      lines.push(
        `ok      ${d.source} (${d.companyName ? `${d.companyName}, ` : ''}${d.company}${d.fy ? ` ${d.fy}` : ''}): ${d.pages} pages (${d.tablePages} via table layout), ${d.chunks} chunks${d.fromCache ? ', pages from cache' : ''}`,
      );
  }
  const ok = report.documents.length - report.failed;
  lines.push(`${ok}/${report.documents.length} documents ingested, ${report.chunks} chunks`);
  if (report.duplicateChunks > 0) lines.push(`${report.duplicateChunks} duplicate chunks dropped`);
  if (report.index) {
    lines.push(
      `index ${report.index.dir} (${report.index.embedder}): ${report.index.embedded} embedded, ${report.index.cached} from cache`,
    );
    lines.push(`index checksum ${report.index.checksum}`);
  } else lines.push('no index written: no document could be ingested');
  return `${lines.join('\n')}\n`;
}
