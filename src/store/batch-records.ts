/**
 * The batch records of a results folder (`data/results/.batches/<id>.json`): what was submitted, to whom,
 * with which budget reservation and items, written before a batch is submitted and after each change,
 * so that a run that starts again polls the same batch instead of paying twice (run/batch/batches.ts); and
 * what rge left at the provider (`leftAtProvider`): a batch not ended or not collected, a file not
 * deleted.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { TagQuery } from '../providers/live/adapter.ts';
import { errorMessage, RgeError } from '../util/errors.ts';
import { sha256, writeFileAtomic } from '../util/fs.ts';
import { resultsLayout } from './layout.ts';

export const BatchRecord = z.strictObject({
  id: z.string(),
  run_id: z.string(),
  provider: z.string(),
  model: z.string(),
  role: z.enum(['subject', 'judge', 'generator']),
  /**
   * submitting: recorded, its create being sent; submitted: its provider's batch id known, polled until
   * it ends; unknown: its create failed without an answer that refused it (a timeout, a lost
   * connection, an abort after sending, a 5xx), so the batch may exist: its items and reservation are
   * held until the provider is asked for its tag; absent: looked up after an unknown outcome and not
   * found, its items freed (a batch created later under its tag is still looked for, and adopted);
   * collected; abandoned: the batch a lookup found was not its own; failed: the provider refused it.
   */
  status: z.enum(['submitting', 'submitted', 'unknown', 'absent', 'collected', 'abandoned', 'failed']),
  remote_id: z.string().nullable(),
  reservation: z.string().nullable(),
  reserved_usd: z.number().min(0),
  submitted_after_ms: z.number(),
  items: z.array(z.strictObject({ custom_id: z.string(), key: z.string() })),
  /**
   * The files the provider keeps for the batch (OpenAI: the input file rge uploaded, the output and
   * error files of the ended batch), and whether rge has deleted each (run/batch/files.ts); none for
   * providers that keep none, and in records written before rge recorded them.
   */
  files: z
    .array(
      z.strictObject({ id: z.string(), kind: z.enum(['input', 'output', 'error']), deleted: z.boolean() }),
    )
    .default([]),
  error: z.string().nullable(),
  /**
   * How many attempts of its create ended with an unknown outcome: while any did, a batch created late
   * under its tag (a request that reached the provider after the client gave up on it) may appear, and
   * lookups look for it (run/batch/lookup.ts).
   */
  unknown_attempts: z.number().int().min(0).default(0),
  /**
   * A record of a batch created late: the record whose submission made it (its tag and its items'
   * custom ids are that record's), when that record had a batch of its own already.
   */
  late_of: z.string().nullable().default(null),
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

/** The tag a record's batch was submitted under: its own id, or for a late batch its submitter's. */
export function tagOf(record: BatchRecord): string {
  return record.late_of ?? record.id;
}

/** What finds a record's batch at its provider (its tag, its items' custom-id prefix, its size, when). */
export function tagQuery(record: BatchRecord): TagQuery {
  const tag = tagOf(record);
  return {
    tag,
    customIdPrefix: customIdPrefix(tag),
    items: record.items.length,
    submittedAfterMs: record.submitted_after_ms,
  };
}

/** The provider batch ids the records of a folder hold: a lookup's finds other than these are new. */
export function recordedRemoteIds(records: readonly BatchRecord[]): Set<string> {
  return new Set(records.flatMap((r) => (r.remote_id === null ? [] : [r.remote_id])));
}

/** What a lookup of a record's batch is: its query, and the batch ids other records of `dir` hold. */
export function lookupOf(record: BatchRecord, dir: string): { query: TagQuery; exclude: Set<string> } {
  return {
    query: tagQuery(record),
    exclude: recordedRemoteIds(loadBatchRecords(dir).filter((r) => r.id !== record.id)),
  };
}

/** Whether a record's batch is, or may be, at its provider not collected (its items held). */
export function isOpen(record: BatchRecord): boolean {
  return record.status === 'submitting' || record.status === 'submitted' || record.status === 'unknown';
}

/** What a batch record says rge left at its provider: the batch itself if open, the files not deleted. */
export interface LeftAtProvider {
  record: BatchRecord;
  /** the batch is open, or may be: submitted (or being submitted, or its outcome unknown) and not collected */
  open: boolean;
  files: BatchRecord['files'];
}

/** The records that left something at a provider, oldest first. */
export function leftAtProvider(records: readonly BatchRecord[]): LeftAtProvider[] {
  return records
    .map((record) => ({
      record,
      open: isOpen(record),
      files: record.files.filter((f) => !f.deleted),
    }))
    .filter((r) => r.open || r.files.length > 0)
    .sort((a, b) => a.record.created_at.localeCompare(b.record.created_at));
}
