/**
 * Reading a review file back (record.ts): its order, and per question the decision that stands (the
 * last one not undone). A torn last line (a crash mid-write) is skipped; a bad line anywhere else is an
 * error naming file:line and what to do. A decision about a question the file no longer holds as it
 * was (regenerated: another hash, or gone) is stale: it is kept apart and the question is pending again.
 */
import { existsSync } from 'node:fs';
import { RgeError } from '../../util/errors.ts';
import { readTextFile } from '../../util/fs.ts';
import { parseJsonlLines } from '../../util/jsonl.ts';
import { appendRecord, tornTail } from '../../util/jsonl-append.ts';
import type { Question } from '../schema.ts';
import { questionHash, type ReviewDecision, type ReviewOrder, ReviewRecord } from './record.ts';

/** A decision with the line of the review file it is on. */
export type LedgerDecision = ReviewDecision & { line: number };

/** What a review file says: its order (null before the review started) and the decisions standing, in file order. */
export interface ReviewLedger {
  file: string;
  order: ReviewOrder | null;
  /** the standing decisions, one per question, in the order they were made */
  standing: LedgerDecision[];
}

const LINE_REMEDY =
  'fix or delete that line (one decision per line; a later decision about the same question replaces an earlier one)';

/** The records of a review file, each with its line; [] when it does not exist. */
export async function readReviewRecords(file: string): Promise<{ line: number; value: ReviewRecord }[]> {
  if (!existsSync(file)) return [];
  const text = await readTextFile(file);
  const torn = tornTail(text);
  const lines = parseJsonlLines(torn ? text.slice(0, torn.at) : text, ReviewRecord);
  const bad = lines.filter((l) => l.issues.length > 0);
  const first = bad[0]?.issues[0];
  if (first) {
    const more = bad.length > 1 ? ` (first of ${bad.length} bad lines)` : '';
    throw new RgeError(`${first.field ? `${first.field}: ` : ''}${first.message}; ${LINE_REMEDY}${more}`, {
      file,
      line: first.line,
    });
  }
  return lines.map((l) => ({ line: l.line, value: l.value as ReviewRecord }));
}

/**
 * Replays records: each decision stands until a later decision about its question or an undo of it
 * (which brings back the one before, if any). The first order record is the review's order.
 */
export function replayReview(file: string, records: readonly { line: number; value: ReviewRecord }[]) {
  let order: ReviewOrder | null = null;
  const history: LedgerDecision[] = [];
  for (const { line, value } of records) {
    if (value.kind === 'order') order ??= value;
    else if (value.kind === 'decision') history.push({ ...value, line });
    else {
      const at = history.findLastIndex((d) => d.question_id === value.question_id);
      if (at >= 0) history.splice(at, 1);
    }
  }
  const last = new Map<string, LedgerDecision>();
  for (const d of history) {
    last.delete(d.question_id); // re-inserted: the map keeps the order decisions were last made
    last.set(d.question_id, d);
  }
  return { file, order, standing: [...last.values()] } satisfies ReviewLedger;
}

/** Reads a review file: its order and standing decisions. */
export async function readReviewLedger(file: string): Promise<ReviewLedger> {
  return replayReview(file, await readReviewRecords(file));
}

/** The standing decisions about the questions as they are now, and the stale ones (question changed or gone). */
export function currentDecisions(
  ledger: ReviewLedger,
  questions: readonly Question[],
): { decided: Map<string, LedgerDecision>; stale: LedgerDecision[] } {
  const hashes = new Map(questions.map((q) => [q.id, questionHash(q)]));
  const decided = new Map<string, LedgerDecision>();
  const stale: LedgerDecision[] = [];
  for (const d of ledger.standing) {
    if (hashes.get(d.question_id) === d.question_hash) decided.set(d.question_id, d);
    else stale.push(d);
  }
  return { decided, stale };
}

/** Appends one record to a review file (under its lock), validated first: a bad record is a bug here. */
export async function appendReviewRecord(file: string, record: ReviewRecord): Promise<void> {
  await appendRecord(file, ReviewRecord.parse(record));
}
