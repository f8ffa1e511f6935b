/**
 * `rge corpus fetch`: brings every document of a sources file into the corpus folder, from the mirror
 * folder, the document's own path or its url (download.ts), verifies its sha256 (or records it with
 * --pin), and takes the PDF out of a pinned ZIP. One bad document never stops the others.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { unzipSync } from 'fflate';
import { errorMessage } from '../util/errors.ts';
import { isFile, sha256, sha256File, writeFileAtomic } from '../util/fs.ts';
import { type DownloadOptions, downloadWithRetries } from './download.ts';
import type { SourceDocument, SourcesFile } from './schema.ts';
import { recordPin } from './sources.ts';

/**
 * What happened to one document:
 * - present: already in the destination folder with the pinned sha256, nothing fetched (a PDF whose
 *   pinned ZIP is there is taken out of it again when missing)
 * - downloaded / copied: fetched from a url / copied from the mirror folder or the document's path,
 *   sha256 verified
 * - pinned: fetched with --pin; its sha256 was recorded into sources.yaml
 * - unpinned: not fetched, because there is no sha256 to verify against (without --pin) or no source
 * - failed: a fetch was attempted and did not produce the expected bytes
 */
export type FetchStatus = 'present' | 'downloaded' | 'copied' | 'pinned' | 'unpinned' | 'failed';

export interface FetchResult {
  doc: SourceDocument;
  status: FetchStatus;
  /** of the bytes fetched (or found): the PDF, or the ZIP holding it */
  sha256?: string;
  /** when the bytes are a ZIP: the entry taken out as the document's PDF, and that PDF's sha256 */
  zip?: { entry: string; pdfSha256: string };
  /** which source delivered, when it was not `url` or the mirror: `alt_urls[0]`, `path` */
  from?: string;
  error?: string;
}

/** What `fetchSources` is given; how it downloads is `DownloadOptions`. */
export interface FetchOptions extends DownloadOptions {
  /** Folder the PDFs are written to, as `<destDir>/<doc.file>` (a downloaded ZIP as `<stem>.zip`). */
  destDir: string;
  /** Mirror folder: copy `<from>/<doc.file>` instead of downloading when it is there. */
  from?: string;
  /** Record the sha256 of unpinned documents (that have a url or path) into sources.yaml. */
  pin?: boolean;
  /** The sources.yaml the documents came from; `pin` writes into it, `path` is relative to its folder. */
  sourcesPath: string;
  /** Called after each document, in order. */
  onProgress?: (result: FetchResult, done: number, total: number) => void;
  /** The date written as accessed_on when pinning (default: today, UTC). */
  today?: string;
}

/** Fetches every document of a sources file; one bad document never stops the others. */
export async function fetchSources(sources: SourcesFile, opts: FetchOptions): Promise<FetchResult[]> {
  await mkdir(opts.destDir, { recursive: true });
  const results: FetchResult[] = [];
  for (const [index, doc] of sources.documents.entries()) {
    const result = await fetchDocument(doc, index, opts).catch(
      (err: unknown): FetchResult => ({ doc, status: 'failed', error: errorMessage(err) }),
    );
    results.push(result);
    opts.onProgress?.(result, results.length, sources.documents.length);
  }
  return results;
}

/** Where a document's ZIP download is kept, beside its PDF: `x.pdf` -> `x.zip`. */
export function archiveFileName(file: string): string {
  return file.replace(/\.pdf$/i, '.zip');
}

async function fetchDocument(doc: SourceDocument, index: number, opts: FetchOptions): Promise<FetchResult> {
  const target = join(opts.destDir, doc.file);
  if (doc.sha256 === null) return fetchFromSources(doc, index, target, opts);
  if (await isFile(target)) {
    const actual = await sha256File(target);
    if (actual === doc.sha256) return { doc, status: 'present', sha256: actual };
    if (actual === doc.pdf_sha256) return { doc, status: 'present', sha256: doc.sha256 };
  }
  const archive = join(opts.destDir, archiveFileName(doc.file));
  if ((await isFile(archive)) && (await sha256File(archive)) === doc.sha256) {
    // The pinned ZIP is here and its PDF is missing or not the one inside: take it out again.
    const zip = await extractPdf(archive, target, doc, archive);
    return { doc, status: 'present', sha256: doc.sha256, zip };
  }
  if (await isFile(target)) {
    const actual = await sha256File(target);
    // Never leave bytes that contradict the pin under the final name, but do not destroy them either.
    await rename(target, `${target}.rejected`);
    const result = await fetchFromSources(doc, index, target, opts);
    const note = `the existing ${doc.file} had sha256 ${actual} and was moved to ${doc.file}.rejected`;
    return result.error === undefined ? result : { ...result, error: `${result.error} (${note})` };
  }
  return fetchFromSources(doc, index, target, opts);
}

