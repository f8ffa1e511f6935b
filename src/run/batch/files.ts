/**
 * The files a provider keeps for rge's batches until they are deleted (OpenAI: a batch's input file,
 * which rge uploads, and the output and error files of the ended batch; Anthropic and Gemini keep none
 * a client must delete). Each is recorded in its batch record as it becomes known (the input file
 * before its batch is created) and deleted when nothing needs it any more:
 * - the input file once its batch has ended (completed, failed, expired or cancelled), or when its
 *   submission failed or never became a batch;
 * - the output and error files once every result of the batch is stored (the record is collected).
 * A file that could not be deleted stays in the record: `rge results batches` lists it and the next
 * batch run tries again (`deleteLeftoverFiles`).
 */
import { redactSecrets } from '../../providers/credentials.ts';
import type { RemoteFile } from '../../providers/live/adapter.ts';
import { MeteredProvider } from '../../providers/metered.ts';
import type { BatchCallOptions, MeteredBatch } from '../../providers/metered-batch.ts';
import {
  type BatchRecord,
  batchesDir,
  loadBatchRecords,
  saveBatchRecord,
} from '../../store/batch-records.ts';
import { errorMessage } from '../../util/errors.ts';
import type { StageContext } from '../sync/stage-context.ts';

/** Adds a file to the record's (once). */
export function noteFile(record: BatchRecord, file: RemoteFile): void {
  if (!record.files.some((f) => f.id === file.id)) record.files.push({ ...file, deleted: false });
}

/** Which of a record's files go, and how the record learns of those it has not recorded. */
export interface FileCleanup {
  /** 'input': the input files only (the batch has ended, its results are not all stored); 'all' */
  which: 'input' | 'all';
  /** ask the provider for the batch's files first (its output and error files are not recorded before) */
  learn: boolean;
  /** look for input files uploaded under the record's tag (a submission cut short may have left one) */
  sweep: boolean;
}

/** How the file calls of a run are made: its batch call options, where it says what failed. */
export interface FileCalls {
  opts: BatchCallOptions;
  log: (line: string) => void;
}

/** Learns the files of the record's batch, as `how` says; a failure is said, the files recorded stay. */
async function learnFiles(batch: MeteredBatch, record: BatchRecord, how: FileCleanup, calls: FileCalls) {
  try {
    if (how.learn && record.remote_id)
      for (const f of await batch.filesOf(record.id, record.remote_id, calls.opts)) noteFile(record, f);
    if (how.sweep) for (const f of await batch.uploadedAs(record.id, calls.opts)) noteFile(record, f);
  } catch (err) {
    calls.log(
      `batch ${record.id}: could not list its files at ${record.provider} (${redactSecrets(errorMessage(err))})`,
    );
  }
}

/**
 * Deletes the record's files at its provider as `how` says, marking each deleted in the record, and
 * saves the record if anything changed. A file that cannot be deleted is said and stays recorded.
 */
export async function deleteBatchFiles(
  batch: MeteredBatch,
  record: BatchRecord,
  dir: string,
  how: FileCleanup,
  calls: FileCalls,
): Promise<void> {
  if (!batch.keepsFiles) return;
  const before = JSON.stringify(record.files);
  await learnFiles(batch, record, how, calls);
  for (const f of record.files) {
    if (f.deleted || (how.which === 'input' && f.kind !== 'input')) continue;
    try {
      await batch.deleteFile(record.id, f.id, calls.opts);
      f.deleted = true;
    } catch (err) {
      calls.log(
        `batch ${record.id}: could not delete its ${f.kind} file ${f.id} at ${record.provider} (${redactSecrets(errorMessage(err))}); ` +
          'the next batch run tries again, `rge results batches` lists it',
      );
    }
  }
  if (JSON.stringify(record.files) !== before) await saveBatchRecord(dir, record);
}

/** The metered batch API of a record's model in this run, or null (the run does not call that model). */
export function batchOfRecord(ctx: StageContext, record: BatchRecord): MeteredBatch | null {
  const run = ctx.run;
  // a run's batches are its subjects' and judges'; a generator's is no run's
  if (record.role === 'generator') return null;
  const planned = record.role === 'subject' ? run.plan.subjects : run.plan.judges;
  for (const m of planned) {
    if (m.provider !== record.provider || m.model !== record.model) continue;
    try {
      const provider = run.providerOf(record.role, m.id);
      if (provider instanceof MeteredProvider && provider.batch) return provider.batch;
    } catch {
      // a system subject, or a session that only reads: no batch API here
    }
  }
  return null;
}

/**
 * Deletes what earlier runs left at the providers of this run's models: the files of ended batches
 * (collected, failed or abandoned) that could not be deleted then, and those of a collected batch whose
 * output and error files were never recorded (collected before rge deleted them, or closed after a stop
 * by `closeStoredBatches`). A batch still open is left to the run that polls it.
 */
export async function deleteLeftoverFiles(ctx: StageContext, calls: FileCalls): Promise<void> {
  const dir = batchesDir(ctx.run.plan.info.resultsDir);
  for (const record of loadBatchRecords(dir)) {
    if (record.status === 'submitting' || record.status === 'submitted') continue;
    const learn =
      record.status === 'collected' &&
      record.remote_id !== null &&
      record.files.every((f) => f.kind === 'input');
    if (!learn && record.files.every((f) => f.deleted)) continue;
    const batch = batchOfRecord(ctx, record);
    if (batch) await deleteBatchFiles(batch, record, dir, { which: 'all', learn, sweep: false }, calls);
  }
}
