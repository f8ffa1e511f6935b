/**
 * Batch mode: the missing answers (then verdicts) of each live model go to the provider's batch API
 * (Anthropic Message Batches, OpenAI Batch, Gemini batch mode) at the batch discount.
 *
 * A batch is recorded in `data/results/.batches/<id>.json` BEFORE it is submitted (status `submitting`,
 * with its budget reservation) and again with the provider's batch id once submitted, before any
 * waiting. A run that starts again finds the record and polls the same batch instead of paying twice;
 * a record left at `submitting` (a crash between submit and record) is looked up at the provider by its
 * tag and adopted, or abandoned when the provider has no such batch. Results land in the same cell
 * stores as sync answers; items that failed or expired fall back to sync calls. A progress line per
 * batch shows items done, waiting and failed.
 *
 * Several processes on one results folder (run/leases.ts): a batch record is polled by the process that
 * holds its lease, taken with the record and held while it lives; a process that finds a live owner's
 * record leaves it alone and waits for its cells, and takes it over only when that owner is dead or
 * silent. The cells of a batch are claimed before it is submitted, so no cell goes into two batches.
 */
import pRetry, { AbortError } from 'p-retry';
import { costUsd, worstCaseUsd } from '../providers/catalogue.ts';
import { redactSecrets } from '../providers/credentials.ts';
import { type BatchAdapter, type BatchItemResult, CallError } from '../providers/live/adapter.ts';
import { MeteredProvider, requestTokens } from '../providers/metered.ts';
import type { ModelReply, ModelRequest, Provider } from '../providers/types.ts';
import { withRequestSignal } from '../util/abort.ts';
import { errorMessage } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import {
  type BatchRecord,
  batchesDir,
  customIdPrefix,
  hintOf,
  loadBatchRecords,
  saveBatchRecord,
} from './batch-records.ts';
import { isJudgeable } from './cells.ts';
import { BudgetExceededError } from './ledger.ts';
import {
  answerRecordFrom,
  missingVerdicts,
  type StageContext,
  settleCharges,
  syncAnswer,
  syncVerdict,
} from './sync.ts';
import type { SubjectCell, VerdictCell } from './work.ts';

/** One unit of batch work: the request, the cell store key it fills, and what to do with its reply. */
interface WorkItem {
  key: string;
  request: ModelRequest;
  /** stores the reply's record (and settles any sync retry); false when it could not be stored */
  handle: (reply: ModelReply) => Promise<boolean>;
  /** falls back to a sync call */
  fallback: () => Promise<void>;
}

interface Group {
  provider: MeteredProvider;
  batch: BatchAdapter;
  role: 'subject' | 'judge';
  /** the leases of its cells (run/leases.ts) */
  stage: 'answer' | 'verdict';
  items: WorkItem[];
  /** is a cell of this model's store already stored (by this or another run, as last read)? */
  isStored: (key: string) => boolean;
  /** reads what other processes stored */
  refresh: () => void;
}

/** Waits `ms`, or less when the run is stopped; the abort listener goes with the wait (one per poll otherwise). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * A provider call with the run's retry policy (transient errors only); each attempt gets a signal of
 * its own that follows the run's (see util/abort.ts).
 */
async function retried<T>(
  ctx: StageContext,
  what: string,
  fn: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  return pRetry(
    async () => {
      try {
        return await withRequestSignal(ctx.opts.signal, fn);
      } catch (err) {
        if (err instanceof CallError && err.retryable) throw err;
        throw new AbortError(err instanceof Error ? err : new Error(String(err)));
      }
    },
    {
      retries: 5,
      factor: 2,
      minTimeout: Math.min(1000, ctx.run.plan.config.batch.poll_interval_ms),
      maxTimeout: 60_000,
      randomize: true,
      ...(ctx.opts.signal ? { signal: ctx.opts.signal } : {}),
      onFailedAttempt: ({ error, retriesLeft }) => {
        if (retriesLeft > 0) ctx.log(redactSecrets(`${what}: ${error.message}; retrying`));
      },
    },
  );
}

function batchAdapterOf(provider: Provider): { metered: MeteredProvider; batch: BatchAdapter } | null {
  if (!(provider instanceof MeteredProvider)) return null;
  const batch = provider.adapter.batch;
  return batch ? { metered: provider, batch } : null;
}