/** One place a document's bytes can come from, in the order they are tried. */
interface Origin {
  kind: 'mirror' | 'path' | 'url';
  /** a file for mirror and path, a URL for url */
  location: string;
  /** how the report names it: --from, path, url, alt_urls[i] */
  label: string;
}

/** The mirror copy when there is one, then the document's path, url and alt_urls. */
async function originsOf(doc: SourceDocument, opts: FetchOptions): Promise<Origin[]> {
  const origins: Origin[] = [];
  const mirrorCopy = opts.from ? join(opts.from, doc.file) : null;
  if (mirrorCopy !== null && (await isFile(mirrorCopy)))
    origins.push({ kind: 'mirror', location: mirrorCopy, label: '--from' });
  if (doc.path !== undefined) {
    const local = doc.path.startsWith('~/') ? join(homedir(), doc.path.slice(2)) : doc.path;
    origins.push({ kind: 'path', location: resolve(dirname(opts.sourcesPath), local), label: 'path' });
  }
  if (doc.url !== null) origins.push({ kind: 'url', location: doc.url, label: 'url' });
  for (const [i, url] of (doc.alt_urls ?? []).entries())
    origins.push({ kind: 'url', location: url, label: `alt_urls[${i}]` });
  return origins;
}

/**
 * Tries each origin in turn: copy or download into `<target>.part`, verify against the pin (or, when
 * pinning, check that the bytes are a PDF or a ZIP), then put the PDF under its final name (taking it
 * out of a ZIP, which is kept beside it as `<stem>.zip`).
 */
async function fetchFromSources(
  doc: SourceDocument,
  index: number,
  target: string,
  opts: FetchOptions,
): Promise<FetchResult> {
  const expected = doc.sha256;
  const origins = await originsOf(doc, opts);
  if (origins.length === 0)
    return {
      doc,
      status: 'unpinned',
      error: 'no url, path or mirror copy: fill in url or path in sources.yaml (or use --from DIR)',
    };
  if (expected === null && !opts.pin)
    return { doc, status: 'unpinned', error: 'no sha256 pinned: run `rge corpus fetch --pin` to record one' };

  const part = `${target}.part`;
  // Nothing can vouch that an old .part and today's response belong to the same file, so a pin starts afresh.
  if (expected === null) await rm(part, { force: true });
  const failures: string[] = [];
  let lastSha: string | undefined;
  for (const [i, origin] of origins.entries()) {
    // A partial download from the previous origin need not be the same file as this one.
    if (i > 0) await rm(part, { force: true });
    try {
      const fetched =
        origin.kind === 'url'
          ? await downloadWithRetries(doc, origin.location, part, expected, opts)
          : await copyToPart(origin.location, part, origin.label);
      lastSha = fetched;
      const placed = await placeFetched(doc, origin, part, fetched, target);
      const from =
        origin.kind === 'path' || origin.label.startsWith('alt_urls') ? { from: origin.label } : {};
      const zip = placed.zip === undefined ? {} : { zip: placed.zip };
      if (expected === null) {
        await recordPin(opts.sourcesPath, index, {
          sha256: fetched,
          accessed_on: opts.today ?? todayUtc(),
          ...(placed.zip ? { pdf_sha256: placed.zip.pdfSha256 } : {}),
        });
        return { doc, status: 'pinned', sha256: fetched, ...zip, ...from };
      }
      const status = origin.kind === 'url' ? 'downloaded' : 'copied';
      return { doc, status, sha256: fetched, ...zip, ...from };
    } catch (err) {
      failures.push(origins.length === 1 ? errorMessage(err) : `${origin.label}: ${errorMessage(err)}`);
    }
  }
  return {
    doc,
    status: 'failed',
    ...(lastSha === undefined ? {} : { sha256: lastSha }),
    error: failures.join('; '),
  };
}

/**
 * Checks the bytes in `part` and moves them into place; throws (removing `part`) when they are not
 * the pinned bytes, or, when pinning, neither a PDF nor a ZIP holding one.
 */
