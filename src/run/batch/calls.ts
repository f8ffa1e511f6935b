/**
 * One batch's life against its provider, for a run (run/batch/batches.ts): submitted (recorded before and
 * after, as many items as the cap leaves room for), resumed after a stop, polled until it ends,
 * collected into the cell stores. The provider's
 * side (the worst case, the reservation, the batch price, retries of the batch API) is the metered
 * batch's (providers/metered-batch.ts); what is here is the record, the leases and the ledger's adopt
 * and settle, which the run owns.
 */
import { redactSecrets } from '../../providers/credentials.ts';
import type { BatchItemResult } from '../../providers/live/adapter.ts';
import type { BatchCallOptions, MeteredBatch } from '../../providers/metered-batch.ts';
import type { ModelReply, ModelRequest } from '../../providers/types.ts';
import { type BatchRecord, customIdPrefix, lookupOf, saveBatchRecord } from '../../store/batch-records.ts';
import { errorMessage } from '../../util/errors.ts';
import { sha256 } from '../../util/fs.ts';
import type { StageContext } from '../sync/stage-context.ts';
import { deleteBatchFiles, type FileCalls, noteFile } from './files.ts';

/** One unit of batch work: the request, the cell store key it fills, and what to do with its reply. */
export interface WorkItem {
  key: string;
  request: ModelRequest;
  /** stores the reply's record (and settles any sync retry); false when it could not be stored */
  handle: (reply: ModelReply) => Promise<boolean>;
  /** falls back to a sync call */
  fallback: () => Promise<void>;
}

/** One model's batch work: its metered batch API, its items, and what its cell store holds. */
export interface BatchGroup {
  batch: MeteredBatch;
  /** the leases of its cells (run/leases.ts) */
  stage: 'answer' | 'verdict';
  items: WorkItem[];
  /** is a cell of this model's store already stored (by this or another run, as last read)? */
  isStored: (key: string) => boolean;
  /**
   * is a cell's reply kept for a sync retry that has not given its record yet (a judge's unusable reply,
   * cells/attempts/)? The batch's work for it is done: the next run asks only the retry.
   */
  isKept?: (key: string) => boolean;
  /** reads what other processes stored */
  refresh: () => void;
}

const fmtUsd = (x: number) => `$${x.toFixed(x >= 1 ? 2 : 4)}`;

/** How a run's batch API calls are retried: its signal, a first backoff no longer than its poll interval. */
export function batchCallOptions(ctx: StageContext): BatchCallOptions {
  return {
    signal: ctx.opts.signal,
    minBackoffMs: Math.min(1000, ctx.run.plan.config.batch.poll_interval_ms),
    onRetry: (line) => ctx.log(line),
  };
}

/** How a run's calls about batch files are made and their failures said (run/batch/files.ts). */
export const fileCalls = (ctx: StageContext): FileCalls => ({
  opts: batchCallOptions(ctx),
  log: (line) => ctx.log(line),
});

const what = (role: string) => (role === 'subject' ? 'answers' : 'verdicts');

/**
 * Submits one batch of the longest prefix of `waiting` whose worst case fits what the cap leaves (all of
 * it when it fits), recorded before and after; returns the record (status submitted or failed), or null
 * when not even the first item fits (nothing reserved, nothing recorded).
 */
