/**
 * The batches of a stage (its answers, or its verdicts) in waves that fit the budget cap. Each batch
 * still reserves its worst case before it is submitted (providers/metered-batch.ts), but a batch is
 * sized to what the cap leaves instead of being refused whole: it holds the longest run of its model's
 * waiting items whose worst case fits (the ledger decides under its lock, store/ledger.ts
 * `reserveFitting`), and what does not fit waits. When a batch ends and is collected, its reservation
 * settles to what the batch really cost, and the freed budget takes the next waiting items, model after
 * model in a fixed order (the estimate's: by provider and model). So a run whose worst case is above the
 * cap finishes in one command as long as its batches cost less than their worst case; the cap is never
 * crossed. The dry run prints the plan this rule gives (plan.ts).
 *
 * Waiting items are refused (the run stops at the cap, as a sync call would) only when they could not
 * fit even if every batch in flight cost nothing: what was spent leaves too little, or nothing is held
 * by a live process that could free it.
 */
import type { BatchRecord } from '../../store/batch-records.ts';
import { sleep } from '../../util/abort.ts';
import type { StageContext } from '../sync/stage-context.ts';
import { type BatchGroup, collect, poll, submit, type WorkItem } from './calls.ts';
import { lookingUp, secondBatches, settleUnknown } from './lookup.ts';
import { batchHead } from './plan.ts';

/** One model's batch work in a stage, as far as this process holds it. */
export interface Lane {
  group: BatchGroup;
  /** the items of this round, by cell key */
  work: Map<string, WorkItem>;
  /** claimed items in no batch yet, in order */
  queue: WorkItem[];
  /** batches submitted or resumed, not collected yet */
  inflight: BatchRecord[];
  /** items to run as sync calls once the batches are over */
  fallback: WorkItem[];
  /**
   * batches of this run looked up after their submission ended without an answer, and not found: their
   * items are in `fallback`, and the provider is asked once more before they are sent
   */
  absent: BatchRecord[];
  /** the batch records this process holds (their leases are released at the end) */
  owned: string[];
}

const what = (lane: Lane) => (lane.group.batch.payer.role === 'subject' ? 'answers' : 'verdicts');
const name = (lane: Lane) => `${lane.group.batch.payer.provider}/${lane.group.batch.payer.model}`;
const fmtUsd = (x: number) => `$${x.toFixed(x >= 1 ? 2 : 4)}`;

/** What a request adds to a batch, in bytes (its text and an allowance for the item's envelope). */
const requestBytes = (item: WorkItem) =>
  Buffer.byteLength(item.request.system) +
  item.request.messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0) +
  512;

/** The next batch a lane would submit: the head of its queue within the provider's limits. */
function nextChunk(lane: Lane): WorkItem[] {
  const q = lane.queue;
  return q.slice(
    0,
    batchHead(q.length, (i) => requestBytes(q[i] as WorkItem), lane.group.batch.limits),
  );
}

/** The worst case of the next item a lane would submit. */
function nextWorst(lane: Lane): number {
  const first = lane.queue[0];
  return first ? lane.group.batch.itemWorstCaseUsd(first.request) : 0;
}

/**
 * Submits a lane's waiting items in batches while what the cap leaves holds them (the last one split to
 * fit); leaves the rest queued when budget held in flight may free up, or refuses it when nothing can.
 */
async function submitWhatFits(ctx: StageContext, lane: Lane, dir: string): Promise<void> {
  for (let races = 0; lane.queue.length > 0; ) {
    if (ctx.stopped || ctx.opts.signal?.aborted || ctx.opts.collectOnly) {
      lane.queue = [];
      return;
    }
    const record = await submit(ctx, lane.group, nextChunk(lane), dir);
    if (!record) {
      const usd = nextWorst(lane);
      const outlook = ctx.run.ledger.outlook(usd);
      // freed between the claim and the look (another batch settled): try again, a few times
      if (outlook === 'now' && races++ < 3) continue;
      if (outlook !== 'never') {
        ctx.log(
          `batch: ${lane.queue.length} ${what(lane)} of ${name(lane)} wait for the budget (the next needs up to ` +
            `${fmtUsd(usd)}, the cap leaves ${fmtUsd(ctx.run.ledger.summary().leftUsd)}); they are submitted as earlier batches settle`,
        );
        return;
      }
      ctx.fail(`batch of ${lane.queue.length} ${what(lane)} for ${name(lane)}`, ctx.run.ledger.exceeded(usd));
      lane.queue = [];
      return;
    }
    const sent = lane.queue.slice(0, record.items.length);
    lane.queue = lane.queue.slice(record.items.length);
    lane.owned.push(record.id);
    // a batch whose submission's outcome is unknown holds its items until it is looked up
    if (record.status === 'submitted' || record.status === 'unknown') lane.inflight.push(record);
    else lane.fallback.push(...sent);
  }
}

/**
 * Polls the batches in flight until one has ended, a waiting lane's next item fits (or never will), the
 * run is interrupted or the deadline passes; returns the batches that ended, by lane.
 */
