import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { FetchResult } from '../corpus/fetch.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { isFile } from '../util/fs.ts';
import { type CliIO, nonNegativeInteger } from './io.ts';

interface FetchFlags {
  sources: string;
  dest: string;
  from?: string;
  pin?: boolean;
  userAgent?: string;
  retries?: string;
  quiet?: boolean;
}

/** `rge corpus fetch`: download (or copy from a mirror) the PDFs of sources.yaml and verify their sha256. */
export function registerFetchCommand(corpus: Command, io: CliIO): void {
  corpus
    .command('fetch')
    .description(
      'download the PDFs listed in sources.yaml into the PDF folder, verifying each sha256; ' +
        'interrupted downloads resume from their .part file',
    )
    .option('--sources <file>', 'sources file listing the documents', 'data/corpus/sources.yaml')
    .option('--dest <dir>', 'folder the PDFs are written to', 'data/corpus/pdfs')
    .option('--from <dir>', 'copy <dir>/<file> instead of downloading, when it is there (same verification)')
    .option(
      '--pin',
      'for documents with a url or path but no sha256: fetch and record sha256 and accessed_on ' +
        '(and pdf_sha256 when the download is a ZIP holding the PDF)',
    )
    .option('--user-agent <ua>', "User-Agent header to send (default: a desktop browser's)")
    .option('--retries <n>', 'retries of a transient failure (5xx, 429, reset, timeout) per url', '3')
    .option('-q, --quiet', 'no progress output')
    .action(async (flags: FetchFlags) => {
      const results = await runFetch(flags, io);
      io.out(formatFetchReport(results));
      const failed = results.filter((r) => r.status === 'failed');
      const [first] = failed;
      if (first)
        throw new RgeError(
          `${first.doc.file}: ${first.error} (${failed.length} of ${results.length} document(s) failed${failed.length > 1 ? ', listed above' : ''})`,
          { file: resolve(io.cwd, flags.sources) },
        );
      // a corpus with documents left out is not one `rge corpus ingest` should index: say so, exit 1
      const unpinned = results.filter((r) => r.status === 'unpinned');
      if (unpinned.length > 0)
        throw new RgeError(
          `${unpinned.length} of ${results.length} document(s) not fetched (unpinned, listed above): the corpus is incomplete; ` +
            'give each a url (or path) in the sources file and run `rge corpus fetch --pin`, or copy them with --from DIR',
          { file: resolve(io.cwd, flags.sources) },
        );
    });
}

async function runFetch(flags: FetchFlags, io: CliIO): Promise<FetchResult[]> {
  const at = (p: string) => resolve(io.cwd, p);
  const sourcesPath = at(flags.sources);
  if (!(await isFile(sourcesPath))) throw new UsageError(`no sources file at ${sourcesPath} (see --sources)`);
  const mirrorDir = flags.from === undefined ? undefined : at(flags.from);
  if (mirrorDir !== undefined && !(await isDirectory(mirrorDir))) {
    throw new UsageError(`--from ${flags.from}: no such folder`);
  }
  if (flags.userAgent !== undefined && flags.userAgent.trim() === '')
    throw new UsageError('--user-agent must not be empty');
  const retries = nonNegativeInteger('retries', flags.retries);
  const { fetchSources } = await import('../corpus/fetch.ts');
  const { loadSources } = await import('../corpus/sources.ts');
  const { createProgress } = await import('../util/progress.ts');
  const sources = await loadSources(sourcesPath);
  const progress = createProgress({
    total: sources.documents.length,
    label: 'fetch',
    quiet: flags.quiet ?? false,
  });
  const results = await fetchSources(sources, {
    destDir: at(flags.dest),
    from: mirrorDir,
    pin: flags.pin ?? false,
    sourcesPath,
    ...(flags.userAgent === undefined ? {} : { userAgent: flags.userAgent }),
    ...(retries === undefined ? {} : { retries }),
    onProgress: (result) => progress.tick(1, `${result.doc.file} ${result.status}`),
    onRetry: (notice) => {
      if (flags.quiet) return;
      const wait = notice.retryAfterMs > 0 ? ` (Retry-After ${Math.ceil(notice.retryAfterMs / 1000)} s)` : '';
      io.err(`retrying ${notice.doc.file} after attempt ${notice.attempt}: ${notice.error}${wait}\n`);
    },
  });
  progress.done();
  return results;
}

/** One line per document (status, company, fiscal year, file, sha256 or the reason), then a summary. */
export function formatFetchReport(results: readonly FetchResult[]): string {
  const companyWidth = Math.max(0, ...results.map((r) => r.doc.company.length));
  const fileWidth = Math.max(0, ...results.map((r) => r.doc.file.length));
  const lines = results.map((r) => {
    const detail = r.error ?? [r.sha256, ...provenance(r)].filter(Boolean).join('  ');
    const columns = [
      r.status.padEnd(10),
      r.doc.company.padEnd(companyWidth),
      r.doc.fy,
      r.doc.file.padEnd(fileWidth),
    ];
    return `${columns.join(' ')}  ${detail}`.trimEnd();
  });
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const summary = [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
  lines.push(`${results.length} documents: ${summary || 'none'}`);
  return `${lines.join('\n')}\n`;
}

/** Where the bytes came from, when not the url itself, and the ZIP entry a PDF was taken from. */
function provenance(r: FetchResult): string[] {
  const notes: string[] = [];
  if (r.from !== undefined) notes.push(`from ${r.from}`);
  if (r.zip !== undefined) notes.push(`ZIP; PDF ${JSON.stringify(r.zip.entry)} sha256 ${r.zip.pdfSha256}`);
  return notes.length === 0 ? [] : [`(${notes.join('; ')})`];
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