export async function submit(
  ctx: StageContext,
  group: BatchGroup,
  waiting: WorkItem[],
  dir: string,
): Promise<BatchRecord | null> {
  const run = ctx.run;
  const payer = group.batch.payer;
  const reservation = await group.batch.reserveFitting(waiting.map((i) => i.request));
  if (!reservation) return null;
  const items = waiting.slice(0, reservation.count);
  const n = ctx.counts.batches++;
  const id = `rge-${run.plan.info.runId}-${payer.role}-${sha256(`${payer.provider}/${payer.model}:${Date.now()}:${process.pid}:${n}`).slice(0, 10)}`;
  // the record is this process's to poll from the moment it exists
  await run.leases.claim('batch', [id]);
  const now = new Date().toISOString();
  const record: BatchRecord = {
    id,
    run_id: run.plan.info.runId,
    provider: payer.provider,
    model: payer.model,
    role: payer.role,
    status: 'submitting',
    remote_id: null,
    reservation: reservation.reservation,
    reserved_usd: reservation.usd,
    submitted_after_ms: Date.now(),
    items: items.map((item, i) => ({ custom_id: `${customIdPrefix(id)}${i}`, key: item.key })),
    files: [],
    error: null,
    unknown_attempts: 0,
    late_of: null,
    created_at: now,
    updated_at: now,
  };
  await saveBatchRecord(dir, record);
  ctx.log(
    `batch ${id}: submitting ${items.length} ${what(payer.role)} to ${payer.provider}/${payer.model}` +
      ` (worst case ${fmtUsd(reservation.usd)} reserved; ${fmtUsd(run.ledger.summary().leftUsd)} left of the cap` +
      (items.length < waiting.length
        ? `; ${waiting.length - items.length} more wait for earlier batches to settle)`
        : ')'),
  );
  try {
    const batchItems = record.items.map((item, i) => ({
      customId: item.custom_id,
      request: (items[i] as WorkItem).request,
    }));
    record.remote_id = await group.batch.submit(batchItems, id, () => lookupOf(record, dir), {
      ...batchCallOptions(ctx),
      // an uploaded input file is recorded before its batch is created, to be deleted whatever happens
      onUpload: async (file) => {
        noteFile(record, file);
        await saveBatchRecord(dir, record);
      },
      // a create that may have made the batch is on record before anything else is tried
      onUnknown: async () => {
        record.unknown_attempts++;
        await saveBatchRecord(dir, record);
      },
    });
    record.status = 'submitted';
  } catch (err) {
    await submitFailed(ctx, group.batch, record, err, dir);
  }
  await saveBatchRecord(dir, record);
  return record;
}

/**
 * A submission that threw: `unknown` when an attempt's create may have made the batch (its items and
 * reservation stay held until the provider is asked: lookup.ts), else `failed` (the provider
 * refused it: the reservation released, the upload deleted, the items to sync calls).
 */
async function submitFailed(
  ctx: StageContext,
  batch: MeteredBatch,
  record: BatchRecord,
  err: unknown,
  dir: string,
): Promise<void> {
  record.error = redactSecrets(errorMessage(err));
  if (record.unknown_attempts > 0) {
    record.status = 'unknown';
    ctx.log(
      `batch ${record.id}: its submission ended without an answer (${record.error}); the batch may exist, ` +
        `so its items wait until ${record.provider} is asked for batches tagged ${record.id}`,
    );
    return;
  }
  record.status = 'failed';
  if (record.reservation) await batch.release(record.reservation);
  ctx.log(`batch ${record.id}: submission failed (${record.error}); its items run as sync calls`);
  await sweepUpload(ctx, batch, record, dir);
}

/** Deletes what a submission that never became a batch uploaded (found by its name, if not recorded). */
export function sweepUpload(
  ctx: StageContext,
  batch: MeteredBatch,
  record: BatchRecord,
  dir: string,
): Promise<void> {
  return deleteBatchFiles(batch, record, dir, { which: 'all', learn: false, sweep: true }, fileCalls(ctx));
}

/**
 * Gives a record up for lack of a batch of its own (`absent`): its reservation released, its items free
 * to be asked again, what it uploaded deleted (`sweep`: looked for by its name too). A batch created
 * later under its tag is still looked for (lookup.ts `awaitsLate`).
 */
export async function markAbsent(
  ctx: StageContext,
  batch: MeteredBatch,
  record: BatchRecord,
  dir: string,
  why: string,
  opts: { sweep: boolean } = { sweep: true },
): Promise<void> {
  record.status = 'absent';
  record.remote_id = null;
  record.error = `${record.error ? `${record.error}; ` : ''}${why}`;
  if (record.reservation) await batch.release(record.reservation);
  await saveBatchRecord(dir, record);
  ctx.log(
    `batch ${record.id}: ${why}; its items are asked again (a batch created later under its tag is still looked for)`,
  );
  await deleteBatchFiles(
    batch,
    record,
    dir,
    { which: 'all', learn: false, sweep: opts.sweep },
    fileCalls(ctx),
  );
}

