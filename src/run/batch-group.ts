/**
 * One model's missing work in batch mode (a group: its answers, or its verdicts), as far as this process
 * may take it among the processes on one results folder (run/leases.ts): the recorded batches of its
 * cells whose owner is gone are resumed (a live owner's batch is polled by nobody else), the cells
 * nobody holds are claimed and submitted in batches the provider's limits allow, the batches are
 * awaited and collected, and what failed runs as sync calls; the cells another live process holds are
 * waited for, never paid twice.
 */

import { type BatchRecord, batchesDir, loadBatchRecords } from '../store/batch-records.ts';
import { sleep } from '../util/abort.ts';
import { type BatchGroup, collect, resume, submit, type WorkItem, waitFor } from './batch-calls.ts';
import type { StageContext } from './stage-context.ts';

/** Splits items so that each batch respects the provider's item and byte limits. */
export function chunked(items: WorkItem[], limits: { items: number; bytes: number }): WorkItem[][] {
  const out: WorkItem[][] = [];
  let current: WorkItem[] = [];
  let bytes = 0;
  for (const item of items) {
    const size =
      Buffer.byteLength(item.request.system) +
      item.request.messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0) +
      512;
    if (current.length > 0 && (current.length >= limits.items || bytes + size > limits.bytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** What resuming the group's recorded batches left: those to poll, the batches and cells held, the cells elsewhere. */
interface Resumed {
  pending: BatchRecord[];
  records: BatchRecord[];
  owned: string[];
  covered: Set<string>;
  /** cells in a batch another live process polls: never claimed here while it does */
  polledElsewhere: Set<string>;
}

/** Resumes the recorded batches of the group's cells whose owner is gone (taking their leases). */
async function resumeRecorded(
  ctx: StageContext,
  group: BatchGroup,
  work: Map<string, WorkItem>,
): Promise<Resumed> {
  const leases = ctx.run.leases;
  const dir = batchesDir(ctx.run.plan.info.resultsDir);
  const payer = group.batch.payer;
  const pending = loadBatchRecords(dir).filter(
    (r) =>
      (r.status === 'submitting' || r.status === 'submitted') &&
      r.provider === payer.provider &&
      r.model === payer.model &&
      r.role === payer.role &&
      r.items.some((i) => work.has(i.key)),
  );
  const out: Resumed = { pending, records: [], owned: [], covered: new Set(), polledElsewhere: new Set() };
  for (const r of pending) {
    const claim = await leases.claim('batch', [r.id]);
    if (!claim.mine.has(r.id)) {
      for (const i of r.items) out.polledElsewhere.add(i.key);
      continue;
    }
    out.owned.push(r.id);
    // the batch's cells are this process's with it (their owner is the batch's, gone), those of other
    // runs' cells too, so that their runs wait for this one to let the batch go
    const keys = r.items.map((i) => i.key);
    const cellsTaken = await leases.claim(group.stage, keys);
    if (claim.tookOver.length + cellsTaken.tookOver.length > 0) await ctx.recoverTakenOver();
    const resumed = await resume(ctx, group, r, dir);
    if (resumed.status === 'submitted') {
      out.records.push(resumed);
      for (const i of resumed.items) out.covered.add(i.key);
    }
  }
  return out;
}

/**
 * Runs one model's missing work through batches, as far as this process may: resumes, claims and
 * submits, waits, collects, and runs what failed as sync calls. Returns the cells another live process
 * holds (in its batch, or in a sync call).
 */
async function runOwnBatches(ctx: StageContext, group: BatchGroup, items: WorkItem[]): Promise<WorkItem[]> {
  const leases = ctx.run.leases;
  const dir = batchesDir(ctx.run.plan.info.resultsDir);
  const work = new Map(items.map((i) => [i.key, i]));
  const { pending, records, owned, covered, polledElsewhere } = await resumeRecorded(ctx, group, work);
  group.refresh();
  const open = items.filter(
    (i) => !covered.has(i.key) && !polledElsewhere.has(i.key) && !group.isStored(i.key),
  );
  const claimed = await leases.claim(
    group.stage,
    open.map((i) => i.key),
  );
  if (claimed.tookOver.length > 0) await ctx.recoverTakenOver();
  group.refresh();
  const waiting = [
    ...items.filter((i) => polledElsewhere.has(i.key) && !covered.has(i.key) && !group.isStored(i.key)),
    ...open.filter((i) => !claimed.mine.has(i.key)),
  ];
  const fresh = open.filter((i) => claimed.mine.has(i.key) && !group.isStored(i.key));
  const fallback: WorkItem[] = [];
  for (const chunk of chunked(fresh, group.batch.limits)) {
    if (ctx.stopped) break;
    const record = await submit(ctx, group, chunk, dir);
    if (!record) break;
    owned.push(record.id);
    if (record.status === 'submitted') records.push(record);
    else fallback.push(...chunk);
  }
  const ended = await waitFor(ctx, group, records);
  for (const r of records) if (ended.has(r.id)) fallback.push(...(await collect(ctx, group, r, work, dir)));
  for (const r of records)
    if (!ended.has(r.id))
      for (const i of r.items)
        if (work.has(i.key))
          ctx.errors.set(i.key, `batch ${r.id} has not ended yet; rerun the same command to collect it`);
  await Promise.all(fallback.map((w) => w.fallback()));
  // What this process held goes back: a batch not ended is then resumed by whichever run needs it next.
  await leases.release('batch', owned);
  const ownedIds = new Set(owned);
  await leases.release(group.stage, [
    ...items.map((i) => i.key),
    ...pending.filter((r) => ownedIds.has(r.id)).flatMap((r) => r.items.map((i) => i.key)),
  ]);
  return waiting;
}

/**
 * Waits until every cell another live process holds is stored, or some of them are free to claim
 * (released, or their owner dead or silent); returns those not stored yet, or none (all stored, the
 * run interrupted, or the wait limit reached).
 */
async function untilFree(ctx: StageContext, group: BatchGroup, waiting: WorkItem[]): Promise<WorkItem[]> {
  const run = ctx.run;
  const payer = group.batch.payer;
  const { max_wait_hours, poll_interval_ms } = run.plan.config.batch;
  const deadline = Date.now() + max_wait_hours * 3_600_000;
  const holders = new Set(
    waiting.map((i) => run.leases.holder(group.stage, i.key)?.pid).filter((p) => p !== undefined),
  );
  ctx.log(
    `batch: ${waiting.length} ${payer.role === 'subject' ? 'answers' : 'verdicts'} of ${payer.provider}/${payer.model} are being computed by another process (pid ${[...holders].join(', ')}); waiting for them, not paying twice`,
  );
  for (;;) {
    // first a pause: this is also where a cell whose batch another process has just taken over (and
    // whose cells it is claiming) is looked at again
    await sleep(poll_interval_ms, ctx.opts.signal);
    group.refresh();
    run.leases.refresh();
    const left = waiting.filter((i) => !group.isStored(i.key));
    if (left.length === 0) return [];
    if (left.some((i) => !run.leases.heldByOther(group.stage, i.key))) return left;
    const why = ctx.opts.signal?.aborted
      ? 'interrupted while another process was computing it'
      : Date.now() > deadline
        ? `another process was still computing it after ${max_wait_hours} h; rerun the same command to collect it`
        : null;
    if (why) {
      for (const i of left) ctx.errors.set(i.key, why);
      return [];
    }
  }
}

/** Runs one model's missing work through batches until every cell is stored, failed, or left to wait. */
export async function runGroup(ctx: StageContext, group: BatchGroup): Promise<void> {
  let items = group.items;
  while (items.length > 0) {
    const waiting = await runOwnBatches(ctx, group, items);
    if (waiting.length === 0) return;
    items = await untilFree(ctx, group, waiting);
  }
}
