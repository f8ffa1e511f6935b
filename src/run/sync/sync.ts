/**
 * Sync calls of a run: a cell's answer, then its panel's verdicts, each stored in its cell store as soon
 * as it is in and only then settled in the ledger (so a crash in between is recovered from the record).
 * Failures are recorded per cell; a call refused by the budget cap stops the run cleanly: no new call
 * starts, and every cell not computed carries the ledger's message.
 */
import { issueJudgeCall } from '../../judging/calls.ts';
import type { CallCharge, ModelReply } from '../../providers/types.ts';
import {
  type AnswerRecord,
  type AttemptRecord,
  type CellRecord,
  type CellStore,
  isJudgeable,
  type VerdictRecord,
} from '../../store/cells.ts';
import type { SubjectReply } from '../session/subjects.ts';
import type { SubjectCell, VerdictCell } from '../session/work.ts';
import { CellLease, storedNow, underLease } from './cell-lease.ts';
import type { StageContext } from './stage-context.ts';

/** A subject's reply as its cell's record: a system's own contexts and trace go with it. */
export function answerRecordFrom(cell: SubjectCell, reply: SubjectReply): AnswerRecord {
  const retrieved = reply.contexts?.map((c) => c.id) ?? reply.retrievedIds ?? cell.chunks.map((c) => c.id);
  return {
    kind: 'answer',
    key: cell.key,
    identity: cell.identity,
    subject_id: cell.subject.id,
    text: reply.text,
    reply_model: reply.model,
    retrieved_ids: [...retrieved],
    usage: reply.usage,
    latency_ms: reply.latencyMs,
    cost_usd: reply.costUsd,
    batch: Boolean(reply.batch),
    charges: reply.charges ?? [],
    ...(reply.stop ? { stop: reply.stop } : {}),
    ...(reply.contexts ? { contexts: reply.contexts } : {}),
    ...(reply.trace ? { trace: reply.trace } : {}),
    created_at: new Date().toISOString(),
  };
}

/**
 * A cell's sync call under its lease: its record goes to this process's inbox, then to its store, then
 * its calls' charges are settled; counted as computed, as reused when another process stored it, or as
 * failed (the failure recorded for the cell, never thrown).
 */
async function underCellLease<R extends CellRecord>(
  ctx: StageContext,
  cell: { stage: 'answer' | 'verdict'; id: string; key: string; store: CellStore<R> },
  make: (beforeSend: () => Promise<void>) => Promise<{ record: R; unsettled: readonly CallCharge[] }>,
  receive: (record: R) => void,
): Promise<R | null> {
  const run = ctx.run;
  const counts = cell.stage === 'answer' ? ctx.counts.answers : ctx.counts.verdicts;
  try {
    const lease = new CellLease(ctx, cell.stage, cell.key, () => storedNow(cell.store, cell.key));
    const outcome = await underLease(lease, async (beforeSend) => {
      const { record, unsettled } = await make(beforeSend);
      receive(record);
      const kept = await cell.store.put(record);
      run.inbox.stored(record.key);
      await run.ledger.settleCharges(unsettled);
      return kept;
    });
    if ('taken' in outcome) {
      counts.reused++;
      return outcome.taken;
    }
    counts.computed++;
    ctx.progress();
    return outcome.done;
  } catch (err) {
    // a call aborted by a stop (Ctrl-C) did not fail: the next run asks it
    if (!ctx.opts.signal?.aborted) counts.failed++;
    ctx.fail(cell.id, err);
    return null;
  }
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
  return underCellLease(
    ctx,
    { stage: 'answer', id: cell.id, key: cell.key, store },
    async (beforeSend) => {
      const reply = await run
        .subjectOf(cell.subject.id)
        .answer(cell, { signal: ctx.opts.signal, beforeSend });
      return { record: answerRecordFrom(cell, reply), unsettled: reply.charges ?? [] };
    },
    (record) => run.inbox.receive({ t: 'answer', record }),
  );
}

/**
 * A judge's verdict on a stored answer: the stored one, one another process stores meanwhile, or new
 * calls (a retry on a bad reply) under the cell's lease, stored then settled. `first` is a reply a batch
 * of this process already paid for (under its lease): it is stored whatever, and its charge is the
 * batch runner's to settle (the sync retry's is settled here). Without it, a first reply that an earlier
 * run paid for and kept when its retry failed is the first attempt: only the retry is asked. An
 * unusable first reply is kept (`keepAttempt`) before its retry is asked.
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
  return underCellLease(
    ctx,
    { stage: 'verdict', id, key: v.key, store },
    async (beforeSend) => {
      const { result, unsettled } = await issueJudgeCall(run.providerOf('judge', v.judge.id), v.request, {
        ...(ctx.opts.signal ? { signal: ctx.opts.signal } : {}),
        first: first ?? keptAttempt(ctx, v),
        // a batch's reply (and its retry) is paid for under the lease the batch holds: stored whatever
        ...(first ? {} : { beforeSend }),
        beforeRetry: (reply) => keepAttempt(ctx, v, reply),
      });
      const record: VerdictRecord = {
        kind: 'verdict',
        key: v.key,
        identity: v.identity,
        judge_id: v.judge.id,
        ...result,
        created_at: new Date().toISOString(),
      };
      return { record, unsettled };
    },
    (record) => run.inbox.receive({ t: 'verdict', record }),
  );
}

/**
 * Keeps a judge's unusable first reply before its retry is asked: in this process's inbox, then in the
 * attempt store, then settled at what it cost (a batch's item is spent in its batch's reservation, which
 * the batch runner closes). A retry that then fails (the cap, an abort, a kill, its attempts used up)
 * loses nothing, and a later run asks only the retry (`keptAttempt`).
 */