/**
 * Polls each batch once, printing a line per batch when it changes (`last` keeps what was printed: the
 * line, or only the batch's state when progress is said once a stage ends); returns the ids of the
 * batches that have ended.
 */
export async function poll(
  ctx: StageContext,
  group: BatchGroup,
  records: readonly BatchRecord[],
  last: Map<string, string>,
): Promise<string[]> {
  const ended: string[] = [];
  for (const r of records) {
    if (!r.remote_id) continue;
    const p = await group.batch.progress(r.id, r.remote_id, r.items.length, batchCallOptions(ctx));
    const line = `batch ${r.id} (${r.provider}/${r.model}, ${what(r.role)}): ${p.state}, ${p.done} done, ${p.waiting} waiting, ${p.failed} failed`;
    const seen = ctx.periodic ? line : p.state;
    if (last.get(r.id) !== seen) ctx.log(line);
    last.set(r.id, seen);
    if (p.ended) ended.push(r.id);
  }
  return ended;
}

/**
 * Stores what an ended batch returned and settles each item in the ledger; returns the work items that
 * must fall back to sync calls. Items of another run's cells are left for that run (the batch stays
 * `submitted` until every item is stored or failed); an item stored before a stop is settled again,
 * which the ledger ignores if it already was.
 */
export async function collect(
  ctx: StageContext,
  group: BatchGroup,
  record: BatchRecord,
  work: Map<string, WorkItem>,
  dir: string,
): Promise<WorkItem[]> {
  const run = ctx.run;
  const free = () =>
    record.items.flatMap((i) => {
      const item = work.get(i.key);
      return item && !group.isStored(i.key) ? [item] : [];
    });
  // looked up and not found: its items are free again
  if (record.status === 'absent') return free();
  const ids = record.items.map((i) => i.custom_id);
  const results: BatchItemResult[] = await group.batch.results(
    record.id,
    record.remote_id as string,
    ids,
    batchCallOptions(ctx),
  );
  const keyOf = new Map(record.items.map((i) => [i.custom_id, i.key]));
  // A batch adopted after a stop (looked up without an id) must carry this record's items.
  const foreign = results.filter((r) => r.ok && !keyOf.has(r.customId)).length;
  if (foreign > 0 || results.every((r) => !r.ok && r.error.startsWith('missing'))) {
    const why = `the batch ${record.remote_id} a lookup found is not its own (its items do not match)`;
    // the files this record uploaded, not the other batch's
    await markAbsent(ctx, group.batch, record, dir, why, { sweep: false });
    return free();
  }
  const fallback: WorkItem[] = [];
  const failedKeys = new Set<string>();
  for (const result of results) {
    const key = keyOf.get(result.customId);
    if (key === undefined) continue;
    const item = work.get(key);
    if (!result.ok) {
      failedKeys.add(key);
      if (item && !group.isStored(key)) fallback.push(item);
      continue;
    }
    const charge = group.batch.charge(
      result.reply.usage,
      record.reservation,
      `batch:${record.id}:${result.customId}`,
    );
    if (!group.isStored(key)) {
      if (!item) continue;
      await item.handle({
        text: result.reply.text,
        usage: result.reply.usage,
        latencyMs: 0,
        costUsd: charge.usd,
        model: result.reply.model,
        charges: [charge],
        batch: true,
        stop: result.reply.stop,
      });
    }
    await run.ledger.settleCharges([charge], { close: false });
  }
  const done = (key: string) => group.isStored(key) || failedKeys.has(key) || group.isKept?.(key) === true;
  if (record.items.every((i) => done(i.key))) {
    record.status = 'collected';
    if (record.reservation) await run.ledger.settle(record.reservation, [], { close: true });
  }
  await saveBatchRecord(dir, record);
  // the batch has ended: its input file goes; its output and error files once every result is stored
  const which = record.status === 'collected' ? 'all' : 'input';
  await deleteBatchFiles(group.batch, record, dir, { which, learn: true, sweep: false }, fileCalls(ctx));
  if (failedKeys.size > 0)
    ctx.log(
      `batch ${record.id}: ${failedKeys.size} item(s) failed or expired; ${fallback.length} run as sync calls`,
    );
  return fallback;
}