async function placeFetched(
  doc: SourceDocument,
  origin: Origin,
  part: string,
  fetched: string,
  target: string,
): Promise<{ zip?: { entry: string; pdfSha256: string } }> {
  try {
    const kind = await sniff(part);
    const expected = doc.sha256;
    if (expected !== null && fetched !== expected && !(kind === 'pdf' && fetched === doc.pdf_sha256)) {
      throw new Error(
        `sha256 mismatch for ${doc.file} from ${origin.location}: expected ${expected}, got ${fetched}; the bytes were not kept`,
      );
    }
    if (kind === 'pdf') {
      await rename(part, target);
      return {};
    }
    if (kind === 'zip') {
      const zip = await extractPdf(part, target, doc, origin.location);
      await rename(part, join(dirname(target), archiveFileName(doc.file)));
      return { zip };
    }
    const verb = expected === null ? 'refusing to pin' : 'cannot use';
    throw new Error(
      `${verb} ${doc.file}: the bytes from ${origin.location} are not a PDF nor a ZIP (they start with ${kind.head})`,
    );
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
}

/** What a file is by its first bytes: a PDF (`%PDF-`), a ZIP (`PK\x03\x04`, or an empty one), or neither. */
async function sniff(path: string): Promise<'pdf' | 'zip' | { head: string }> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64), 0, 64, 0);
    const head = buffer.subarray(0, bytesRead);
    if (head.toString('latin1').startsWith('%PDF-')) return 'pdf';
    if (head.readUInt32LE(0) === 0x04034b50 || head.readUInt32LE(0) === 0x06054b50) return 'zip';
    return { head: JSON.stringify(head.toString('latin1').slice(0, 20)) };
  } finally {
    await handle.close();
  }
}

/** A PDF entry of a ZIP, skipping macOS resource forks (`__MACOSX/`, `._name.pdf`). */
function isPdfEntry(name: string): boolean {
  const base = name.split('/').at(-1) ?? name;
  return /\.pdf$/i.test(name) && !name.startsWith('__MACOSX/') && !base.startsWith('._');
}

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, 10).map((n) => JSON.stringify(n));
  return names.length === 0
    ? 'none'
    : `${shown.join(', ')}${names.length > 10 ? `, … (${names.length})` : ''}`;
}

/**
 * Takes the document's PDF out of a ZIP and writes it atomically to `target`: the ZIP's only PDF, or
 * the entry named by `zip_entry`. `from` (the URL or file the ZIP came from) names it in errors.
 */
async function extractPdf(
  zipFile: string,
  target: string,
  doc: SourceDocument,
  from: string,
): Promise<{ entry: string; pdfSha256: string }> {
  const data = new Uint8Array(await readFile(zipFile));
  const names: string[] = [];
  try {
    unzipSync(data, {
      filter: (f) => {
        if (!f.name.endsWith('/')) names.push(f.name);
        return false;
      },
    });
  } catch (err) {
    throw new Error(`the ZIP from ${from} cannot be read: ${errorMessage(err)}`);
  }
  const pdfs = names.filter(isPdfEntry);
  let entry: string;
  if (doc.zip_entry !== undefined) {
    if (!names.includes(doc.zip_entry))
      throw new Error(
        `the ZIP from ${from} has no entry ${JSON.stringify(doc.zip_entry)} (zip_entry); its entries: ${listNames(names)}`,
      );
    entry = doc.zip_entry;
  } else if (pdfs.length === 1) {
    entry = pdfs[0] as string;
  } else if (pdfs.length === 0) {
    throw new Error(`the ZIP from ${from} holds no PDF (entries: ${listNames(names)})`);
  } else {
    throw new Error(
      `the ZIP from ${from} holds ${pdfs.length} PDFs (${listNames(pdfs)}); ` +
        `set zip_entry for ${doc.company} ${doc.fy} in sources.yaml to the one that is the report`,
    );
  }
  let bytes: Uint8Array | undefined;
  try {
    bytes = unzipSync(data, { filter: (f) => f.name === entry })[entry];
  } catch (err) {
    throw new Error(
      `entry ${JSON.stringify(entry)} of the ZIP from ${from} cannot be read: ${errorMessage(err)}`,
    );
  }
  if (bytes === undefined) throw new Error(`entry ${JSON.stringify(entry)} of the ZIP from ${from} is empty`);
  const head = Buffer.from(bytes.subarray(0, 20)).toString('latin1');
  if (!head.startsWith('%PDF-')) {
    throw new Error(
      `entry ${JSON.stringify(entry)} of the ZIP from ${from} is not a PDF (it starts with ${JSON.stringify(head)})`,
    );
  }
  const pdfSha256 = sha256(bytes);
  if (doc.pdf_sha256 != null && pdfSha256 !== doc.pdf_sha256) {
    throw new Error(
      `entry ${JSON.stringify(entry)} of the ZIP from ${from} has sha256 ${pdfSha256}, not the pinned pdf_sha256 ${doc.pdf_sha256}`,
    );
  }
  await writeFileAtomic(target, bytes);
  return { entry, pdfSha256 };
}

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

async function copyToPart(source: string, part: string, label: string): Promise<string> {
  if (!(await isFile(source))) throw new Error(`${label} ${source}: no such file`);
  const hash = createHash('sha256');
  await pipeline(
    createReadStream(source),
    async function* hashing(chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        yield chunk;
      }
    },
    createWriteStream(part),
  );
  return hash.digest('hex');
}
