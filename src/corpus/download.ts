/**
 * Downloading one url to a `.part` file: redirects, a browser's User-Agent, an idle timeout, resuming a
 * cut body with a Range request, and retries of transient failures (5xx, 408, 429, resets) after a
 * doubling backoff or the server's Retry-After. `fetch.ts` decides what to download and where it goes.
 */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { errorMessage } from '../util/errors.ts';
import { sha256File } from '../util/fs.ts';
import type { SourceDocument } from './schema.ts';

/** A transient failure about to be retried, for progress output. */
export interface RetryNotice {
  doc: SourceDocument;
  url: string;
  attempt: number;
  error: string;
  /** what the server asked for with Retry-After, before rge's own backoff */
  retryAfterMs: number;
}

/** How a url is downloaded. */
export interface DownloadOptions {
  /** Called before each retry of a transient failure. */
  onRetry?: (notice: RetryNotice) => void;
  /** Abort a download when the connection is idle this long (default 60 s). */
  fetchTimeoutMs?: number;
  /** User-Agent header (default: a desktop browser's, which hosts such as NSE's archive require). */
  userAgent?: string;
  /** Retries of a transient failure (5xx, 408, 429, reset, idle timeout, cut body) per url (default 3). */
  retries?: number;
  /** First backoff before a retry, doubled each time (default 1000 ms). */
  retryDelayMs?: number;
  /** The longest Retry-After rge honours; a server asking for more fails the url (default 120 s). */
  maxRetryAfterMs?: number;
}

/** A current desktop Chrome: several annual-report hosts answer 403 to anything that is not a browser. */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const ACCEPT = 'application/pdf,application/zip,application/octet-stream;q=0.9,*/*;q=0.8';

const MAX_REDIRECTS = 5;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_RETRIES = 3;
const DEFAULT_RETRY_DELAY_MS = 1000;
const DEFAULT_MAX_RETRY_AFTER_MS = 120_000;
/** Statuses worth asking again: the server or something on the way was busy or briefly down. */
const TRANSIENT_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** A failure that may not happen again: retried with backoff (after Retry-After when the server sent one). */
class TransientError extends Error {
  readonly retryAfterMs: number;
  constructor(message: string, opts: { retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'TransientError';
    this.retryAfterMs = opts.retryAfterMs ?? 0;
  }
}

async function fileSize(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}

/** Copies a local file (mirror copy or the document's path) to the .part path, hashing as it goes. */
/**
 * Downloads with retries: a transient failure (see `TransientError`) is tried again after a doubling
 * backoff, and after the server's Retry-After when it sent one; a cut body resumes from the .part.
 * The error of the last attempt is thrown, saying how many attempts were made.
 */
export async function downloadWithRetries(
  doc: SourceDocument,
  url: string,
  part: string,
  expected: string | null,
  opts: DownloadOptions,
): Promise<string> {
  const retries = opts.retries ?? DEFAULT_RETRIES;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const request: RequestOptions = {
    timeoutMs: opts.fetchTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    userAgent: opts.userAgent ?? BROWSER_USER_AGENT,
  };
  let attempts = 0;
  try {
    return await pRetry(
      (attempt) => {
        attempts = attempt;
        return downloadToPart(url, part, expected, request);
      },
      {
        retries,
        minTimeout: opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
        factor: 2,
        shouldRetry: ({ error }) => error instanceof TransientError,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          if (!(error instanceof TransientError) || retriesLeft === 0) return;
          const wait = error.retryAfterMs;
          if (wait > maxRetryAfterMs) {
            throw new Error(
              `${error.message}; the server asks to retry after ${Math.ceil(wait / 1000)} s, ` +
                `longer than the ${Math.round(maxRetryAfterMs / 1000)} s rge waits`,
            );
          }
          opts.onRetry?.({ doc, url, attempt: attemptNumber, error: error.message, retryAfterMs: wait });
          if (wait > 0) await sleep(wait);
        },
      },
    );
  } catch (err) {
    if (attempts <= 1) throw err;
    throw new Error(`${errorMessage(err)} (${attempts} attempts)`, { cause: err });
  }
}

interface RequestOptions {
  timeoutMs: number;
  userAgent: string;
}

/**
 * Downloads `url` into `part`, resuming what an earlier attempt left there, and returns the sha256 of
 * the whole file. A cut connection throws and leaves the .part for the next attempt.
 */
async function downloadToPart(
  url: string,
  part: string,
  expected: string | null,
  request: RequestOptions,
): Promise<string> {
  let offset = await fileSize(part);
  if (offset > 0 && expected !== null && (await sha256File(part)) === expected) return expected;
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await requestFollowingRedirects(url, offset, request);
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
 * does not fit the file, so it is dropped and the download restarts. Any other status throws, as a
 * `TransientError` when asking again may help.
 */
function resumePlan(res: IncomingMessage, offset: number, url: string): 'append' | 'overwrite' | 'restart' {
  const status = res.statusCode ?? 0;
  if (status === 200) return 'overwrite';
  if (status === 206 && offset > 0 && contentRangeStart(res) === offset) return 'append';
  if ((status === 206 || status === 416) && offset > 0) return 'restart';
  res.resume();
  const message = `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''} for ${url}`;
  if (TRANSIENT_STATUSES.has(status))
    throw new TransientError(message, { retryAfterMs: retryAfterMs(res.headers['retry-after']) });
  throw new Error(message);
}

/** Retry-After as delay-seconds or an HTTP date, in ms from now (0 when absent or unreadable). */
export function retryAfterMs(header: string | undefined, now = Date.now()): number {
  if (header === undefined) return 0;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? 0 : Math.max(0, date - now);
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
    throw new TransientError(
      `download of ${url} interrupted after ${received} bytes (${why}); run again to resume`,
    );
  }
}

/** GET with `Range: bytes=<offset>-` when resuming, following up to five redirects. */
async function requestFollowingRedirects(
  url: string,
  offset: number,
  opts: RequestOptions,
): Promise<IncomingMessage> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await request(current, offset, opts);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status < 300 || status >= 400 || status === 304 || location === undefined) return res;
    res.resume();
    current = new URL(location, current).toString();
  }
  throw new Error(`too many redirects (more than ${MAX_REDIRECTS}) starting at ${url}`);
}

function request(url: string, offset: number, opts: RequestOptions): Promise<IncomingMessage> {
  const parsed = new URL(url);
  const client = parsed.protocol === 'https:' ? https : parsed.protocol === 'http:' ? http : null;
  if (client === null) return Promise.reject(new Error(`unsupported protocol in ${url}`));
  const headers: Record<string, string> = {
    'user-agent': opts.userAgent,
    accept: ACCEPT,
    'accept-language': 'en-US,en;q=0.9',
  };
  if (offset > 0) headers.range = `bytes=${offset}-`;
  return new Promise((resolve, reject) => {
    const req = client.get(parsed, { headers }, resolve);
    req.setTimeout(opts.timeoutMs, () =>
      req.destroy(new TransientError(`no data from ${url} for ${opts.timeoutMs} ms`)),
    );
    req.on('error', (err) => {
      if (err instanceof TransientError) return reject(err);
      const code = (err as NodeJS.ErrnoException).code;
      const message = `request to ${url} failed: ${errorMessage(err)}`;
      reject(
        code !== undefined && TRANSIENT_CODES.has(code)
          ? new TransientError(message, { cause: err })
          : new Error(message, { cause: err }),
      );
    });
  });
}
