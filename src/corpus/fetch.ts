import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { finished, pipeline } from 'node:stream/promises';
import { errorMessage } from '../util/errors.ts';
import { sha256File } from '../util/fs.ts';
import type { SourceDocument, SourcesFile } from './schema.ts';
import { recordPin } from './sources.ts';

/**
 * What happened to one document:
 * - present: already in the destination folder with the pinned sha256, nothing fetched
 * - downloaded / copied: fetched from its url / copied from the mirror folder, sha256 verified
 * - pinned: fetched with --pin; its sha256 was recorded into sources.yaml
 * - unpinned: not fetched, because there is no sha256 to verify against (without --pin) or no source
 * - failed: a fetch was attempted and did not produce the expected bytes
 */
export type FetchStatus = 'present' | 'downloaded' | 'copied' | 'pinned' | 'unpinned' | 'failed';

export interface FetchResult {
  doc: SourceDocument;
  status: FetchStatus;
  sha256?: string;
  error?: string;
}

export interface FetchOptions {
  /** Folder the PDFs are written to, as `<destDir>/<doc.file>`. */
  destDir: string;
  /** Mirror folder: copy `<from>/<doc.file>` instead of downloading when it is there. */
  from?: string;
  /** Record the sha256 of unpinned documents (that have a url) into sources.yaml. */
  pin?: boolean;
  /** The sources.yaml the documents came from; `pin` writes into it. */
  sourcesPath: string;
  /** Called after each document, in order. */
  onProgress?: (result: FetchResult, done: number, total: number) => void;
  /** Abort a download when the connection is idle this long (default 60 s). */
  fetchTimeoutMs?: number;
  /** The date written as accessed_on when pinning (default: today, UTC). */
  today?: string;
}

const MAX_REDIRECTS = 5;
const DEFAULT_TIMEOUT_MS = 60_000;

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

async function fetchDocument(doc: SourceDocument, index: number, opts: FetchOptions): Promise<FetchResult> {
  const target = join(opts.destDir, doc.file);
  if (doc.sha256 !== null && (await fileExists(target))) {
    const actual = await sha256File(target);
    if (actual === doc.sha256) return { doc, status: 'present', sha256: actual };
    // Never leave bytes that contradict the pin under the final name, but do not destroy them either.
    await rename(target, `${target}.rejected`);
    const result = await fetchFromSource(doc, index, target, opts);
    const note = `the existing ${doc.file} had sha256 ${actual} and was moved to ${doc.file}.rejected`;
    return result.error === undefined ? result : { ...result, error: `${result.error} (${note})` };
  }
  return fetchFromSource(doc, index, target, opts);
}

/** Copies from the mirror folder or downloads from the url into `<target>.part`, verifies, then renames. */
async function fetchFromSource(
  doc: SourceDocument,
  index: number,
  target: string,
  opts: FetchOptions,
): Promise<FetchResult> {
  const expected = doc.sha256;
  const mirrorCopy = opts.from ? join(opts.from, doc.file) : null;
  const fromMirror = mirrorCopy !== null && (await fileExists(mirrorCopy));
  const refusal = refusalToFetch(doc, fromMirror, opts.pin ?? false);
  if (refusal !== null) return { doc, status: 'unpinned', error: refusal };

  const part = `${target}.part`;
  // Nothing can vouch that an old .part and today's response belong to the same file, so a pin starts afresh.
  if (expected === null) await rm(part, { force: true });
  const fetched = fromMirror
    ? await copyToPart(mirrorCopy, part)
    : await downloadToPart(doc.url as string, part, expected, opts.fetchTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  if (expected !== null && fetched !== expected) {
    await rm(part, { force: true });
    return { doc, status: 'failed', sha256: fetched, error: checksumMismatch(doc, expected, fetched) };
  }
  if (expected === null) {
    const notPdf = await notAPdf(part);
    if (notPdf !== null) {
      await rm(part, { force: true });
      return { doc, status: 'failed', sha256: fetched, error: `refusing to pin ${doc.file}: ${notPdf}` };
    }
  }
  await rename(part, target);
  if (expected === null) {
    await recordPin(opts.sourcesPath, index, { sha256: fetched, accessed_on: opts.today ?? todayUtc() });
    return { doc, status: 'pinned', sha256: fetched };
  }
  return { doc, status: fromMirror ? 'copied' : 'downloaded', sha256: fetched };
}

/** Why a document is not fetched at all: nowhere to get it from, or nothing to verify it against. */
function refusalToFetch(doc: SourceDocument, fromMirror: boolean, pin: boolean): string | null {
  if (!fromMirror && doc.url === null)
    return 'no url and no mirror copy: fill in url in sources.yaml (or use --from DIR)';
  if (doc.sha256 === null && !pin) return 'no sha256 pinned: run `rge corpus fetch --pin` to record one';
  if (doc.sha256 === null && doc.url === null)
    return 'cannot pin without a url: fill in url in sources.yaml first';
  return null;
}

function checksumMismatch(doc: SourceDocument, expected: string, actual: string): string {
  return `sha256 mismatch for ${doc.file}: expected ${expected}, got ${actual}; the bytes were not kept`;
}

/** Pinning an HTML error page served with status 200 would be worse than failing: PDFs start with %PDF-. */
async function notAPdf(path: string): Promise<string | null> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64), 0, 64, 0);
    const head = buffer.subarray(0, bytesRead).toString('latin1');
    return head.startsWith('%PDF-')
      ? null
      : `the bytes are not a PDF (they start with ${JSON.stringify(head.slice(0, 20))})`;
  } finally {
    await handle.close();
  }
}

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

