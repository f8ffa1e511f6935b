/**
 * The batches of a stage (its answers, or its verdicts) in waves that fit the budget cap. Each batch
 * still reserves its worst case before it is submitted (providers/metered-batch.ts), but a batch is
 * sized to what the cap leaves instead of being refused whole: it holds the longest run of its model's
 * waiting items whose worst case fits (the ledger decides under its lock, store/ledger.ts
 * `reserveFitting`), and what does not fit waits. When a batch ends and is collected, its reservation
 * settles to what the batch really cost, and the freed budget takes the next waiting items, model after
 * model in a fixed order (the estimate's: by provider and model). So a run whose worst case is above the
 * cap finishes in one command as long as its batches cost less than their worst case; the cap is never
 * crossed. The dry run prints the plan this rule gives (batch-plan.ts).
 *
 * Waiting items are refused (the run stops at the cap, as a sync call would) only when they could not
 * fit even if every batch in flight cost nothing: what was spent leaves too little, or nothing is held
 * by a live process that could free it.
 */
import type { BatchRecord } from '../store/batch-records.ts';
import { sleep } from '../util/abort.ts';
import { type BatchGroup, collect, poll, submit, type WorkItem } from './batch-calls.ts';
import { batchHead } from './batch-plan.ts';
import type { StageContext } from './stage-context.ts';

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
    if (ctx.stopped || ctx.opts.signal?.aborted) {
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
    if (record.status === 'submitted') lane.inflight.push(record);
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
): Promise<Map<Lane, string[]>> {
  const { poll_interval_ms } = ctx.run.plan.config.batch;
  for (;;) {
    const ended = new Map<Lane, string[]>();
    for (const lane of lanes) {
      const ids = await poll(ctx, lane.group, lane.inflight, last);
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
    const ended = await untilChange(ctx, lanes, last, deadline);
    for (const [lane, ids] of ended)
      for (const id of ids) {
        const record = lane.inflight.find((r) => r.id === id);
        if (!record) continue;
        lane.inflight = lane.inflight.filter((r) => r !== record);
        lane.fallback.push(...(await collect(ctx, lane.group, record, lane.work, dir)));
      }
  }
  for (const lane of lanes) {
    for (const r of lane.inflight)
      for (const i of r.items)
        if (lane.work.has(i.key))
          ctx.errors.set(i.key, `batch ${r.id} has not ended yet; rerun the same command to collect it`);
    for (const i of lane.queue)
      ctx.errors.set(i.key, `still waiting for the budget after ${max_wait_hours} h; rerun the same command`);
  }
}