/** Splits items so that each batch respects the provider's item and byte limits. */
function chunked(items: WorkItem[], limits: { items: number; bytes: number }): WorkItem[][] {
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

const fmtUsd = (x: number) => `$${x.toFixed(x >= 1 ? 2 : 4)}`;

/** Submits one batch, recorded before and after; returns the record (status submitted or failed). */
async function submit(
  ctx: StageContext,
  group: Group,
  items: WorkItem[],
  dir: string,
): Promise<BatchRecord | null> {
  const run = ctx.run;
  const priced = group.provider.priced;
  const payer = group.provider.payer;
  const worst = items.reduce(
    (sum, i) => sum + worstCaseUsd(priced, requestTokens(i.request), i.request.maxTokens, { batch: true }),
    0,
  );
  const n = ctx.counts.batches++;
  const id = `rge-${run.plan.info.runId}-${payer.role}-${sha256(`${payer.provider}/${payer.model}:${Date.now()}:${process.pid}:${n}`).slice(0, 10)}`;
  let reservation: string;
  try {
    reservation = await run.ledger.reserve(worst, payer, 'batch');
  } catch (err) {
    if (err instanceof BudgetExceededError) {
      ctx.fail(
        `batch of ${items.length} ${payer.role === 'subject' ? 'answers' : 'verdicts'} for ${payer.provider}/${payer.model}`,
        err,
      );
      return null;
    }
    throw err;
  }
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
    reservation,
    reserved_usd: worst,
    submitted_after_ms: Date.now(),
    items: items.map((item, i) => ({ custom_id: `${customIdPrefix(id)}${i}`, key: item.key })),
    error: null,
    created_at: now,
    updated_at: now,
  };
  await saveBatchRecord(dir, record);
  ctx.log(
    `batch ${id}: submitting ${items.length} ${payer.role === 'subject' ? 'answers' : 'verdicts'} to ${payer.provider}/${payer.model}` +
      ` (worst case ${fmtUsd(worst)} reserved; ${fmtUsd(run.ledger.summary().leftUsd)} left of the cap)`,
  );
  try {
    let attempt = 0;
    record.remote_id = await retried(ctx, `batch ${id} submit`, async (signal) => {
      // A failed submit may still have created the batch: look before trying again.
      if (attempt++ > 0) {
        const existing = await group.batch.findByTag(id, hintOf(record, dir));
        if (existing) return existing;
      }
      return group.batch.submit(
        record.items.map((item, i) => ({
          customId: item.custom_id,
          request: (items[i] as WorkItem).request,
        })),
        id,
        signal,
      );
    });
    record.status = 'submitted';
  } catch (err) {
    record.status = 'failed';
    record.error = redactSecrets(errorMessage(err instanceof AbortError ? err.originalError : err));
    await run.ledger.release(reservation);
    ctx.log(`batch ${id}: submission failed (${record.error}); its items run as sync calls`);
  }
  await saveBatchRecord(dir, record);
  return record;
}

/** Takes over a batch record left by a stopped run: adopts its reservation, finds a lost submission. */
async function resume(
  ctx: StageContext,
  group: Group,
  record: BatchRecord,
  dir: string,
): Promise<BatchRecord> {
  const run = ctx.run;
  if (record.reservation) await run.ledger.adopt(record.reservation);
  if (record.status === 'submitting') {
    const found = await retried(ctx, `batch ${record.id} lookup`, () =>
      group.batch.findByTag(record.id, hintOf(record, dir)),
    );
    if (found) {
      record.remote_id = found;
      record.status = 'submitted';
      ctx.log(
        `batch ${record.id}: found at ${group.provider.payer.provider} as ${found} after a stop; polling it`,
      );
    } else {
      record.status = 'abandoned';
      record.error = 'never reached the provider (the run stopped while submitting)';
      if (record.reservation) await run.ledger.release(record.reservation);
    }
    await saveBatchRecord(dir, record);
  } else ctx.log(`batch ${record.id}: resuming (submitted before a stop; not paid again)`);
  return record;
}

