/**
 * The HTTP way in: the system under test is an endpoint (often a Python app) that takes one question
 * as a JSON POST and replies with its answer as JSON:
 *
 *   POST <url>  content-type: application/json   {"id":"gd-001","text":"...","run_index":0,"seed":42}
 *   200         {"answer":"...","contexts":[{"id":"doc-3","text":"..."}]}
 *
 * Retries, as for a model provider (`retrying`, ../providers/budget.ts): a 429, a 5xx, a network error
 * (refused, reset, DNS) and an attempt with no reply within `timeoutMs` are tried again, up to
 * `maxAttempts` attempts with exponential backoff and jitter, and a `retry-after` (seconds or an HTTP
 * date) holds every call of the system at least that long. Any other 4xx, and a 2xx whose body is not
 * JSON, fail at once. A question that fails is that cell's failure (`SystemFailure`, naming the status
 * and a short excerpt of the body); an answer that does not fit the contract is a `ContractError`.
 * `concurrency` and `rpm` limit the calls in flight and their rate (Bottleneck, as the providers do);
 * every attempt, retries included, counts against both.
 *
 * The header values (keys, resolved from environment variables by the caller) are registered as
 * secrets: no error message or retry line carries them, even when the endpoint echoes them back.
 */

import { type RetryPolicy, retrying } from '../providers/budget.ts';
import { redactSecrets, registerSecret } from '../providers/credentials.ts';
import { CallError, retryAfterMs } from '../providers/live/adapter.ts';
import { ProviderLimiter } from '../providers/metered.ts';
import { errorMessage, RgeError } from '../util/errors.ts';
import { checkAnswer, type SystemAnswer, type SystemQuestion, type SystemUnderTest } from './contract.ts';
import { excerpt, SystemFailure } from './failure.ts';

export interface HttpSystemOptions {
  url: string;
  /** sent with every request; values already resolved (from environment variables) by the caller */
  headers: Record<string, string>;
  /** per attempt */
  timeoutMs: number;
  /** attempts per question, the first included */
  maxAttempts: number;
  minBackoffMs: number;
  maxBackoffMs: number;
  /** requests in flight at once */
  concurrency: number;
  /** requests per minute; null = no limit */
  rpm: number | null;
  /** said of each failed attempt that will be retried (keys redacted) */
  onRetry?: (line: string) => void;
}

/** The system behind an HTTP endpoint. */
export function httpSystem(opts: HttpSystemOptions): SystemUnderTest {
  for (const value of Object.values(opts.headers)) registerHeaderSecret(value);
  const limiter = new ProviderLimiter({ ...opts, tpm: null });
  const system = `http ${shownUrl(opts.url)}`;
  return {
    kind: 'http',
    answer: (question, call = {}) => ask(question, { opts, limiter, system, signal: call.signal }),
  };
}

/** A header's value as a secret, and the credential of a `<scheme> <credential>` value on its own. */
function registerHeaderSecret(value: string): void {
  registerSecret(value);
  const credential = /^[A-Za-z][\w-]*\s+(\S+)$/.exec(value.trim())?.[1];
  if (credential) registerSecret(credential);
}

interface Ask {
  opts: HttpSystemOptions;
  limiter: ProviderLimiter;
  system: string;
  signal: AbortSignal | undefined;
}

/** One question: POSTed with retries under the limits, the reply checked against the contract. */
async function ask(question: SystemQuestion, ctx: Ask): Promise<SystemAnswer> {
  const { opts, limiter, system, signal } = ctx;
  const policy: RetryPolicy = { ...opts, signal };
  let attempts = 0;
  let reply: unknown;
  try {
    reply = await retrying(
      `${system}: question ${question.id}`,
      (attemptSignal) =>
        limiter.run(0, 5, async () => {
          attempts += 1;
          try {
            return await postOnce(question, opts, attemptSignal);
          } catch (err) {
            if (err instanceof CallError && err.retryable && err.retryAfterMs !== null)
              limiter.pause(err.retryAfterMs);
            throw err;
          }
        }),
      policy,
    );
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    const status = err instanceof CallError ? err.status : null;
    const retried = attempts > 1 ? ` (attempt ${attempts} of ${opts.maxAttempts})` : '';
    throw new SystemFailure(system, question.id, `${errorMessage(err)}${retried}`, { cause: err, status });
  }
  return checkAnswer(question.id, reply);
}

/**
 * One attempt: the reply's JSON, or a `CallError` saying whether another attempt may succeed (429, 5xx,
 * no connection, no reply in time) and how long the endpoint asks to wait.
 */
async function postOnce(
  question: SystemQuestion,
  opts: HttpSystemOptions,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const headers = new Headers(opts.headers);
  headers.set('content-type', 'application/json');
  headers.set('accept', 'application/json');
  let status: number;
  let body: string;
  let after: number | null;
  try {
    const res = await fetch(opts.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(question),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    status = res.status;
    after = retryAfterMs(res.headers);
    body = await res.text();
  } catch (err) {
    if (signal?.aborted) throw new CallError('aborted', null, false, null);
    if (timeout.aborted) throw new CallError(`no reply within ${opts.timeoutMs} ms`, null, true, null);
    throw new CallError(networkFailure(err), null, true, null);
  }
  if (status < 200 || status > 299) {
    const retryable = status === 429 || status >= 500;
    const why = retryable ? '' : ' (not retried: a client error)';
    throw new CallError(`HTTP ${status}${why}: ${excerpt(body)}`, status, retryable, after);
  }
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new CallError(`HTTP ${status} but the body is not JSON: ${excerpt(body)}`, status, false, null);
  }
}

/** What Node's fetch says of a request that got no reply: the cause's code in words, and the code. */
function networkFailure(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause ?? err;
  const { code, errors } = cause as { code?: string; errors?: { code?: string }[] };
  const found = code ?? errors?.find((e) => e.code)?.code;
  const words = found ? (NETWORK_CODES[found] ?? errorMessage(cause)) : errorMessage(cause);
  return found ? `${words} (${found})` : words;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'host name lookup failed (DNS)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed before a reply',
};

/** The URL as messages show it: without user name and password, keys redacted. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return redactSecrets(u.href);
  } catch {
    return redactSecrets(url);
  }
}

/**
 * The pre-flight of an HTTP system: its endpoint's server answers. Reachable means any HTTP response
 * (whatever its status, 404 and 405 included; redirects are not followed) to a HEAD of the URL's origin
 * within `timeoutMs`, sent without the system's headers: it proves that the name resolves and the
 * server accepts connections and speaks HTTP, without calling the system. A URL that is not http(s),
 * a refused connection, a DNS failure or no response in time is an error naming the URL; nothing has
 * been asked then.
 */
export async function checkReachable(url: string, timeoutMs: number): Promise<void> {
  const shown = shownUrl(url);
  let origin: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
    origin = parsed.origin;
  } catch {
    throw new RgeError(`the http system's URL ${shown} is not an http:// or https:// URL`);
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(`${origin}/`, { method: 'HEAD', redirect: 'manual', signal: timeout });
    await res.body?.cancel();
  } catch (err) {
    const why = timeout.aborted ? `no response within ${timeoutMs} ms` : networkFailure(err);
    throw new RgeError(`the http system's URL ${shown} is not reachable: ${why}; no question was asked`);
  }
}
