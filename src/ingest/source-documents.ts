/**
 * A user's own folder of documents read for question generation and for an index (`rge questions
 * generate`, issue 55): every PDF, Markdown, HTML and plain-text file of the folder and its subfolders,
 * in order of relative path (hidden files and folders and node_modules skipped), each as its pages,
 * with its company slug, fiscal year and language. PDFs are extracted on the corpus workers
 * (corpus/workers.ts) in page ranges; the other kinds by their readers (corpus/formats/).
 *
 * A file that cannot be used is a problem naming it, and the others are still read: an empty file, an
 * unreadable or corrupt one, a scanned PDF with no text layer, a file of a kind rge does not read, a
 * document whose language cannot be told (kept, with language null). A folder with no readable
 * document at all is an error naming the folder.
 */
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { z } from 'zod';
import {
  DOCUMENT_EXTENSIONS,
  type DocumentKind,
  documentKind,
  documentLanguage,
  readTextDocument,
} from '../corpus/formats/index.ts';
import { fiscalYearFromName, slugify } from '../corpus/naming.ts';
import type { PdfError, TableMode } from '../corpus/pdf-document.ts';
import { FiscalYear, PageText } from '../corpus/schema.ts';
import { extractMany } from '../corpus/workers.ts';
import { errorMessage, RgeError, UsageError } from '../util/errors.ts';
import { sha256, sha256File } from '../util/fs.ts';
import { pageCachePath, readPageCache, writePageCache } from './page-cache.ts';

/** One document of a user's folder, as read: what `readSourceDocuments` returns for each. */
export const SourceDocumentText = z.strictObject({
  /** the path relative to the folder, with `/` between folders; the chunks' `source` */
  source: z.string().min(1),
  /** a slug of the file name (of the relative path, when two files' names give the same slug) */
  company: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/),
  fy: FiscalYear.nullable(),
  kind: z.enum(['pdf', 'markdown', 'html', 'text']),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** ISO 639-1 (en, fr), or null when it cannot be told reliably */
  language: z.string().nullable(),
  pages: z.array(PageText).min(1),
});
export type SourceDocumentText = z.infer<typeof SourceDocumentText>;

/** Why a file of the folder is not used, or is used with a reservation (its language). */
export interface SourceProblem {
  /** the path relative to the folder */
  file: string;
  message: string;
}

export interface SourceDocuments {
  documents: SourceDocumentText[];
  problems: SourceProblem[];
}

/** A file of the folder that rge reads, before reading. */
export interface SourceFile {
  /** absolute path */
  path: string;
  source: string;
  company: string;
  fy: string | null;
  kind: DocumentKind;
}

export interface ReadSourceOptions {
  /** worker threads for PDF extraction (default: the machine's available parallelism) */
  concurrency?: number;
  /** pages a worker extracts in one job */
  rangePages?: number;
  tables?: TableMode;
  /** an ingest cache folder: pages are taken from its page cache when there, and written to it */
  cacheDir?: string;
}

/** The message for a scanned PDF, which rge cannot read. */
export const NO_TEXT_LAYER = 'no text layer: a scanned PDF? run OCR first';

/** Every file under `dir` (relative paths with `/`, sorted), hidden entries and node_modules skipped. */
async function walk(dir: string, under = ''): Promise<string[]> {
  const entries = await readdir(join(dir, under), { withFileTypes: true });
  const files: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const rel = under === '' ? e.name : `${under}/${e.name}`;
    if (e.isDirectory()) files.push(...(await walk(dir, rel)));
    else if (e.isFile()) files.push(rel);
  }
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Company slugs for the files, distinct: a file's name stem as a slug; files whose stems give the same
 * slug take the slug of their relative path (extension too), and any still equal a -2, -3 in path order.
 */
export function companySlugs(sources: readonly string[]): string[] {
  const stem = (s: string) => slugify(basename(s, extname(s))) || 'document';
  const counts = new Map<string, number>();
  for (const s of sources) counts.set(stem(s), (counts.get(stem(s)) ?? 0) + 1);
  const taken = new Set<string>();
  return sources.map((s) => {
    const base = (counts.get(stem(s)) ?? 0) > 1 ? slugify(s) || 'document' : stem(s);
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    return slug;
  });
}

/** The files of `dir` that rge reads, and a problem for each other file (its kind is not read). */
export async function listSourceFiles(
  dir: string,
): Promise<{ files: SourceFile[]; problems: SourceProblem[] }> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError('no such folder', { file: dir });
  const problems: SourceProblem[] = [];
  const readable: { source: string; kind: DocumentKind }[] = [];
  for (const source of await walk(dir)) {
    const kind = documentKind(source);
    if (kind === null)
      problems.push({
        file: source,
        message: `skipped: not a kind rge reads (${DOCUMENT_EXTENSIONS.join(', ')})`,
      });
    else readable.push({ source, kind });
  }
  const slugs = companySlugs(readable.map((r) => r.source));
  const files = readable.map(({ source, kind }, i) => ({
    path: join(dir, ...source.split('/')),
    source,
    company: slugs[i] as string,
    fy: fiscalYearFromName(basename(source)),
    kind,
  }));
  return { files, problems };
}