/** Polls batches until each has ended (or the wait limit), printing a line per batch as it changes. */
async function waitFor(ctx: StageContext, group: Group, records: BatchRecord[]): Promise<Set<string>> {
  const ended = new Set<string>();
  const last = new Map<string, string>();
  const deadline = Date.now() + ctx.run.plan.config.batch.max_wait_hours * 3_600_000;
  while (ended.size < records.length) {
    for (const r of records) {
      if (ended.has(r.id) || !r.remote_id) continue;
      const remote = r.remote_id;
      const p = await retried(ctx, `batch ${r.id} poll`, (signal) =>
        group.batch.progress(remote, r.items.length, signal),
      );
      const line = `batch ${r.id} (${r.provider}/${r.model}, ${r.role === 'subject' ? 'answers' : 'verdicts'}): ${p.state}, ${p.done} done, ${p.waiting} waiting, ${p.failed} failed`;
      if (last.get(r.id) !== line) ctx.log(line);
      last.set(r.id, line);
      if (p.ended) ended.add(r.id);
    }
    if (ended.size === records.length || ctx.opts.signal?.aborted) break;
    if (Date.now() > deadline) {
      ctx.log(
        `batches still running after ${ctx.run.plan.config.batch.max_wait_hours} h; rerun the same command to collect them`,
      );
      break;
    }
    await sleep(ctx.run.plan.config.batch.poll_interval_ms, ctx.opts.signal);
  }
  return ended;
}

/**
 * Stores what an ended batch returned and settles each item in the ledger; returns the work items that
 * must fall back to sync calls. Items of another run's cells are left for that run (the batch stays
 * `submitted` until every item is stored or failed); an item stored before a stop is settled again,
 * which the ledger ignores if it already was.
 */
async function collect(
  ctx: StageContext,
  group: Group,
  record: BatchRecord,
  work: Map<string, WorkItem>,
  dir: string,
): Promise<WorkItem[]> {
  const run = ctx.run;
  const remote = record.remote_id as string;
  const results: BatchItemResult[] = await retried(ctx, `batch ${record.id} results`, (signal) =>
    group.batch.results(
      remote,
      record.items.map((i) => i.custom_id),
      signal,
    ),
  );
  const keyOf = new Map(record.items.map((i) => [i.custom_id, i.key]));
  const fallback: WorkItem[] = [];
  // A batch adopted after a stop (looked up without an id) must carry this record's items.
  const foreign = results.filter((r) => r.ok && !keyOf.has(r.customId)).length;
  if (foreign > 0 || results.every((r) => !r.ok && r.error.startsWith('missing'))) {
    record.status = 'abandoned';
    record.error = `batch ${record.remote_id} is not this record's (its items do not match); the items run again`;
    if (record.reservation) await run.ledger.release(record.reservation);
    await saveBatchRecord(dir, record);
    ctx.log(`batch ${record.id}: ${record.error}`);
    return record.items.flatMap((i) => {
      const item = work.get(i.key);
      return item && !group.isStored(i.key) ? [item] : [];
    });
  }
  const failedKeys = new Set<string>();
  const priced = group.provider.priced;
  for (const result of results) {
    const key = keyOf.get(result.customId);
    if (key === undefined) continue;
    const item = work.get(key);
    if (!result.ok) {
      failedKeys.add(key);
      if (item && !group.isStored(key)) fallback.push(item);
      continue;
    }
    const usd = costUsd(result.reply.usage, priced.prices, { batch: true });
    const charge = { reservation: record.reservation, key: `batch:${record.id}:${result.customId}`, usd };
    if (!group.isStored(key)) {
      if (!item) continue;
      await item.handle({
        text: result.reply.text,
        usage: result.reply.usage,
        latencyMs: 0,
        costUsd: usd,
        model: result.reply.model,
        charges: [charge],
        batch: true,
        stop: result.reply.stop,
      });
    }
    await settleCharges(run.ledger, [charge], { close: false });
  }
  if (record.items.every((i) => group.isStored(i.key) || failedKeys.has(i.key))) {
    record.status = 'collected';
    if (record.reservation) await run.ledger.settle(record.reservation, [], { close: true });
  }
  await saveBatchRecord(dir, record);
  if (failedKeys.size > 0)
    ctx.log(
      `batch ${record.id}: ${failedKeys.size} item(s) failed or expired; ${fallback.length} run as sync calls`,
    );
  return fallback;
}