async function untilChange(
  ctx: StageContext,
  lanes: Lane[],
  last: Map<string, string>,
  deadline: number,
  dir: string,
): Promise<Map<Lane, string[]>> {
  const { poll_interval_ms } = ctx.run.plan.config.batch;
  for (;;) {
    const ended = new Map<Lane, string[]>();
    for (const lane of lanes) {
      const ids = [
        ...(await lookUnknown(ctx, lane, dir)),
        ...(await poll(ctx, lane.group, lane.inflight, last)),
      ];
      if (ids.length > 0) ended.set(lane, ids);
    }
    if (ended.size > 0) return ended;
    const waiting = lanes.filter((l) => l.queue.length > 0);
    if (waiting.some((l) => ctx.run.ledger.outlook(nextWorst(l)) !== 'later')) return ended;
    if (ctx.opts.signal?.aborted || Date.now() > deadline) return ended;
    await sleep(poll_interval_ms, ctx.opts.signal);
  }
}

/**
 * Looks up the lane's batches whose submission ended without an answer: one found is polled from now
 * on; one confirmed absent is returned, to be collected as ended (its items go to the sync fallback).
 */
async function lookUnknown(ctx: StageContext, lane: Lane, dir: string): Promise<string[]> {
  const absent: string[] = [];
  for (const r of lane.inflight) {
    if (r.status !== 'unknown' || ctx.opts.signal?.aborted) continue;
    const look = () => settleUnknown(ctx, lane.group.batch, r, dir, { once: false });
    if ((await lookingUp(ctx, `batch ${r.id}`, look, 'pending')) === 'absent') absent.push(r.id);
  }
  return absent;
}

/**
 * Collects a batch that has ended (or was found absent): its failed items join the lane's fallback; a
 * batch whose create had attempts of unknown outcome is followed by the second batches found under its
 * tag, polled and collected in turn.
 */
async function collectEnded(ctx: StageContext, lane: Lane, id: string, dir: string): Promise<void> {
  const record = lane.inflight.find((r) => r.id === id);
  if (!record) return;
  lane.inflight = lane.inflight.filter((r) => r !== record);
  lane.fallback.push(...(await collect(ctx, lane.group, record, lane.work, dir)));
  if (record.status === 'absent') lane.absent.push(record);
  else if (record.unknown_attempts > 0) take(lane, await secondOf(ctx, lane, [record], dir));
}

/** The second batches found for the records (none when the lookup fails: looked for again later). */
function secondOf(ctx: StageContext, lane: Lane, records: BatchRecord[], dir: string) {
  const look = () => secondBatches(ctx, lane.group.batch, records, dir);
  return lookingUp(ctx, `batch ${records.map((r) => r.id).join(', ')}`, look, []);
}

/** Batches adopted into a lane: polled with its others, their records released with its own. */
function take(lane: Lane, adopted: readonly BatchRecord[]): void {
  for (const r of adopted) {
    if (!lane.inflight.includes(r)) lane.inflight.push(r);
    if (!lane.owned.includes(r.id)) lane.owned.push(r.id);
  }
}

/**
 * Asks the providers once more for the batches of the lanes' absent records, before their items are
 * sent as sync calls: one created since the last look (a create that reached the provider late) is
 * adopted and polled, and its items leave the fallback. True when one was found.
 */
export async function lateBeforeFallback(ctx: StageContext, lanes: Lane[], dir: string): Promise<boolean> {
  let found = false;
  for (const lane of lanes) {
    if (lane.absent.length === 0 || ctx.opts.signal?.aborted) continue;
    const adopted = await secondOf(ctx, lane, lane.absent, dir);
    if (adopted.length === 0) continue;
    found = true;
    const held = new Set(adopted.flatMap((r) => r.items.map((i) => i.key)));
    lane.absent = lane.absent.filter((r) => r.status === 'absent');
    lane.fallback = lane.fallback.filter((w) => !held.has(w.key));
    take(lane, adopted);
  }
  return found;
}

/**
 * Runs the lanes' batches in waves under the cap: submits what fits, waits for a batch to end, collects
 * it (its reservation settles to its real cost), submits what now fits, until every item is stored,
 * failed (its sync fallback is queued in its lane), refused at the cap, or left to a rerun (interrupted,
 * or batches still running after max_wait_hours).
 */
export async function runWaves(ctx: StageContext, lanes: Lane[], dir: string): Promise<void> {
  const { max_wait_hours } = ctx.run.plan.config.batch;
  const deadline = Date.now() + max_wait_hours * 3_600_000;
  const last = new Map<string, string>();
  for (;;) {
    for (const lane of lanes) await submitWhatFits(ctx, lane, dir);
    if (lanes.every((l) => l.queue.length === 0 && l.inflight.length === 0)) return;
    if (ctx.opts.signal?.aborted) break;
    if (Date.now() > deadline) {
      ctx.log(`batches still running after ${max_wait_hours} h; rerun the same command to collect them`);
      break;
    }
    const ended = await untilChange(ctx, lanes, last, deadline, dir);
    for (const [lane, ids] of ended) for (const id of ids) await collectEnded(ctx, lane, id, dir);
  }
  for (const lane of lanes) {
    for (const r of lane.inflight)
      for (const i of r.items)
        if (lane.work.has(i.key))
          ctx.errors.set(
            i.key,
            r.status === 'unknown'
              ? `batch ${r.id}: its submission ended without an answer and the batch may exist; rerun the same command to look it up at ${r.provider}`
              : `batch ${r.id} has not ended yet; rerun the same command to collect it`,
          );
    for (const i of lane.queue)
      ctx.errors.set(i.key, `still waiting for the budget after ${max_wait_hours} h; rerun the same command`);
  }
}
