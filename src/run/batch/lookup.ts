/**
 * A batch is created once (issue 52, docs/adr/0033): rge's batches looked up at their providers by
 * the tag they were submitted under (OpenAI `metadata.rge_tag`, Gemini's display name; Anthropic keeps
 * none, so its batches are told by their items' custom ids, or while running by their size and time).
 *
 * A create whose outcome is unknown (a timeout, a lost connection, an abort after sending, a 5xx) may
 * have made the batch: its record stays `unknown`, holding its items and its reservation, until a lookup
 * finds the batch (adopted: polled and collected, its items never asked again) or confirms, twice a poll
 * interval apart, that there is none (`absent`: the reservation released, the items free for their sync
 * calls). A create can also reach the provider after the lookup that said absent, or after the retry
 * that made another batch: such a late batch is looked for before the sync fallback sends the items,
 * after a batch with unknown attempts is collected, at the start and at the end of every batch run
 * within LATE_HORIZON_MS, and by `rge results batches`. A late batch is adopted: it is held in the
 * budget whatever the cap (the provider bills it), polled and collected; a cell it answers that is
 * stored already keeps its first record, and the late reply is booked as what the provider billed.
 */
import { redactSecrets } from '../../providers/credentials.ts';
import type { RemoteBatch } from '../../providers/live/adapter.ts';
import type { MeteredBatch } from '../../providers/metered-batch.ts';
import {
  type BatchRecord,
  batchesDir,
  loadBatchRecords,
  recordedRemoteIds,
  saveBatchRecord,
  tagOf,
  tagQuery,
} from '../../store/batch-records.ts';
import { errorMessage } from '../../util/errors.ts';
import { sha256 } from '../../util/fs.ts';
import type { StageContext } from '../sync/stage-context.ts';
import { type BatchGroup, batchCallOptions, markAbsent } from './calls.ts';
import { batchOfRecord } from './files.ts';

/**
 * How long after a record's submission its provider is still asked for a batch created late under its
 * tag. A request reaches a provider seconds, at worst minutes, after it was sent; a day also covers a
 * run resumed the next morning. Past it, `rge results batches` still finds such a batch.
 */
export const LATE_HORIZON_MS = 24 * 3_600_000;

/** Whether a batch created late under the record's tag may still turn up and is looked for. */
export function awaitsLate(record: BatchRecord, now: number = Date.now()): boolean {
  if (record.late_of !== null || now - Date.parse(record.created_at) > LATE_HORIZON_MS) return false;
  if (record.status === 'absent') return true;
  return record.unknown_attempts > 0 && (record.status === 'submitted' || record.status === 'collected');
}

/**
 * The batches at `batch`'s provider that answer the records' tags and that no record of the folder
 * holds yet, by record id (a record and its late records share a tag: a find goes to the one that
 * submitted it).
 */
export async function lookUp(
  ctx: StageContext,
  batch: MeteredBatch,
  records: readonly BatchRecord[],
  dir: string,
): Promise<Map<string, RemoteBatch[]>> {
  const known = recordedRemoteIds(loadBatchRecords(dir));
  const submitters = new Map(records.map((r) => [tagOf(r), r]));
  const found = await batch.findTagged(
    [...submitters.values()].map((r) => tagQuery(r)),
    batchCallOptions(ctx),
  );
  const out = new Map<string, RemoteBatch[]>();
  for (const b of found) {
    const record = submitters.get(b.tag);
    if (!record || known.has(b.id)) continue;
    out.set(record.id, [...(out.get(record.id) ?? []), b]);
  }
  return out;
}

const fmtUsd = (x: number) => `$${x.toFixed(4)}`;

