/**
 * The batch records of a results folder (`data/results/.batches/<id>.json`): what was submitted, to whom,
 * with which budget reservation and items, written before a batch is submitted and after each change,
 * so that a run that starts again polls the same batch instead of paying twice (run/batches.ts); and
 * what rge left at the provider (`leftAtProvider`): a batch not ended or not collected, a file not
 * deleted.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { BatchHint } from '../providers/live/adapter.ts';
import { errorMessage, RgeError } from '../util/errors.ts';
import { sha256, writeFileAtomic } from '../util/fs.ts';
import { resultsLayout } from './layout.ts';

export const BatchRecord = z.strictObject({
  id: z.string(),
  run_id: z.string(),
  provider: z.string(),
  model: z.string(),
  role: z.enum(['subject', 'judge']),
  status: z.enum(['submitting', 'submitted', 'collected', 'abandoned', 'failed']),
  remote_id: z.string().nullable(),
  reservation: z.string().nullable(),
  reserved_usd: z.number().min(0),
  submitted_after_ms: z.number(),
  items: z.array(z.strictObject({ custom_id: z.string(), key: z.string() })),
  /**
   * The files the provider keeps for the batch (OpenAI: the input file rge uploaded, the output and
   * error files of the ended batch), and whether rge has deleted each (run/batch-files.ts); none for
   * providers that keep none, and in records written before rge recorded them.
   */
  files: z
    .array(
      z.strictObject({ id: z.string(), kind: z.enum(['input', 'output', 'error']), deleted: z.boolean() }),
    )
    .default([]),
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type BatchRecord = z.infer<typeof BatchRecord>;

export function batchesDir(resultsDir: string): string {
  return resultsLayout(resultsDir).batches;
}

export async function saveBatchRecord(dir: string, record: BatchRecord): Promise<void> {
  record.updated_at = new Date().toISOString();
  await writeFileAtomic(join(dir, `${record.id}.json`), `${JSON.stringify(record, null, 2)}\n`);
}

/** Every batch record of a results folder (a damaged one is an error naming the file). */
export function loadBatchRecords(dir: string): BatchRecord[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const file = join(dir, f);
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(file, 'utf8'));
      } catch (err) {
        throw new RgeError(`not a batch record (${errorMessage(err)})`, { file });
      }
      const parsed = BatchRecord.safeParse(json);
      if (!parsed.success)
        throw new RgeError(`not a batch record (${parsed.error.issues[0]?.message})`, { file });
      return parsed.data;
    });
}

/** The prefix of every custom id of a batch: ties its items (and results) to its record. */
export function customIdPrefix(recordId: string): string {
  return `b${sha256(recordId).slice(0, 12)}_`;
}

/** What identifies a record's batch at the provider when its id was not recorded. */
export function hintOf(record: BatchRecord, dir: string): BatchHint {
  const others = loadBatchRecords(dir)
    .filter((r) => r.id !== record.id && r.remote_id !== null)
    .map((r) => r.remote_id as string);
  return {
    submittedAfterMs: record.submitted_after_ms,
    items: record.items.length,
    customIdPrefix: customIdPrefix(record.id),
    exclude: new Set(others),
  };
}

/** What a batch record says rge left at its provider: the batch itself if open, the files not deleted. */
export interface LeftAtProvider {
  record: BatchRecord;
  /** the batch is open: submitted (or being submitted) and not collected, failed or abandoned */
  open: boolean;
  files: BatchRecord['files'];
}

/** The records that left something at a provider, oldest first. */
export function leftAtProvider(records: readonly BatchRecord[]): LeftAtProvider[] {
  return records
    .map((record) => ({
      record,
      open: record.status === 'submitting' || record.status === 'submitted',
      files: record.files.filter((f) => !f.deleted),
    }))
    .filter((r) => r.open || r.files.length > 0)
    .sort((a, b) => a.record.created_at.localeCompare(b.record.created_at));
}
