import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { loadSources } from '../corpus/sources.ts';
import { type EmbedderName, isEmbedderName } from '../retrieval/index.ts';
import { DEFAULT_CACHE_DIR } from '../run/corpus-index.ts';
import {
  documentsFromFolder,
  documentsFromSources,
  type IngestDocument,
  type IngestReport,
  ingest,
} from '../run/ingest.ts';
import { UsageError } from '../util/errors.ts';
import { createProgress, type Progress } from '../util/progress.ts';
import { registerFetchCommand } from './corpus-fetch.ts';
import type { CliIO } from './io.ts';
import { OFFLINE_FLAG, OFFLINE_HELP } from './offline.ts';

export const DEFAULTS = {
  sources: 'data/corpus/sources.yaml',
  pdfDir: 'data/corpus/pdfs',
  index: 'data/index',
  cacheDir: DEFAULT_CACHE_DIR,
  embedder: 'use-lite',
};

interface IngestFlags {
  sources: string;
  pdfDir: string;
  pdfs?: string;
  index: string;
  embedder: EmbedderName;
  cacheDir: string;
  tables: 'auto' | 'always' | 'never';
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
    .option('--sources <file>', 'sources file listing the documents', DEFAULTS.sources)
    .option('--pdf-dir <dir>', 'where the fetched PDFs of the sources file are', DEFAULTS.pdfDir)
    .option('--pdfs <dir>', 'ingest every PDF of this folder instead (company = file name stem)')
    .option('--index <dir>', 'index folder to write', DEFAULTS.index)
    .option('--embedder <name>', 'use-lite | bge-m3 | bm25', DEFAULTS.embedder)
    .option('--cache-dir <dir>', 'cache of extracted pages and embeddings', DEFAULTS.cacheDir)
    .addOption(
      new Option('--tables <mode>', 'table-aware extraction: auto (per page), always, never')
        .choices(['auto', 'always', 'never'])
        .default('auto'),
    )
    .option('--allow-failures', 'exit 0 even when some documents could not be ingested')
    .option('--json', 'print the ingest report as JSON')
    .option('-q, --quiet', 'no progress output')
    .option(OFFLINE_FLAG, OFFLINE_HELP)
    .action(async (flags: IngestFlags) => {
      const report = await runIngest(flags, io);
      if (flags.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
      else io.out(formatIngestReport(report));
      if (report.failed > 0 && !flags.allowFailures) io.exitCode = 1;
      if (report.index === null) io.exitCode = 1;
    });
}

async function runIngest(flags: IngestFlags, io: CliIO): Promise<IngestReport> {
  if (!isEmbedderName(flags.embedder)) {
    throw new UsageError(`unknown embedder "${flags.embedder}" (use-lite, bge-m3 or bm25)`);
  }
  const at = (p: string) => resolve(io.cwd, p);
  let docs: IngestDocument[];
  if (flags.pdfs) docs = await documentsFromFolder(at(flags.pdfs));
  else docs = documentsFromSources((await loadSources(at(flags.sources))).documents, at(flags.pdfDir));

  const bars = new Map<string, Progress>();
  const stageLabels = { extract: 'extract', chunk: 'chunk', embed: 'embed' } as const;
  const report = await ingest(docs, {
    indexDir: at(flags.index),
    embedder: flags.embedder,
    cacheDir: at(flags.cacheDir),
    tables: flags.tables,
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

export function formatIngestReport(report: IngestReport): string {
  const lines: string[] = [];
  for (const d of report.documents) {
    if (d.status === 'failed') lines.push(`FAILED  ${d.source}: ${d.error}`);
    else
      lines.push(
        `ok      ${d.source}: ${d.pages} pages (${d.tablePages} via table layout), ${d.chunks} chunks${d.fromCache ? ', pages from cache' : ''}`,
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