/** Pages read from a file, with its sha256, or why it cannot be used. */
type ReadResult = { sha256: string; pages: PageText[] } | { problem: string };

/** A Markdown, HTML or text file's page (from the page cache when there). */
async function readTextFile(file: SourceFile, opts: ReadSourceOptions): Promise<ReadResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file.path);
  } catch (err) {
    return { problem: `cannot be read: ${errorMessage(err)}` };
  }
  if (bytes.toString('utf8').trim() === '') return { problem: 'empty file' };
  const hash = sha256(bytes);
  const cache = opts.cacheDir ? pageCachePath(opts.cacheDir, hash, file.kind, opts.tables ?? 'auto') : null;
  const cached = cache ? await readPageCache(cache) : null;
  if (cached) return { sha256: hash, pages: cached };
  let page: PageText;
  try {
    page = readTextDocument(file.kind as Exclude<DocumentKind, 'pdf'>, bytes);
  } catch (err) {
    return { problem: `cannot be read as ${file.kind}: ${errorMessage(err)}` };
  }
  if (page.text.trim() === '') return { problem: `no text: the ${file.kind} file holds nothing to read` };
  if (cache) await writePageCache(cache, [page]);
  return { sha256: hash, pages: [page] };
}

/** What a PDF's extraction failure says to the user. */
function pdfProblem(error: PdfError | undefined): string {
  if (error?.kind === 'no-text') return NO_TEXT_LAYER;
  if (error?.kind === 'corrupt') return `not a readable PDF: ${error.detail}`;
  return error ? error.detail : 'not extracted';
}

/**
 * The PDFs' pages: from the page cache when there, the others extracted together on the corpus workers
 * (each document's pages are read once, in ranges, and its page cache written as it comes).
 */
async function readPdfs(files: readonly SourceFile[], opts: ReadSourceOptions): Promise<ReadResult[]> {
  const results: ReadResult[] = new Array(files.length);
  const hashes: string[] = [];
  const toExtract: number[] = [];
  for (const [i, file] of files.entries()) {
    if (statSync(file.path).size === 0) {
      results[i] = { problem: 'empty file' };
      continue;
    }
    hashes[i] = await sha256File(file.path);
    const cache = opts.cacheDir
      ? pageCachePath(opts.cacheDir, hashes[i], 'pdf', opts.tables ?? 'auto')
      : null;
    const cached = cache ? await readPageCache(cache) : null;
    if (cached) results[i] = { sha256: hashes[i], pages: cached };
    else toExtract.push(i);
  }
  const extracted = await extractMany(
    toExtract.map((i) => (files[i] as SourceFile).path),
    {
      ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
      ...(opts.rangePages !== undefined ? { rangePages: opts.rangePages } : {}),
      ...(opts.tables !== undefined ? { tables: opts.tables } : {}),
    },
  );
  for (const [j, r] of extracted.entries()) {
    const i = toExtract[j] as number;
    const hash = hashes[i] as string;
    if (!r.result) results[i] = { problem: pdfProblem(r.error) };
    else {
      results[i] = { sha256: hash, pages: r.result.pages };
      if (opts.cacheDir)
        await writePageCache(
          pageCachePath(opts.cacheDir, hash, 'pdf', opts.tables ?? 'auto'),
          r.result.pages,
        );
    }
  }
  return results;
}

/** A document read, with its language; a language that cannot be told is a problem, the document kept. */
function sourceDocument(
  file: SourceFile,
  read: { sha256: string; pages: PageText[] },
  problems: SourceProblem[],
) {
  const detected = documentLanguage(read.pages);
  if (!detected.reliable)
    problems.push({
      file: file.source,
      message: `cannot tell its language${detected.language ? ` (perhaps ${detected.language})` : ''}`,
    });
  return SourceDocumentText.parse({
    source: file.source,
    company: file.company,
    fy: file.fy,
    kind: file.kind,
    sha256: read.sha256,
    language: detected.reliable ? detected.language : null,
    pages: read.pages,
  });
}

/**
 * Every document of `dir` read (see the file's comment): the documents in order of relative path, and
 * the problems, each naming its file. Throws a UsageError when `dir` is not a folder, an RgeError naming
 * it when no file of it can be read.
 */
export async function readSourceDocuments(
  dir: string,
  opts: ReadSourceOptions = {},
): Promise<SourceDocuments> {
  const { files, problems } = await listSourceFiles(dir);
  const pdfs = files.filter((f) => f.kind === 'pdf');
  const pdfPages = await readPdfs(pdfs, opts);
  const byPath = new Map(pdfs.map((f, i) => [f.path, pdfPages[i] as ReadResult]));
  const documents: SourceDocumentText[] = [];
  for (const file of files) {
    const read = byPath.get(file.path) ?? (await readTextFile(file, opts));
    if ('problem' in read) problems.push({ file: file.source, message: read.problem });
    else documents.push(sourceDocument(file, read, problems));
  }
  problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  if (documents.length === 0) {
    const why =
      problems.length === 0 ? 'it holds no file' : problems.map((p) => `${p.file}: ${p.message}`).join('; ');
    throw new RgeError(`no readable document (PDF, Markdown, HTML or text): ${why}`, { file: dir });
  }
  return { documents, problems };
}
