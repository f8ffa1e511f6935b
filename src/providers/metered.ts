/**
 * What every live call goes through, whatever the provider: a budget reservation of the call's worst
 * case before it is sent, the provider's rate limits (concurrency, requests and tokens per minute, with
 * Bottleneck), retries with exponential backoff and jitter on 429/5xx/529/timeouts that obey the
 * provider's `retry-after` (p-retry, a bounded number of attempts), an AbortSignal, and the price of
 * the reply from the catalogue. The adapters (`./live/*`) only translate requests and replies. A batch
 * is a way to make these calls (`MeteredProvider.batch`, ./metered-batch.ts): it is priced, reserved and
 * retried here too, so there is one place that reads prices and reserves budget.
 *
 * The reservation is NOT settled here: the caller stores the reply's record first and then settles the
 * charges the reply carries, so a crash in between is recovered from the record (see run/ledger.ts).
 * A call that fails is released (providers do not bill failed requests; a client-side timeout is
 * counted as not billed, which is why timeouts should be generous).
 */
import { randomUUID } from 'node:crypto';
import Bottleneck from 'bottleneck';
import { type Payer, requestTokens, retrying, type Spender } from './budget.ts';
import { costUsd, type PricedModel, worstCaseUsd } from './catalogue.ts';
import { redactSecrets } from './credentials.ts';
import { CallError, type LiveAdapter, type RawReply } from './live/adapter.ts';
import { MeteredBatch } from './metered-batch.ts';
import type { CallOptions, ModelReply, ModelRequest, Provider } from './types.ts';

export { type Payer, requestTokens, type Spender } from './budget.ts';

export interface RateLimits {
  /** calls in flight at once */
  concurrency: number;
  /** requests per minute; null = no limit */
  rpm: number | null;
  /** input tokens per minute (cl100k estimate); null = no limit */
  tpm: number | null;
  /** per attempt */
  timeoutMs: number;
  /** attempts per call, the first included */
  maxAttempts: number;
  /** first backoff delay; doubles per attempt, with jitter, up to maxBackoffMs */
  minBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_LIMITS: RateLimits = {
  concurrency: 4,
  rpm: 50,
  tpm: null,
  timeoutMs: 120_000,
  maxAttempts: 6,
  minBackoffMs: 1000,
  maxBackoffMs: 60_000,
};

/**
 * The limiter of one provider account, shared by every model of that provider in a process: the
 * concurrency and request spacing (minTime = 60 s / rpm), the token budget per minute (a reservoir
 * refilled every second), and a pause that a `retry-after` imposes on every call of the provider.
 */
export class ProviderLimiter {
  private readonly requests: Bottleneck;
  private readonly tokens: Bottleneck | null;
  private pausedUntil = 0;

  constructor(readonly limits: RateLimits) {
    this.requests = new Bottleneck({
      maxConcurrent: limits.concurrency,
      minTime: limits.rpm ? Math.ceil(60_000 / limits.rpm) : 0,
    });
    this.tokens = limits.tpm
      ? new Bottleneck({
          reservoir: limits.tpm,
          reservoirIncreaseInterval: 1000,
          reservoirIncreaseAmount: Math.max(1, Math.ceil(limits.tpm / 60)),
          reservoirIncreaseMaximum: limits.tpm,
        })
      : null;
  }

  /** Asks every call of this provider to wait `ms` (a `retry-after`). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  /**
   * Runs `fn` in a slot. A call whose `signal` aborts while it waits for its slot (a stop) leaves the
   * queue at once and is never sent; once `fn` has started, its outcome is awaited whatever the signal.
   */
  async run<T>(tokens: number, priority: number, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.tokens) {
      const weight = Math.min(Math.max(1, tokens), this.limits.tpm ?? tokens);
      const reservoir = this.tokens;
      await queued(
        (job) => reservoir.schedule({ weight, priority }, job),
        async () => undefined,
        signal,
      );
    }
    return queued(
      (job) => this.requests.schedule({ priority }, job),
      async () => {
        const wait = this.pausedUntil - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        return fn();
      },
      signal,
    );
  }
}

/**
 * A job put in a Bottleneck queue (`schedule`), given up when `signal` aborts before the job starts: the
 * caller gets the abort at once, and the job, when its turn comes, does nothing. A job that started is
 * awaited to its end.
 */
