/**
 * What the metered calls (./metered.ts, ./metered-batch.ts) share: who pays for a call, the budget as a
 * provider sees it (implemented by the run's ledger), and the retry policy of a provider call.
 */
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import pRetry, { AbortError } from 'p-retry';
import { withRequestSignal } from '../util/abort.ts';
import { redactSecrets } from './credentials.ts';
import { CallError } from './live/adapter.ts';
import type { ModelRequest } from './types.ts';

/** Who pays for a call, as the ledger books it. */
export interface Payer {
  provider: string;
  model: string;
  role: 'subject' | 'judge' | 'generator';
}

/** The budget as a provider sees it (implemented by run/ledger.ts). */
export interface Spender {
  reserve(usd: number, payer: Payer, kind?: 'call' | 'batch'): Promise<string>;
  /** Reserves the longest prefix of `costs` that fits what the cap leaves now; null when none does. */
  reserveFitting(
    costs: readonly number[],
    payer: Payer,
    kind?: 'call' | 'batch',
  ): Promise<{ id: string; usd: number; count: number } | null>;
  release(id: string): Promise<void>;
  /**
   * Holds `usd` for a batch the provider runs and bills whatever the cap (one created late, found by a
   * lookup): recorded at once, never refused; the cap stops what comes after.
   */
  hold(usd: number, payer: Payer): Promise<string>;
}

/** The retry policy of one provider call (sync, or a batch API call). */
export interface RetryPolicy {
  /** attempts, the first included */
  maxAttempts: number;
  minBackoffMs: number;
  maxBackoffMs: number;
  signal?: AbortSignal | undefined;
  /** said of each failed attempt that will be retried (keys redacted) */
  onRetry?: ((message: string) => void) | undefined;
}

/**
 * A provider call with bounded retries of transient failures (a retryable `CallError`), backing off
 * exponentially with jitter; each attempt gets a signal of its own that follows the caller's. Anything
 * else fails at once; the error thrown names the last failure, keys redacted. A reply that came in is
 * returned even when the caller's signal aborts right after it (p-retry would throw the abort instead):
 * it was paid for, and the caller stores and settles it.
 */
export async function retrying<T>(
  what: string,
  fn: (signal: AbortSignal | undefined) => Promise<T>,
  policy: RetryPolicy,
): Promise<T> {
  const received: { reply?: T; in: boolean } = { in: false };
  try {
    return await pRetry(
      async () => {
        try {
          const reply = await withRequestSignal(policy.signal, fn);
          received.reply = reply;
          received.in = true;
          return reply;
        } catch (err) {
          if (err instanceof CallError && err.retryable) throw err;
          throw new AbortError(err instanceof Error ? err : new Error(String(err)));
        }
      },
      {
        retries: policy.maxAttempts - 1,
        factor: 2,
        minTimeout: policy.minBackoffMs,
        maxTimeout: policy.maxBackoffMs,
        randomize: true,
        ...(policy.signal ? { signal: policy.signal } : {}),
        onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft > 0)
            policy.onRetry?.(
              redactSecrets(`${what}: attempt ${attemptNumber} failed (${error.message}); retrying`),
            );
        },
      },
    );
  } catch (err) {
    if (received.in) return received.reply as T;
    throw err instanceof AbortError ? err.originalError : err;
  }
}

/** cl100k tokens of a request's text (system and messages). */
export function requestTokens(request: Pick<ModelRequest, 'system' | 'messages'>): number {
  let n = encode(request.system).length;
  for (const m of request.messages) n += encode(m.content).length + 4;
  return n;
}