async function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function fileSize(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}

/** Copies a mirror file to the .part path, hashing as it goes; returns the sha256. */
async function copyToPart(source: string, part: string): Promise<string> {
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

/**
 * Downloads `url` into `part`, resuming what an earlier attempt left there, and returns the sha256 of
 * the whole file. A cut connection throws and leaves the .part for the next attempt.
 */
async function downloadToPart(
  url: string,
  part: string,
  expected: string | null,
  timeoutMs: number,
): Promise<string> {
  let offset = await fileSize(part);
  if (offset > 0 && expected !== null && (await sha256File(part)) === expected) return expected;
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await requestFollowingRedirects(url, offset, timeoutMs);
    const plan = resumePlan(res, offset, url);
    if (plan === 'restart') {
      res.resume();
      await rm(part, { force: true });
      offset = 0;
      continue;
    }
    const hash = createHash('sha256');
    if (plan === 'append') await hashFile(part, hash);
    await writeBody(res, part, plan === 'append', hash, url);
    return hash.digest('hex');
  }
  throw new Error(`server for ${url} refused to resume and to restart the download`);
}

/**
 * How to treat a response to a (possibly ranged) request: 206 appends to the .part when it starts where
 * the .part ends; 200 is the whole body, so the .part is overwritten from byte 0; 416 means the .part
 * does not fit the file, so it is dropped and the download restarts.
 */
function resumePlan(res: IncomingMessage, offset: number, url: string): 'append' | 'overwrite' | 'restart' {
  const status = res.statusCode ?? 0;
  if (status === 200) return 'overwrite';
  if (status === 206 && offset > 0 && contentRangeStart(res) === offset) return 'append';
  if ((status === 206 || status === 416) && offset > 0) return 'restart';
  res.resume();
  throw new Error(`HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''} for ${url}`);
}

function contentRangeStart(res: IncomingMessage): number | null {
  const match = /^bytes (\d+)-\d+\/(?:\d+|\*)$/.exec(res.headers['content-range'] ?? '');
  return match?.[1] === undefined ? null : Number(match[1]);
}

async function hashFile(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

/**
 * Streams a response body into the .part file. Whatever arrived is flushed to disk even when the
 * connection breaks, so that the next attempt can resume from it.
 */
async function writeBody(
  res: IncomingMessage,
  part: string,
  append: boolean,
  hash: Hash,
  url: string,
): Promise<void> {
  const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
  const declared = Number(res.headers['content-length'] ?? Number.NaN);
  let received = 0;
  let failure: unknown;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      hash.update(chunk);
      received += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
    }
  } catch (err) {
    failure = err;
  }
  out.end();
  await finished(out);
  const truncated = !res.complete || (Number.isFinite(declared) && received < declared);
  if (failure !== undefined || truncated) {
    const why = failure === undefined ? 'connection closed early' : errorMessage(failure);
    throw new Error(`download of ${url} interrupted after ${received} bytes (${why}); run again to resume`);
  }
}

/** GET with `Range: bytes=<offset>-` when resuming, following up to five redirects. */
async function requestFollowingRedirects(
  url: string,
  offset: number,
  timeoutMs: number,
): Promise<IncomingMessage> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await request(current, offset, timeoutMs);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status < 300 || status >= 400 || status === 304 || location === undefined) return res;
    res.resume();
    current = new URL(location, current).toString();
  }
  throw new Error(`too many redirects (more than ${MAX_REDIRECTS}) starting at ${url}`);
}

function request(url: string, offset: number, timeoutMs: number): Promise<IncomingMessage> {
  const parsed = new URL(url);
  const client = parsed.protocol === 'https:' ? https : parsed.protocol === 'http:' ? http : null;
  if (client === null) return Promise.reject(new Error(`unsupported protocol in ${url}`));
  const headers: Record<string, string> = { 'user-agent': 'rge-corpus-fetch/0.1', accept: '*/*' };
  if (offset > 0) headers.range = `bytes=${offset}-`;
  return new Promise((resolve, reject) => {
    const req = client.get(parsed, { headers }, resolve);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no data from ${url} for ${timeoutMs} ms`)));
    req.on('error', (err) =>
      reject(new Error(`request to ${url} failed: ${errorMessage(err)}`, { cause: err })),
    );
  });
}
