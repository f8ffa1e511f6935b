/**
 * A provider's batch API as a way to make metered calls (Anthropic Message Batches, OpenAI Batch + Files,
 * Gemini batch mode): the batch's worst case is priced from the catalogue at the batch discount and
 * reserved in the budget before it is submitted (a batch holds as many items as the cap leaves room for); each reply is priced at the batch rate; every call to
 * the batch API (submit, look-up, poll, results) is retried on transient failures like a sync call.
 * What a batch is for a run (its record, leases, resume, the sync fallback) is the run's (run/batch/batches.ts).
 */
import { type Payer, requestTokens, retrying, type Spender } from './budget.ts';
import { costUsd, type PricedModel, worstCaseUsd } from './catalogue.ts';
import {
  type BatchAdapter,
  type BatchItem,
  type BatchItemResult,
  type BatchProgress,
  outcomeUnknown,
  type RemoteBatch,
  type RemoteFile,
  type TagQuery,
} from './live/adapter.ts';
import type { CallCharge, ModelRequest, Usage } from './types.ts';

/** How the calls to a batch API are retried: the run's signal, the first backoff, where retries are said. */
export interface BatchCallOptions {
  signal?: AbortSignal | undefined;
  /** the first backoff (a run polls every poll_interval_ms: no longer than that) */
  minBackoffMs: number;
  onRetry?: ((message: string) => void) | undefined;
}

/** Attempts per batch API call, the first included; backoff doubles up to a minute. */
const BATCH_ATTEMPTS = 6;
const BATCH_MAX_BACKOFF_MS = 60_000;

export class MeteredBatch {
  constructor(
    private readonly adapter: BatchAdapter,
    /** who pays, as the ledger books it */
    readonly payer: Payer,
    private readonly priced: PricedModel,
    private readonly spender: Spender | null,
  ) {}

  /** Largest number of items and bytes of requests one batch may hold. */
  get limits(): { items: number; bytes: number } {
    return this.adapter.limits;
  }

  /** Each request's worst case, counted once (a waiting item is sized again at every wave). */
  private readonly worst = new WeakMap<ModelRequest, number>();

  /** What one item can cost at most: its max_tokens of output, at the batch price. */
  itemWorstCaseUsd(request: ModelRequest): number {
    let usd = this.worst.get(request);
    if (usd === undefined) {
      usd = worstCaseUsd(this.priced, requestTokens(request), request.maxTokens, { batch: true });
      this.worst.set(request, usd);
    }
    return usd;
  }

  /** What a batch of these requests can cost at most: every item at its max_tokens, at the batch price. */
  worstCaseUsd(requests: readonly ModelRequest[]): number {
    return requests.reduce((sum, r) => sum + this.itemWorstCaseUsd(r), 0);
  }

  /**
   * Reserves, before the batch is submitted, the worst case of the longest prefix of `requests` that
   * fits what the cap leaves (the batch is then that prefix; the rest waits for a later batch). Null
   * when not even the first fits. Returns the reservation, what it holds and how many requests it covers.
   */
  async reserveFitting(
    requests: readonly ModelRequest[],
  ): Promise<{ reservation: string; usd: number; count: number } | null> {
    if (!this.spender)
      throw new Error(`${this.payer.provider}/${this.payer.model}: no budget to reserve from`);
    const got = await this.spender.reserveFitting(
      requests.map((r) => this.itemWorstCaseUsd(r)),
      this.payer,
      'batch',
    );
    return got && { reservation: got.id, usd: got.usd, count: got.count };
  }

  /** Frees a batch's reservation (a batch never submitted, or abandoned). */
  async release(reservation: string): Promise<void> {
    await this.spender?.release(reservation);
  }

  /** The charge of one item's reply, at the batch price, on the batch's reservation. */
  charge(usage: Usage, reservation: string | null, key: string): CallCharge {
    return { reservation, key, usd: costUsd(usage, this.priced.prices, { batch: true }) };
  }

  private call<T>(what: string, opts: BatchCallOptions, fn: (signal: AbortSignal | undefined) => Promise<T>) {
    return retrying(what, fn, {
      maxAttempts: BATCH_ATTEMPTS,
      minBackoffMs: opts.minBackoffMs,
      maxBackoffMs: BATCH_MAX_BACKOFF_MS,
      signal: opts.signal,
      onRetry: opts.onRetry,
    });
  }

