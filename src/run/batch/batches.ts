/**
 * Batch mode: the missing answers (then verdicts) of each live model go to the provider's batch API
 * (Anthropic Message Batches, OpenAI Batch, Gemini batch mode) at the batch discount. A batch is a way to
 * make the provider's metered calls (providers/metered-batch.ts prices, reserves and retries them, as it
 * does sync calls); what is here is the run's side: which cells go in which batch, the batch records,
 * the leases, resume, and the sync fallback.
 *
 * A batch is recorded in `data/results/.batches/<id>.json` BEFORE it is submitted (status `submitting`,
 * with its budget reservation) and again with the provider's batch id once submitted, before any
 * waiting. A run that starts again finds the record and polls the same batch instead of paying twice;
 * a record left at `submitting` (a crash between submit and record) is looked up at the provider by its
 * tag and adopted, or abandoned when the provider has no such batch. Results land in the same cell
 * stores as sync answers; items that failed or expired fall back to sync calls. A progress line per
 * batch shows items done, waiting and failed (calls.ts). The files a provider keeps for a batch
 * (OpenAI's input, output and error files) are recorded and deleted once nothing needs them
 * (files.ts); `rge results batches` lists what is left at the providers.
 *
 * Several processes on one results folder (run/leases.ts): a batch record is polled by the process that
 * holds its lease, taken with the record and held while it lives; a process that finds a live owner's
 * record leaves it alone and waits for its cells, and takes it over only when that owner is dead or
 * silent (group.ts). The cells of a batch are claimed before it is submitted, so no cell goes
 * into two batches.
 */
import { MeteredProvider } from '../../providers/metered.ts';
import type { MeteredBatch } from '../../providers/metered-batch.ts';
import type { Provider } from '../../providers/types.ts';
import {
  type BatchRecord,
  batchesDir,
  isOpen,
  loadBatchRecords,
  saveBatchRecord,
} from '../../store/batch-records.ts';
import { type AnswerRecord, type CellStore, isJudgeable, type VerdictRecord } from '../../store/cells.ts';
import type { SubjectCell, VerdictCell } from '../session/work.ts';
import { StageContext } from '../sync/stage-context.ts';
import { answerRecordFrom, missingVerdicts, syncAnswer, syncVerdict } from '../sync/sync.ts';
import { type BatchGroup, fileCalls } from './calls.ts';
import { batchOfRecord, deleteLeftoverFiles } from './files.ts';
import { runGroups } from './group.ts';
import { lookForLate } from './lookup.ts';
import { type Lane, runWaves } from './waves.ts';

/** The metered batch API of a provider, or null when its calls cannot go in a batch (offline, openai-compatible). */
function batchOf(provider: Provider): MeteredBatch | null {
  return provider instanceof MeteredProvider ? provider.batch : null;
}

/** The cell store a batch record's items go to. */
function storeOf(ctx: StageContext, record: BatchRecord): CellStore<AnswerRecord> | CellStore<VerdictRecord> {
  return record.role === 'subject'
    ? ctx.run.cells.answers(record.provider, record.model)
    : ctx.run.cells.verdicts(record.provider, record.model);
}

/**
 * Whether every item of a submitted batch record is stored, and how: `here` when each stored record
 * carries this batch's charge (its results were stored and only the record's close was lost), `elsewhere`
 * when some cell was answered by another call (a batch created late, beside the one that answered it):
 * then the batch's results are still to be read for what the provider billed.
 */
function storedItems(ctx: StageContext, record: BatchRecord): 'here' | 'elsewhere' | null {
  if (record.status !== 'submitted' || record.items.length === 0) return null;
  const store = storeOf(ctx, record);
  const stored = record.items.map((i) => store.get(i.key));
  if (stored.some((r) => r === undefined)) return null;
  if (record.reservation === null) return 'here';
  const charged = (r: (typeof stored)[number]) =>
    (r?.charges ?? []).some((c) => c.reservation === record.reservation);
  return stored.every(charged) ? 'here' : 'elsewhere';
}

/**
 * Closes batches whose results are all in: a run stopped after `collect` stored a batch's last item and
 * before it saved the record as collected leaves the record `submitted` with nothing left to fetch, and
 * no later run would look at it again (only batches holding missing cells are resumed). The record is
 * saved as collected and its reservation closed; nothing is requested or paid. A batch whose cells were
 * answered by other calls is not closed so: its results are read for its bill (`collectBills`).
 */
