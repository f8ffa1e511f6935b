/**
 * One model's missing work in batch mode (a group: its answers, or its verdicts), as far as this process
 * may take it among the processes on one results folder (run/leases.ts): the recorded batches of its
 * cells whose owner is gone are resumed (a live owner's batch is polled by nobody else), the cells
 * nobody holds are claimed and submitted in batches the provider's limits and the budget cap allow
 * (in waves, waves.ts), the batches are awaited and collected, and what failed runs as sync
 * calls; the cells another live process holds are waited for, never paid twice.
 */

import { type BatchRecord, batchesDir, isOpen, loadBatchRecords } from '../../store/batch-records.ts';
import { sleep } from '../../util/abort.ts';
import type { StageContext } from '../sync/stage-context.ts';
import type { BatchGroup, WorkItem } from './calls.ts';
import { resume } from './lookup.ts';
import { type Lane, lateBeforeFallback, runWaves } from './waves.ts';

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
      isOpen(r) &&
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
    // a batch still unknown (its lookup failed) holds its items too: it is looked up at every poll
    if (resumed.status === 'submitted' || resumed.status === 'unknown') {
      out.records.push(resumed);
      for (const i of resumed.items) out.covered.add(i.key);
    }
  }
  return out;
}

/** A lane ready for the waves (resumed batches in flight, claimed cells queued), and the cells held elsewhere. */
interface Prepared {
  lane: Lane;
  /** the group's items of this round */
  items: WorkItem[];
  /** the recorded batches of its cells, resumed here or elsewhere */
  pending: BatchRecord[];
  waiting: WorkItem[];
}

/** Resumes a group's recorded batches and claims its free cells: its lane, before any batch is submitted. */
async function prepare(ctx: StageContext, group: BatchGroup, items: WorkItem[]): Promise<Prepared> {
  const leases = ctx.run.leases;
  const work = new Map(items.map((i) => [i.key, i]));
  const { pending, records, owned, covered, polledElsewhere } = await resumeRecorded(ctx, group, work);
  group.refresh();
  // a run that only collects claims no cell for a batch of its own
  const open = ctx.opts.collectOnly
    ? []
    : items.filter((i) => !covered.has(i.key) && !polledElsewhere.has(i.key) && !group.isStored(i.key));
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
  const queue = open.filter((i) => claimed.mine.has(i.key) && !group.isStored(i.key));
  const lane: Lane = { group, work, queue, inflight: records, fallback: [], owned, absent: [] };
  return { lane, items, pending, waiting };
}

/** After the waves: what failed runs as sync calls, and what this process held goes back. */
async function finish(ctx: StageContext, p: Prepared): Promise<void> {
  const leases = ctx.run.leases;
  if (!ctx.opts.collectOnly) await Promise.all(p.lane.fallback.map((w) => w.fallback()));
  // What this process held goes back: a batch not ended is then resumed by whichever run needs it next.
  await leases.release('batch', p.lane.owned);
  const ownedIds = new Set(p.lane.owned);
  await leases.release(p.lane.group.stage, [
    ...p.items.map((i) => i.key),
    ...p.pending.filter((r) => ownedIds.has(r.id)).flatMap((r) => r.items.map((i) => i.key)),
  ]);
}

/**
 * Runs the stage's missing work through batches, as far as this process may: every group's recorded
 * batches are resumed (their reservations adopted) before any group submits, then the batches go in
 * waves under the cap (waves.ts), and what failed runs as sync calls. Returns, per group, the
 * cells another live process holds (in its batch, or in a sync call).
 */
async function runOwnBatches(
  ctx: StageContext,
  rounds: { group: BatchGroup; items: WorkItem[] }[],
): Promise<WorkItem[][]> {
  const dir = batchesDir(ctx.run.plan.info.resultsDir);
  const prepared: Prepared[] = [];
  for (const r of rounds) prepared.push(await prepare(ctx, r.group, r.items));
  const lanes = prepared.map((p) => p.lane);
  await runWaves(ctx, lanes, dir);
  // a batch created late for items about to be sent in sync is collected instead
  while (await lateBeforeFallback(ctx, lanes, dir)) await runWaves(ctx, lanes, dir);
  await Promise.all(prepared.map((p) => finish(ctx, p)));
  return prepared.map((p) => p.waiting);
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

/**
 * Runs the missing work of a stage's models (one group each) through batches until every cell is
 * stored, failed, or left to wait; the groups share the cap in the estimate's order (by provider, then
 * model), so the dry run's batch plan is the order they are submitted in.
 */
export async function runGroups(ctx: StageContext, groups: readonly BatchGroup[]): Promise<void> {
  const ordered = [...groups].sort(
    (a, b) =>
      a.batch.payer.provider.localeCompare(b.batch.payer.provider) ||
      a.batch.payer.model.localeCompare(b.batch.payer.model),
  );
  let rounds = ordered.map((group) => ({ group, items: group.items })).filter((r) => r.items.length > 0);
  while (rounds.length > 0) {
    const waiting = await runOwnBatches(ctx, rounds);
    const freed = await Promise.all(
      rounds.map((r, i) => {
        const held = waiting[i] ?? [];
        return held.length > 0 ? untilFree(ctx, r.group, held) : Promise.resolve([]);
      }),
    );
    rounds = rounds
      .map((r, i) => ({ group: r.group, items: freed[i] ?? [] }))
      .filter((r) => r.items.length > 0);
  }
}