  /**
   * Submits the items under `tag`. An attempt whose create may have been carried out (`outcomeUnknown`:
   * a timeout, a lost connection, an abort after sending, a 5xx) is told to `onUnknown` before anything
   * else happens, and the next attempt first looks for the batch (`lookup`: the query, and the batch ids
   * other records hold); what it finds is the batch. A create that reaches the provider after that look
   * can still make a second batch: the run looks for it again later (run/batch/lookup.ts).
   */
  submit(
    items: readonly BatchItem[],
    tag: string,
    lookup: () => { query: TagQuery; exclude: ReadonlySet<string> },
    opts: BatchCallOptions & {
      onUpload?: (file: RemoteFile) => Promise<void>;
      onUnknown?: (err: Error) => Promise<void>;
    },
  ): Promise<string> {
    let unknown = false;
    return this.call(`batch ${tag} submit`, opts, async (signal) => {
      if (unknown) {
        const { query, exclude } = lookup();
        const existing = (await this.adapter.findTagged([query], signal)).find(
          (b) => b.tag === tag && !exclude.has(b.id),
        );
        if (existing) return existing.id;
      }
      try {
        return await this.adapter.submit(items, tag, signal, opts.onUpload);
      } catch (err) {
        if (outcomeUnknown(err)) {
          unknown = true;
          await opts.onUnknown?.(err as Error);
        }
        throw err;
      }
    });
  }

  /** Whether the provider keeps files for batches until they are deleted (OpenAI's Files API). */
  get keepsFiles(): boolean {
    return this.adapter.files !== undefined;
  }

  /** A batch's files at the provider (none where it keeps none). */
  filesOf(tag: string, batchId: string, opts: BatchCallOptions): Promise<RemoteFile[]> {
    const files = this.adapter.files;
    if (!files) return Promise.resolve([]);
    return this.call(`batch ${tag} files`, opts, (signal) => files.of(batchId, signal));
  }

  /** The input files uploaded under `tag` (a submission cut short may have left one without a batch). */
  uploadedAs(tag: string, opts: BatchCallOptions): Promise<RemoteFile[]> {
    const files = this.adapter.files;
    if (!files) return Promise.resolve([]);
    return this.call(`batch ${tag} uploads`, opts, (signal) => files.uploadedAs(tag, signal));
  }

  /** Deletes one of a batch's files at the provider (one already gone counts as deleted). */
  async deleteFile(tag: string, fileId: string, opts: BatchCallOptions): Promise<void> {
    const files = this.adapter.files;
    if (files)
      await this.call(`batch ${tag} delete ${fileId}`, opts, (signal) => files.delete(fileId, signal));
  }

  /** The batches at the provider that answer the queries (`BatchAdapter.findTagged`). */
  findTagged(queries: readonly TagQuery[], opts: BatchCallOptions): Promise<RemoteBatch[]> {
    if (queries.length === 0) return Promise.resolve([]);
    const what = queries.length === 1 ? `batch ${queries[0]?.tag}` : `${queries.length} batches`;
    return this.call(`${what} lookup`, opts, (signal) => this.adapter.findTagged(queries, signal));
  }

  /** Asks the provider to cancel a batch. */
  cancel(tag: string, batchId: string, opts: BatchCallOptions): Promise<void> {
    return this.call(`batch ${tag} cancel`, opts, (signal) => this.adapter.cancel(batchId, signal));
  }

  /**
   * Holds the worst case of a batch found at the provider that no reservation holds (one created late,
   * after its record gave up on it): it runs and is billed whatever the cap, so it is held whatever the
   * cap (`Spender.hold`), and settles to its real cost when it is collected.
   */
  async hold(usd: number): Promise<string> {
    if (!this.spender)
      throw new Error(`${this.payer.provider}/${this.payer.model}: no budget to hold the batch in`);
    return this.spender.hold(usd, this.payer);
  }

  progress(tag: string, batchId: string, items: number, opts: BatchCallOptions): Promise<BatchProgress> {
    return this.call(`batch ${tag} poll`, opts, (signal) => this.adapter.progress(batchId, items, signal));
  }

  results(
    tag: string,
    batchId: string,
    customIds: readonly string[],
    opts: BatchCallOptions,
  ): Promise<BatchItemResult[]> {
    return this.call(`batch ${tag} results`, opts, (signal) =>
      this.adapter.results(batchId, customIds, signal),
    );
  }
}