async function closeStoredBatches(ctx: StageContext): Promise<void> {
  const run = ctx.run;
  const dir = batchesDir(run.plan.info.resultsDir);
  for (const record of loadBatchRecords(dir)) {
    if (storedItems(ctx, record) !== 'here') continue;
    // a live owner is collecting it: it closes it itself
    if (!(await run.leases.claim('batch', [record.id])).mine.has(record.id)) continue;
    if (record.reservation) {
      const store = storeOf(ctx, record);
      await run.ledger.adopt(record.reservation);
      // the items' charges (a spend already in the ledger is not counted twice), then the close
      const charges = record.items.flatMap((i) =>
        (store.get(i.key)?.charges ?? []).filter((c) => c.reservation === record.reservation),
      );
      await run.ledger.settleCharges(charges, { close: false });
      await run.ledger.settle(record.reservation, [], { close: true });
    }
    record.status = 'collected';
    await saveBatchRecord(dir, record);
    await run.leases.release('batch', [record.id]);
    ctx.log(`batch ${record.id}: every item was stored before a stop; closed as collected`);
  }
}

/**
 * Collects the batches whose every cell another call answered first (a batch created late: a second
 * batch of the same items, or one that turned up after its items were asked in sync): nothing is stored
 * from them (the first record of a cell wins), and what the provider billed for their items is booked.
 * They are polled until they end, like any batch; nothing is asked.
 */
async function collectBills(ctx: StageContext): Promise<void> {
  const run = ctx.run;
  const dir = batchesDir(run.plan.info.resultsDir);
  const lanes = new Map<string, Lane>();
  for (const record of loadBatchRecords(dir)) {
    if (storedItems(ctx, record) !== 'elsewhere' || ctx.opts.signal?.aborted) continue;
    const batch = batchOfRecord(ctx, record);
    if (!batch || !(await run.leases.claim('batch', [record.id])).mine.has(record.id)) continue;
    if (record.reservation) await run.ledger.adopt(record.reservation);
    const key = `${record.provider}/${record.model}/${record.role}`;
    const store = storeOf(ctx, record);
    const group: BatchGroup = {
      batch,
      stage: record.role === 'subject' ? 'answer' : 'verdict',
      items: [],
      isStored: (k) => store.get(k) !== undefined,
      refresh: () => store.refresh(),
    };
    const lane: Lane = lanes.get(key) ?? {
      ...{ group, work: new Map(), queue: [], inflight: [] },
      ...{ fallback: [], owned: [], absent: [] },
    };
    lane.inflight.push(record);
    lane.owned.push(record.id);
    lanes.set(key, lane);
  }
  if (lanes.size === 0) return;
  const ids = [...lanes.values()].flatMap((l) => l.owned);
  ctx.log(
    `batch: waiting for ${ids.join(', ')} to end, to book what the provider bills for it (a batch created late; ` +
      'its cells are answered already); a stop leaves it held in the budget for the next run',
  );
  await runWaves(ctx, [...lanes.values()], dir);
  for (const lane of lanes.values()) await run.leases.release('batch', lane.owned);
}

/** The group of a model (`key`), made on its first item. */
function groupOf(
  groups: Map<string, BatchGroup>,
  key: string,
  batch: MeteredBatch,
  store: { get: (key: string) => unknown; refresh: () => void },
  kept?: { get: (key: string) => unknown },
): BatchGroup {
  const group = groups.get(key) ?? {
    batch,
    stage: batch.payer.role === 'subject' ? 'answer' : 'verdict',
    items: [],
    isStored: (k: string) => store.get(k) !== undefined,
    ...(kept ? { isKept: (k: string) => kept.get(k) !== undefined } : {}),
    refresh: () => store.refresh(),
  };
  groups.set(key, group);
  return group;
}