function queued<T>(
  schedule: (job: () => Promise<T>) => Promise<T>,
  job: () => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) return schedule(job);
  let started = false;
  const scheduled = schedule(async () => {
    signal.throwIfAborted();
    started = true;
    return job();
  });
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      if (!started) reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    scheduled.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Carries the error of a refused budget reservation through the retry loop untouched. */
class ReservationRefused extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

export interface MeteredOptions {
  id: string;
  family: string;
  version: string;
  role: Payer['role'];
  adapter: LiveAdapter;
  priced: PricedModel;
  limiter: ProviderLimiter;
  spender: Spender | null;
  /** reported with each call attempt that fails and will be retried */
  onRetry?: (message: string) => void;
}

export class MeteredProvider implements Provider {
  readonly id: string;
  readonly family: string;
  readonly version: string;

  constructor(private readonly opts: MeteredOptions) {
    this.id = opts.id;
    this.family = opts.family;
    this.version = opts.version;
  }

  /** The provider's batch API, metered the same way (null when it has none: openai-compatible). */
  get batch(): MeteredBatch | null {
    const batch = this.opts.adapter.batch;
    return batch ? new MeteredBatch(batch, this.payer, this.opts.priced, this.opts.spender) : null;
  }

  get payer(): Payer {
    return {
      provider: this.opts.adapter.provider,
      model: this.id.split('/').slice(1).join('/'),
      role: this.opts.role,
    };
  }

  async complete(request: ModelRequest, options: CallOptions = {}): Promise<ModelReply> {
    const { priced, spender } = this.opts;
    const tokens = requestTokens(request);
    if (Math.ceil(tokens * priced.tokenRatio) > priced.standardTierMaxInput)
      throw new CallError(
        `${this.id}: a prompt of about ${tokens} tokens is above the ${priced.standardTierMaxInput}-token tier the catalogue prices`,
        null,
        false,
        null,
      );
    const worst = worstCaseUsd(priced, tokens, request.maxTokens, { batch: false });
    // The budget is reserved once per call, when the call gets its rate-limit slot (not while it queues,
    // so queued calls do not hold the budget and the ledger is not a queue in front of the limiter).
    let reservation: string | null = null;
    const reserve = async () => {
      await options.beforeSend?.();
      if (spender && reservation === null) reservation = await spender.reserve(worst, this.payer);
    };
    const started = performance.now();
    let raw: RawReply;
    try {
      raw = await this.withRetries(request, tokens, options, reserve);
    } catch (err) {
      if (reservation !== null && spender) await spender.release(reservation);
      throw err;
    }
    const latencyMs = performance.now() - started;
    const usd = costUsd(raw.usage, priced.prices, { batch: false });
    return {
      text: raw.text,
      usage: raw.usage,
      latencyMs,
      costUsd: usd,
      model: raw.model,
      charges: [{ reservation, key: reservation ?? `free-${randomUUID()}`, usd }],
      batch: false,
      stop: raw.stop,
    };
  }

  /** One call with bounded retries; the error thrown at the end names the last failure, keys redacted. */
  async withRetries(
    request: ModelRequest,
    tokens: number,
    options: CallOptions,
    onSlot: () => Promise<void> = async () => {},
  ): Promise<RawReply> {
    const { adapter, limiter } = this.opts;
    const attempt = (signal: AbortSignal | undefined) =>
      limiter.run(
        tokens,
        options.priority ?? 5,
        async () => {
          try {
            await onSlot();
          } catch (err) {
            // A refused reservation (the budget cap) or claim (the cell is another process's) is not a
            // call failure: never retried, passed on as is.
            throw new ReservationRefused(err);
          }
          try {
            const raw = await adapter.complete(request, signal);
            if (raw.pauseMs) limiter.pause(raw.pauseMs);
            return raw;
          } catch (err) {
            const e = err instanceof CallError ? err : new CallError(String(err), null, false, null);
            if (e.retryable && e.retryAfterMs !== null) limiter.pause(e.retryAfterMs);
            throw e;
          }
        },
        signal,
      );
    const { limits } = limiter;
    try {
      return await retrying(this.id, attempt, {
        maxAttempts: limits.maxAttempts,
        minBackoffMs: limits.minBackoffMs,
        maxBackoffMs: limits.maxBackoffMs,
        signal: options.signal,
        onRetry: this.opts.onRetry,
      });
    } catch (err) {
      if (err instanceof ReservationRefused) throw err.reason;
      const message = redactSecrets(err instanceof Error ? err.message : String(err));
      const status = err instanceof CallError ? err.status : null;
      throw new CallError(`${this.id}: ${message}`, status, false, null);
    }
  }
}
