/**
 * Sync calls of a run: a cell's answer, then its panel's verdicts, each stored in its cell store as soon
 * as it is in and only then settled in the ledger (so a crash in between is recovered from the record).
 * Failures are recorded per cell; a call refused by the budget cap stops the run cleanly: no new call
 * starts, and every cell not computed carries the ledger's message.
 */
import { issueJudgeCall } from '../judging/calls.ts';
import type { CallCharge, ModelReply } from '../providers/types.ts';
import { errorMessage } from '../util/errors.ts';
import { type AnswerRecord, isJudgeable, type VerdictRecord } from './cells.ts';
import { BudgetExceededError, type BudgetLedger } from './ledger.ts';
import type { RunSession } from './open.ts';
import { recoverLedger } from './recover.ts';
import type { SubjectCell, VerdictCell } from './work.ts';

/** Bottleneck priority of subject calls: after judge calls (judging/calls.ts), so that started cells finish. */
const SUBJECT_PRIORITY = 5;

export interface StageOptions {
  signal?: AbortSignal;
  /** progress and notices (one line each) */
  log?: (line: string) => void;
  /** skip the pre-flight refusal (tests of the cap itself) */
  skipPreflight?: boolean;
}

export class StageContext {
  readonly errors = new Map<string, string>();
  stopped: Error | null = null;
  /** one recovery of the ledger at a time, after leases of a stopped process were taken over */
  private recovering: Promise<void> = Promise.resolve();
  readonly counts = {
    answers: { computed: 0, reused: 0, failed: 0 },
    verdicts: { computed: 0, reused: 0, failed: 0 },
    batches: 0,
  };

  /** calls the run still had to make when it started (for the progress line) */
  expectedCalls = 0;
  private lastProgress = Date.now();
  private readonly started = Date.now();

  constructor(
    readonly run: RunSession,
    readonly opts: StageOptions,
  ) {}

  log(line: string): void {
    this.opts.log?.(line);
  }

  /** A progress line (at most one every 5 s, and the last): calls done, failed, left, and an ETA. */
  progress(final = false): void {
    const c = this.counts;
    const done = c.answers.computed + c.verdicts.computed;
    const failed = c.answers.failed + c.verdicts.failed;
    const now = Date.now();
    if (this.expectedCalls === 0 || (!final && now - this.lastProgress < 5000)) return;
    this.lastProgress = now;
    const left = Math.max(0, this.expectedCalls - done - failed);
    const rate = done / Math.max(1, now - this.started);
    const eta = left > 0 && rate > 0 ? `, about ${Math.ceil(left / rate / 1000)} s left` : '';
    this.log(
      `progress: ${c.answers.computed} answers and ${c.verdicts.computed} verdicts done, ${failed} failed, ${left} calls to go${eta}`,
    );
  }

  /**
   * Settles in the ledger what the stopped processes whose leases this run took over left open (their
   * calls' records, else worst-case bookings), one recovery at a time.
   */
  recoverTakenOver(): Promise<void> {
    const next = this.recovering.then(() => recoverLedger(this.run, (line) => this.log(line)));
    this.recovering = next.catch(() => undefined);
    return next;
  }

  private shared = false;

  /** Says once that another process is computing cells of this run, which this run waits for. */
  sharing(pid: number | undefined): void {
    if (this.shared) return;
    this.shared = true;
    this.log(
      `another process${pid === undefined ? '' : ` (pid ${pid})`} is computing cells of this run in the same results folder: ` +
        'this run waits for its results instead of paying for them twice',
    );
  }

  fail(cellId: string, err: unknown): void {
    if (err instanceof BudgetExceededError) {
      if (!this.stopped) {
        this.stopped = err;
        this.log(err.message);
      }
    }
    this.errors.set(cellId, errorMessage(err));
  }
}

/** Settles the charges of a stored record in the ledger (each sync reservation closes with its call). */
export async function settleCharges(
  ledger: BudgetLedger,
  charges: readonly CallCharge[],
  opts: { close: boolean } = { close: true },
): Promise<void> {
  const byReservation = new Map<string, { key: string; usd: number }[]>();
  for (const c of charges) {
    if (!c.reservation) continue;
    byReservation.set(c.reservation, [
      ...(byReservation.get(c.reservation) ?? []),
      { key: c.key, usd: c.usd },
    ]);
  }
  for (const [reservation, spends] of byReservation) await ledger.settle(reservation, spends, opts);
}