/** A batch of its own for a record that has none (unknown outcome: its reservation still holds it). */
async function adoptOwn(
  ctx: StageContext,
  batch: MeteredBatch,
  record: BatchRecord,
  found: RemoteBatch,
  dir: string,
): Promise<BatchRecord> {
  // a record given up (absent, failed) released its reservation: the batch is held again, whatever the cap
  const late = record.status !== 'unknown' && record.status !== 'submitting';
  if (late) record.reservation = await batch.hold(record.reserved_usd);
  record.remote_id = found.id;
  record.status = 'submitted';
  await saveBatchRecord(dir, record);
  ctx.log(
    `batch ${record.id}: found at ${record.provider} as ${found.id}` +
      (late
        ? ` (created after a lookup found none; ${fmtUsd(record.reserved_usd)} held: the provider bills it)`
        : ' after its submission ended without an answer') +
      '; adopted, its items are not asked again',
  );
  return record;
}

/**
 * Makes a batch found at the provider a record's: the record's own when it has none (its submission's
 * outcome was unknown, or a lookup found it absent), else a late record of its own (a second batch of
 * the same items: its replies are booked, the cells keep their first record). The late record's id
 * follows from the batch's, so two runs that find it make one record.
 */
export async function adopt(
  ctx: StageContext,
  batch: MeteredBatch,
  record: BatchRecord,
  found: RemoteBatch,
  dir: string,
): Promise<BatchRecord> {
  if (record.remote_id === null) return adoptOwn(ctx, batch, record, found, dir);
  const id = `${tagOf(record)}~${sha256(found.id).slice(0, 8)}`;
  const existing = loadBatchRecords(dir).find((r) => r.id === id);
  if (existing) return existing;
  await ctx.run.leases.claim('batch', [id]);
  const now = new Date().toISOString();
  const late: BatchRecord = {
    ...record,
    id,
    status: 'submitted',
    remote_id: found.id,
    reservation: await batch.hold(record.reserved_usd),
    items: record.items.map((i) => ({ ...i })),
    files: [],
    error: null,
    unknown_attempts: 0,
    late_of: tagOf(record),
    created_at: now,
    updated_at: now,
  };
  await saveBatchRecord(dir, late);
  ctx.log(
    `batch ${record.id}: a second batch of its items, ${found.id}, was created late at ${record.provider} ` +
      `(a create that reached it after the client gave up on it); recorded as ${id} and collected, ` +
      `${fmtUsd(record.reserved_usd)} held: the provider bills it`,
  );
  return late;
}

/** How often each unknown record was looked up, and since when (this process's). */
const looks = new Map<string, { since: number; count: number }>();

/**
 * Looks up a record whose create's outcome is unknown (or a stopped run's record still submitting):
 * `found` (adopted), `absent` (looked up twice at least a poll interval apart, or once when `once`: a
 * stopped run's submission ended long ago), or `pending` (look again at the next poll).
 */
export async function settleUnknown(
  ctx: StageContext,
  batch: MeteredBatch,
  record: BatchRecord,
  dir: string,
  opts: { once: boolean },
): Promise<'found' | 'absent' | 'pending'> {
  const found = (await lookUp(ctx, batch, [record], dir)).get(record.id)?.[0];
  if (found) {
    looks.delete(record.id);
    await adopt(ctx, batch, record, found, dir);
    return 'found';
  }
  const seen = looks.get(record.id) ?? { since: Date.now(), count: 0 };
  seen.count++;
  looks.set(record.id, seen);
  const settled = Date.now() - seen.since >= ctx.run.plan.config.batch.poll_interval_ms;
  if (!opts.once && (seen.count < 2 || !settled)) return 'pending';
  looks.delete(record.id);
  await markAbsent(
    ctx,
    batch,
    record,
    dir,
    `no batch tagged ${tagOf(record)} at ${record.provider} when looked up after its submission ended without an answer`,
  );
  return 'absent';
}

/**
 * Runs a lookup; a failure (the provider's list unreachable after its retries) is said and gives
 * `otherwise`: nothing is decided on a lookup that did not answer (an unknown record stays unknown,
 * its items held; a late batch is looked for again later).
 */
export async function lookingUp<T>(
  ctx: StageContext,
  what: string,
  look: () => Promise<T>,
  otherwise: T,
): Promise<T> {
  try {
    return await look();
  } catch (err) {
    if (ctx.opts.signal?.aborted) return otherwise;
    ctx.log(
      `${what}: the lookup at the provider failed (${redactSecrets(errorMessage(err))}); looked up again later`,
    );
    return otherwise;
  }
}