async function keepAttempt(ctx: StageContext, v: VerdictCell, reply: ModelReply): Promise<void> {
  const run = ctx.run;
  const record: AttemptRecord = {
    kind: 'attempt',
    key: v.key,
    identity: v.identity,
    judge_id: v.judge.id,
    text: reply.text,
    reply_model: reply.model,
    usage: reply.usage,
    latency_ms: reply.latencyMs,
    cost_usd: reply.costUsd,
    batch: Boolean(reply.batch),
    charges: reply.charges ?? [],
    created_at: new Date().toISOString(),
  };
  run.inbox.receive({ t: 'attempt', record });
  await run.attempts(v.judge).put(record);
  run.inbox.stored(record.key);
  await run.ledger.settleCharges(record.charges, { close: !record.batch });
}

/** The first reply of a verdict cell that an earlier run kept when its retry failed, as a reply. */
function keptAttempt(ctx: StageContext, v: VerdictCell): ModelReply | undefined {
  const kept = storedNow(ctx.run.attempts(v.judge), v.key);
  if (!kept) return undefined;
  return {
    text: kept.text,
    usage: kept.usage,
    latencyMs: kept.latency_ms,
    costUsd: kept.cost_usd,
    model: kept.reply_model,
    charges: kept.charges,
    batch: kept.batch,
  };
}

/**
 * The verdict cells of a stored answer that its panel has still to give (each one already stored is
 * counted as reused).
 */
export function missingVerdicts(ctx: StageContext, cell: SubjectCell, answer: AnswerRecord): VerdictCell[] {
  const run = ctx.run;
  return run.work.panel(cell.subject).flatMap((judge) => {
    const v = run.work.verdictCell(cell, answer, judge);
    if (!run.verdicts(judge).has(v.key)) return [v];
    ctx.counts.verdicts.reused++;
    return [];
  });
}

/** A cell end to end in sync mode: its answer, then its panel's verdicts. */
async function syncCell(ctx: StageContext, cell: SubjectCell): Promise<void> {
  if (ctx.run.work.isWhole(cell)) {
    // the estimate found its answer and every verdict stored: counted as syncAnswer and missingVerdicts would
    ctx.counts.answers.reused++;
    ctx.counts.verdicts.reused += ctx.run.work.panel(cell.subject).length;
    return;
  }
  const hadAnswer = ctx.run.answers(cell.subject).get(cell.key) !== undefined;
  const answer = await syncAnswer(ctx, cell);
  if (hadAnswer) ctx.counts.answers.reused++;
  if (!answer || !isJudgeable(answer)) return;
  await Promise.all(missingVerdicts(ctx, cell, answer).map((v) => syncVerdict(ctx, v)));
}

/**
 * How many cells are in flight at once: far more than any provider's concurrency, so the limiters pace
 * the calls; a run of a hundred thousand cells does not hold as many pending cells at once (issue 41).
 */
export const SYNC_WINDOW = 1_024;

/**
 * The cells interleaved across subjects (each provider gets its first calls at the start), SYNC_WINDOW at
 * a time, each started as one finishes; the providers' limiters pace the calls.
 */
export async function runSyncCells(ctx: StageContext, cells: readonly SubjectCell[]): Promise<void> {
  const order = interleaved(cells);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let cell = order[next++]; cell !== undefined; cell = order[next++]) await syncCell(ctx, cell);
  };
  await Promise.all(Array.from({ length: Math.min(SYNC_WINDOW, order.length) }, lane));
}

/** Cells round-robin by subject: s1 c1, s2 c1, s3 c1, s1 c2, ... */
export function interleaved(cells: readonly SubjectCell[]): SubjectCell[] {
  const bySubject = new Map<string, SubjectCell[]>();
  for (const c of cells) {
    const list = bySubject.get(c.subject.id);
    if (list) list.push(c);
    else bySubject.set(c.subject.id, [c]);
  }
  const lists = [...bySubject.values()];
  const out: SubjectCell[] = [];
  for (let i = 0; out.length < cells.length; i++)
    for (const l of lists) if (l[i]) out.push(l[i] as SubjectCell);
  return out;
}