/**
 * Runs one model's missing work through batches, as far as this process may: it resumes the recorded
 * batches of its cells whose owner is gone (dead or silent; a live owner's batch is polled by nobody
 * else), claims the cells nobody holds and submits them, waits, collects, and runs what failed as sync
 * calls. Returns the cells another live process holds (in its batch, or in a sync call).
 */
async function runOwnBatches(ctx: StageContext, group: Group, items: WorkItem[]): Promise<WorkItem[]> {
  const run = ctx.run;
  const leases = run.leases;
  const dir = batchesDir(run.plan.info.resultsDir);
  const payer = group.provider.payer;
  const work = new Map(items.map((i) => [i.key, i]));
  const pending = loadBatchRecords(dir).filter(
    (r) =>
      (r.status === 'submitting' || r.status === 'submitted') &&
      r.provider === payer.provider &&
      r.model === payer.model &&
      r.role === payer.role &&
      r.items.some((i) => work.has(i.key)),
  );
  const covered = new Set<string>();
  /** cells in a batch another live process polls: never claimed here while it does */
  const polledElsewhere = new Set<string>();
  const records: BatchRecord[] = [];
  const owned: string[] = [];
  for (const r of pending) {
    const claim = await leases.claim('batch', [r.id]);
    if (!claim.mine.has(r.id)) {
      for (const i of r.items) polledElsewhere.add(i.key);
      continue;
    }
    owned.push(r.id);
    // the batch's cells are this process's with it (their owner is the batch's, gone), those of other
    // runs' cells too, so that their runs wait for this one to let the batch go
    const cellsTaken = await leases.claim(
      group.stage,
      r.items.map((i) => i.key),
    );
    if (claim.tookOver.length + cellsTaken.tookOver.length > 0) await ctx.recoverTakenOver();
    const resumed = await resume(ctx, group, r, dir);
    if (resumed.status === 'submitted') {
      records.push(resumed);
      for (const i of resumed.items) covered.add(i.key);
    }
  }
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
async function untilFree(ctx: StageContext, group: Group, waiting: WorkItem[]): Promise<WorkItem[]> {
  const run = ctx.run;
  const payer = group.provider.payer;
  const deadline = Date.now() + run.plan.config.batch.max_wait_hours * 3_600_000;
  const holders = new Set(
    waiting.map((i) => run.leases.holder(group.stage, i.key)?.pid).filter((p) => p !== undefined),
  );
  ctx.log(
    `batch: ${waiting.length} ${payer.role === 'subject' ? 'answers' : 'verdicts'} of ${payer.provider}/${payer.model} are being computed by another process (pid ${[...holders].join(', ')}); waiting for them, not paying twice`,
  );
  for (;;) {
    // first a pause: this is also where a cell whose batch another process has just taken over (and
    // whose cells it is claiming) is looked at again
    await sleep(run.plan.config.batch.poll_interval_ms, ctx.opts.signal);
    group.refresh();
    run.leases.refresh();
    const left = waiting.filter((i) => !group.isStored(i.key));
    if (left.length === 0) return [];
    if (left.some((i) => !run.leases.heldByOther(group.stage, i.key))) return left;
    const why = ctx.opts.signal?.aborted
      ? 'interrupted while another process was computing it'
      : Date.now() > deadline
        ? `another process was still computing it after ${run.plan.config.batch.max_wait_hours} h; rerun the same command to collect it`
        : null;
    if (why) {
      for (const i of left) ctx.errors.set(i.key, why);
      return [];
    }
  }
}

/** Runs one model's missing work through batches until every cell is stored, failed, or left to wait. */
async function runGroup(ctx: StageContext, group: Group): Promise<void> {
  let items = group.items;
  while (items.length > 0) {
    const waiting = await runOwnBatches(ctx, group, items);
    if (waiting.length === 0) return;
    items = await untilFree(ctx, group, waiting);
  }
}

/**
 * Closes batches whose results are all in: a run stopped after `collect` stored a batch's last item and
 * before it saved the record as collected leaves the record `submitted` with nothing left to fetch, and
 * no later run would look at it again (only batches holding missing cells are resumed). The record is
 * saved as collected and its reservation closed; nothing is requested or paid.
 */
async function closeStoredBatches(ctx: StageContext): Promise<void> {
  const run = ctx.run;
  const dir = batchesDir(run.plan.info.resultsDir);
  for (const record of loadBatchRecords(dir)) {
    if (record.status !== 'submitted' || record.items.length === 0) continue;
    const store =
      record.role === 'subject'
        ? run.cells.answers(record.provider, record.model)
        : run.cells.verdicts(record.provider, record.model);
    if (!record.items.every((i) => store.get(i.key) !== undefined)) continue;
    // a live owner is collecting it: it closes it itself
    if (!(await run.leases.claim('batch', [record.id])).mine.has(record.id)) continue;
    if (record.reservation) {
      await run.ledger.adopt(record.reservation);
      // the items' charges (a spend already in the ledger is not counted twice), then the close
      const charges = record.items.flatMap((i) =>
        (store.get(i.key)?.charges ?? []).filter((c) => c.reservation === record.reservation),
      );
      await settleCharges(run.ledger, charges, { close: false });
      await run.ledger.settle(record.reservation, [], { close: true });
    }
    record.status = 'collected';
    await saveBatchRecord(dir, record);
    await run.leases.release('batch', [record.id]);
    ctx.log(`batch ${record.id}: every item was stored before a stop; closed as collected`);
  }
}

/** The group of a model (`gk`), made on its first item. */
function groupOf(
  groups: Map<string, Group>,
  gk: string,
  b: { metered: MeteredProvider; batch: BatchAdapter },
  role: Group['role'],
  store: { get: (key: string) => unknown; refresh: () => void },
): Group {
  const group = groups.get(gk) ?? {
    provider: b.metered,
    batch: b.batch,
    role,
    stage: role === 'subject' ? 'answer' : 'verdict',
    items: [],
    isStored: (key: string) => store.get(key) !== undefined,
    refresh: () => store.refresh(),
  };
  groups.set(gk, group);
  return group;
}

/** Batch mode: answers through batches, then verdicts; what cannot be batched runs in sync mode. */
export async function runBatches(ctx: StageContext, cells: readonly SubjectCell[]): Promise<void> {
  const run = ctx.run;
  await closeStoredBatches(ctx);
  // Stage 1: answers.
  const missing = cells.filter((c) => !run.answers(c.subject).get(c.key));
  const groups = new Map<string, Group>();
  const syncAnswers: SubjectCell[] = [];
  for (const cell of missing) {
    const b = batchAdapterOf(run.providerOf('subject', cell.subject.id));
    if (!b) {
      syncAnswers.push(cell);
      continue;
    }
    const gk = `${cell.subject.provider}/${cell.subject.model}`;
    const group = groupOf(groups, gk, b, 'subject', run.answers(cell.subject));
    group.items.push({
      key: cell.key,
      request: cell.request,
      handle: async (reply) => {
        await run.answers(cell.subject).put(answerRecordFrom(cell, reply));
        ctx.counts.answers.computed++;
        return true;
      },
      fallback: async () => {
        await syncAnswer(ctx, cell);
      },
    });
  }
  ctx.counts.answers.reused += cells.length - missing.length;
  await Promise.all([
    ...[...groups.values()].map((g) => runGroup(ctx, g)),
    ...syncAnswers.map((c) => syncAnswer(ctx, c)),
  ]);

  // Stage 2: verdicts on every stored answer.
  const verdictGroups = new Map<string, Group>();
  const syncVerdicts: VerdictCell[] = [];
  for (const cell of cells) {
    const answer = run.answers(cell.subject).get(cell.key);
    if (!answer || !isJudgeable(answer)) continue;
    for (const v of missingVerdicts(ctx, cell, answer)) {
      const b = batchAdapterOf(run.providerOf('judge', v.judge.id));
      if (!b) {
        syncVerdicts.push(v);
        continue;
      }
      const store = run.verdicts(v.judge);
      groupOf(verdictGroups, `${v.judge.provider}/${v.judge.model}`, b, 'judge', store).items.push({
        key: v.key,
        request: v.request,
        handle: async (reply) => (await syncVerdict(ctx, v, reply)) !== null,
        fallback: async () => {
          await syncVerdict(ctx, v);
        },
      });
    }
  }
  await Promise.all([
    ...[...verdictGroups.values()].map((g) => runGroup(ctx, g)),
    ...syncVerdicts.map((v) => syncVerdict(ctx, v)),
  ]);
}