/** Stage 1: the missing answers, through batches where the subject's provider has them. */
async function batchAnswers(ctx: StageContext, cells: readonly SubjectCell[]): Promise<void> {
  const run = ctx.run;
  const missing = cells.filter((c) => !run.answers(c.subject).get(c.key));
  const groups = new Map<string, BatchGroup>();
  const syncAnswers: SubjectCell[] = [];
  for (const cell of missing) {
    const batch = run.subjectOf(cell.subject.id).batch;
    if (!batch || cell.ask.kind !== 'model') {
      syncAnswers.push(cell);
      continue;
    }
    const store = run.answers(cell.subject);
    groupOf(groups, `${cell.subject.provider}/${cell.subject.model}`, batch, store).items.push({
      key: cell.key,
      request: cell.ask.request,
      handle: async (reply) => {
        await store.put(answerRecordFrom(cell, reply));
        ctx.counts.answers.computed++;
        return true;
      },
      fallback: async () => {
        await syncAnswer(ctx, cell);
      },
    });
  }
  ctx.counts.answers.reused += cells.length - missing.length;
  const sync = ctx.opts.collectOnly ? [] : syncAnswers;
  await Promise.all([runGroups(ctx, [...groups.values()]), ...sync.map((c) => syncAnswer(ctx, c))]);
}

/** Stage 2: the verdicts every stored answer is missing, through batches where the judge's provider has them. */
async function batchVerdicts(ctx: StageContext, cells: readonly SubjectCell[]): Promise<void> {
  const run = ctx.run;
  const groups = new Map<string, BatchGroup>();
  const syncVerdicts: VerdictCell[] = [];
  for (const cell of cells) {
    const answer = run.answers(cell.subject).get(cell.key);
    if (!answer || !isJudgeable(answer)) continue;
    for (const v of missingVerdicts(ctx, cell, answer)) {
      const batch = batchOf(run.providerOf('judge', v.judge.id));
      const kept = run.attempts(v.judge);
      // a first reply kept when its retry failed: only the retry is left to ask, in sync mode
      if (!batch || kept.get(v.key) !== undefined) {
        syncVerdicts.push(v);
        continue;
      }
      groupOf(groups, `${v.judge.provider}/${v.judge.model}`, batch, run.verdicts(v.judge), kept).items.push({
        key: v.key,
        request: v.request,
        handle: async (reply) => (await syncVerdict(ctx, v, reply)) !== null,
        fallback: async () => {
          await syncVerdict(ctx, v);
        },
      });
    }
  }
  const sync = ctx.opts.collectOnly ? [] : syncVerdicts;
  await Promise.all([runGroups(ctx, [...groups.values()]), ...sync.map((v) => syncVerdict(ctx, v))]);
}

/**
 * Batch mode: answers through batches, then verdicts; what cannot be batched runs in sync mode. A batch
 * whose last item was stored outside it (a batch reply kept when its retry failed, retried in sync mode
 * by this run) is closed at the end.
 */
export async function runBatches(ctx: StageContext, cells: readonly SubjectCell[]): Promise<void> {
  await closeStoredBatches(ctx);
  // batches created late under the tags of earlier submissions, adopted before any item is asked
  await lookForLate(ctx);
  // what earlier runs could not delete at the providers (OpenAI's batch files), tried again
  await deleteLeftoverFiles(ctx, fileCalls(ctx));
  await batchAnswers(ctx, cells);
  await batchVerdicts(ctx, cells);
  await lookForLate(ctx);
  await collectBills(ctx);
  await closeStoredBatches(ctx);
}

/**
 * Before a sync run asks anything: the batches an earlier batch run of this folder left open (submitted,
 * or whose create's outcome is unknown) for this run's models are looked up and collected first, so a
 * cell one of them holds is never asked again in sync (issue 52). Nothing is submitted; the sync calls
 * then ask what they did not answer. Nothing happens (no call) when no such record exists.
 */
export async function collectBeforeSync(ctx: StageContext, cells: readonly SubjectCell[]): Promise<void> {
  const records = loadBatchRecords(batchesDir(ctx.run.plan.info.resultsDir));
  const open = records.filter((r) => isOpen(r) && batchOfRecord(ctx, r) !== null);
  if (open.length === 0) return;
  ctx.log(
    `${open.length} batch(es) an earlier batch run left open for this run's models: the cells they hold ` +
      'are collected from them first (looked up where their submission ended without an answer), not asked again in sync',
  );
  // a context of its own: its counts are not the sync run's (a cell it stores is reused there)
  const collecting = new StageContext(ctx.run, { ...ctx.opts, collectOnly: true });
  await runBatches(collecting, cells);
}