export function answerRecordFrom(cell: SubjectCell, reply: ModelReply): AnswerRecord {
  return {
    kind: 'answer',
    key: cell.key,
    identity: cell.identity,
    subject_id: cell.subject.id,
    text: reply.text,
    reply_model: reply.model,
    retrieved_ids: reply.retrievedIds ? [...reply.retrievedIds] : cell.chunks.map((c) => c.id),
    usage: reply.usage,
    latency_ms: reply.latencyMs,
    cost_usd: reply.costUsd,
    batch: Boolean(reply.batch),
    charges: reply.charges ?? [],
    ...(reply.stop ? { stop: reply.stop } : {}),
    created_at: new Date().toISOString(),
  };
}

/** A cell's call gave way: another live process holds the cell, or stored it just now (`stored`). */
class CellTaken extends Error {
  constructor(readonly stored: unknown) {
    super("the cell is another process's");
    this.name = 'CellTaken';
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lease of one cell (run/leases.ts), claimed when its call has its rate-limit slot (`beforeSend`),
 * so that a process claims only what it is about to pay for. When another live process holds the cell,
 * or stored it just before letting it go, the call gives way (CellTaken) before anything is reserved or
 * sent; `wait` then waits, holding no slot, for that process's record, or for the lease to be free.
 */
class CellLease<R> {
  private claimed = false;

  constructor(
    private readonly ctx: StageContext,
    private readonly stage: 'answer' | 'verdict',
    private readonly key: string,
    /** the cell's record, after reading what other processes stored */
    private readonly stored: () => R | undefined,
  ) {}

  readonly beforeSend = async (): Promise<void> => {
    const leases = this.ctx.run.leases;
    const { mine, tookOver } = await leases.claim(this.stage, [this.key]);
    if (tookOver.length > 0) await this.ctx.recoverTakenOver();
    if (!mine.has(this.key)) {
      this.ctx.sharing(leases.holder(this.stage, this.key)?.pid);
      throw new CellTaken(undefined);
    }
    this.claimed = true;
    const now = this.stored();
    if (now !== undefined) throw new CellTaken(now);
  };

  /** The record another process stored, or undefined once the cell is free to claim again. */
  async wait(): Promise<R | undefined> {
    const leases = this.ctx.run.leases;
    for (let delay = 20; ; delay = Math.min(1000, delay * 1.5)) {
      await pause(delay);
      if (this.ctx.opts.signal?.aborted)
        throw new Error(`interrupted while another process was computing this ${this.stage}`);
      const now = this.stored();
      if (now !== undefined) return now;
      leases.refresh();
      if (!leases.heldByOther(this.stage, this.key)) return undefined;
    }
  }

  async release(): Promise<void> {
    if (this.claimed) await this.ctx.run.leases.release(this.stage, [this.key]);
    this.claimed = false;
  }
}

/**
 * Makes a cell's call under its lease (`call` gets the lease's `beforeSend`): its result, or the record
 * another process stored instead (`taken`), waiting for it when that process is still at it.
 */
async function underLease<R, T>(
  lease: CellLease<R>,
  call: (beforeSend: () => Promise<void>) => Promise<T>,
): Promise<{ done: T } | { taken: R }> {
  try {
    for (;;) {
      try {
        return { done: await call(lease.beforeSend) };
      } catch (err) {
        if (!(err instanceof CellTaken)) throw err;
        const now = (err.stored as R | undefined) ?? (await lease.wait());
        if (now !== undefined) return { taken: now };
      }
    }
  } finally {
    await lease.release();
  }
}

/** A store's record of a key, after reading what other processes appended. */
function storedNow<R>(
  store: { refresh(): void; get(key: string): R | undefined },
  key: string,
): R | undefined {
  store.refresh();
  return store.get(key);
}

/**
 * The subject's answer to a cell: the stored one, one another process stores meanwhile, or a new sync
 * call (under the cell's lease) stored then settled.
 */
export async function syncAnswer(ctx: StageContext, cell: SubjectCell): Promise<AnswerRecord | null> {
  const run = ctx.run;
  const store = run.answers(cell.subject);
  const stored = store.get(cell.key);
  if (stored) return stored;
  if (ctx.stopped) {
    ctx.errors.set(cell.id, ctx.stopped.message);
    return null;
  }
  try {
    const lease = new CellLease(ctx, 'answer', cell.key, () => storedNow(store, cell.key));
    const outcome = await underLease(lease, async (beforeSend) => {
      const reply = await run.providerOf('subject', cell.subject.id).complete(cell.request, {
        ...(ctx.opts.signal ? { signal: ctx.opts.signal } : {}),
        priority: SUBJECT_PRIORITY,
        beforeSend,
      });
      const record = answerRecordFrom(cell, reply);
      run.inbox.receive({ t: 'answer', record });
      const kept = await store.put(record);
      run.inbox.stored(record.key);
      await settleCharges(run.ledger, reply.charges ?? []);
      return kept;
    });
    if ('taken' in outcome) {
      ctx.counts.answers.reused++;
      return outcome.taken;
    }
    ctx.counts.answers.computed++;
    ctx.progress();
    return outcome.done;
  } catch (err) {
    ctx.counts.answers.failed++;
    ctx.fail(cell.id, err);
    return null;
  }
}

/**
 * A judge's verdict on a stored answer: the stored one, one another process stores meanwhile, or new
 * calls (a retry on a bad reply) under the cell's lease, stored then settled. `first` is a reply a batch
 * of this process already paid for (under its lease): it is stored whatever.
 */
export async function syncVerdict(
  ctx: StageContext,
  v: VerdictCell,
  first?: ModelReply,
): Promise<VerdictRecord | null> {
  const run = ctx.run;
  const store = run.verdicts(v.judge);
  const stored = store.get(v.key);
  if (stored) return stored;
  const id = `${v.cell.id}/judge ${v.judge.id}`;
  if (ctx.stopped && !first) {
    ctx.errors.set(id, ctx.stopped.message);
    return null;
  }
  try {
    const lease = new CellLease(ctx, 'verdict', v.key, () => storedNow(store, v.key));
    const outcome = await underLease(lease, async (beforeSend) => {
      const { result, unsettled } = await issueJudgeCall(run.providerOf('judge', v.judge.id), v.request, {
        ...(ctx.opts.signal ? { signal: ctx.opts.signal } : {}),
        first,
        // a batch's reply (and its retry) is paid for under the lease the batch holds: stored whatever
        ...(first ? {} : { beforeSend }),
      });
      const record: VerdictRecord = {
        kind: 'verdict',
        key: v.key,
        identity: v.identity,
        judge_id: v.judge.id,
        ...result,
        created_at: new Date().toISOString(),
      };
      run.inbox.receive({ t: 'verdict', record });
      const kept = await store.put(record);
      run.inbox.stored(record.key);
      // The batch reply's charge is settled by the batch runner; the sync retry's here.
      await settleCharges(run.ledger, unsettled);
      return kept;
    });
    if ('taken' in outcome) {
      ctx.counts.verdicts.reused++;
      return outcome.taken;
    }
    ctx.counts.verdicts.computed++;
    ctx.progress();
    return outcome.done;
  } catch (err) {
    ctx.counts.verdicts.failed++;
    ctx.fail(id, err);
    return null;
  }
}

/**
 * The verdict cells of a stored answer that its panel has still to give (each one already stored is
 * counted as reused).
 */
export function missingVerdicts(ctx: StageContext, cell: SubjectCell, answer: AnswerRecord): VerdictCell[] {
  const run = ctx.run;
  return run.work.panel(cell.subject).flatMap((judge) => {
    const v = run.work.verdictCell(cell, answer, judge);
    if (!run.verdicts(judge).get(v.key)) return [v];
    ctx.counts.verdicts.reused++;
    return [];
  });
}

/** A cell end to end in sync mode: its answer, then its panel's verdicts. */
async function syncCell(ctx: StageContext, cell: SubjectCell): Promise<void> {
  const hadAnswer = ctx.run.answers(cell.subject).get(cell.key) !== undefined;
  const answer = await syncAnswer(ctx, cell);
  if (hadAnswer) ctx.counts.answers.reused++;
  if (!answer || !isJudgeable(answer)) return;
  await Promise.all(missingVerdicts(ctx, cell, answer).map((v) => syncVerdict(ctx, v)));
}

/**
 * Every cell at once, interleaved across subjects (each provider gets its first calls at the start);
 * the providers' limiters pace the calls.
 */
export async function runSyncCells(ctx: StageContext, cells: readonly SubjectCell[]): Promise<void> {
  await Promise.all(interleaved(cells).map((cell) => syncCell(ctx, cell)));
}

/** Cells round-robin by subject: s1 c1, s2 c1, s3 c1, s1 c2, ... */
export function interleaved(cells: readonly SubjectCell[]): SubjectCell[] {
  const bySubject = new Map<string, SubjectCell[]>();
  for (const c of cells) bySubject.set(c.subject.id, [...(bySubject.get(c.subject.id) ?? []), c]);
  const lists = [...bySubject.values()];
  const out: SubjectCell[] = [];
  for (let i = 0; out.length < cells.length; i++)
    for (const l of lists) if (l[i]) out.push(l[i] as SubjectCell);
  return out;
}