/**
 * Takes over a batch record left by a stopped run: adopts its reservation; a submission that had not
 * ended (still `submitting`) or whose outcome was unknown is looked up, and adopted or found absent (or
 * stays unknown, its items held, when the lookup fails).
 */
export async function resume(
  ctx: StageContext,
  group: BatchGroup,
  record: BatchRecord,
  dir: string,
): Promise<BatchRecord> {
  if (record.reservation) await ctx.run.ledger.adopt(record.reservation);
  if (record.status === 'submitted') {
    ctx.log(`batch ${record.id}: resuming (submitted before a stop; not paid again)`);
    return record;
  }
  if (record.status === 'submitting') {
    record.status = 'unknown';
    record.error = 'the run stopped while submitting it (the batch may exist)';
    await saveBatchRecord(dir, record);
  }
  await lookingUp(
    ctx,
    `batch ${record.id}`,
    () => settleUnknown(ctx, group.batch, record, dir, { once: true }),
    'pending',
  );
  return record;
}

/**
 * The batches created late as second batches of a record whose create had attempts of unknown outcome
 * (found verified: an Anthropic batch still running is checked once it has ended), adopted as late
 * records: to be polled and collected.
 */
export async function secondBatches(
  ctx: StageContext,
  batch: MeteredBatch,
  records: readonly BatchRecord[],
  dir: string,
): Promise<BatchRecord[]> {
  const looked = records.filter((r) => awaitsLate(r));
  if (looked.length === 0) return [];
  const found = await lookUp(ctx, batch, looked, dir);
  const adopted: BatchRecord[] = [];
  for (const record of looked)
    for (const b of found.get(record.id) ?? []) {
      // an absent record takes the first batch found as its own (a running Anthropic one too, checked
      // when it is collected); any other must be verified, and is a second batch
      if (!b.verified && record.remote_id !== null) continue;
      const held = await adopt(ctx, batch, record, b, dir);
      if (!adopted.includes(held)) adopted.push(held);
    }
  return adopted;
}

/**
 * Asks the providers of this run's models for batches created late under the tags of the folder's
 * records that still await one (`awaitsLate`), one lookup per model, and adopts what it finds: an
 * absent record's batch becomes its own again (resumed by its stage when its items are missing), a
 * second batch a late record (collected for its bill, `collectBills` in batches.ts). A record another
 * live process holds is left to it. Run at the start and at the end of every batch run.
 */
export async function lookForLate(ctx: StageContext): Promise<void> {
  const dir = batchesDir(ctx.run.plan.info.resultsDir);
  const byModel = new Map<string, { batch: MeteredBatch; records: BatchRecord[] }>();
  for (const r of loadBatchRecords(dir)) {
    if (!awaitsLate(r)) continue;
    const batch = batchOfRecord(ctx, r);
    if (!batch) continue;
    const key = `${r.provider}/${r.model}/${r.role}`;
    const entry = byModel.get(key) ?? { batch, records: [] };
    entry.records.push(r);
    byModel.set(key, entry);
  }
  for (const { batch, records } of byModel.values()) {
    if (ctx.opts.signal?.aborted) return;
    const claim = await ctx.run.leases.claim(
      'batch',
      records.map((r) => r.id),
    );
    const mine = records.filter((r) => claim.mine.has(r.id));
    try {
      await secondBatches(ctx, batch, mine, dir);
    } catch (err) {
      ctx.log(
        `batch: could not look for batches created late at ${batch.payer.provider} (${redactSecrets(errorMessage(err))}); ` +
          'the next batch run looks again, and `rge results batches` lists what it finds',
      );
    }
    // an absent record adopted again is its stage's to resume; the others are free
    await ctx.run.leases.release(
      'batch',
      mine.filter((r) => r.status !== 'submitted').map((r) => r.id),
    );
  }
}
