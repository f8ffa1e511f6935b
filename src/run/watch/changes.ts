/**
 * Which cases of a run changed since the run before it (`rge eval watch`): each case's identity as its
 * published row records it (the answer's key, the judge prompt's hash and the panel's verdicts), read
 * from the run's rows (`data/results/<subject>_<run_id>.jsonl`, store/rows.ts), and compared case by
 * case, a case being a (subject, question, run index). Nothing is computed again: a case changed when
 * its answer or a verdict is another record than before.
 */

import { CaseRow, resultsFile, scanRows } from '../../store/rows.ts';
import { sha256 } from '../../util/fs.ts';
import type { RunPlan } from '../plan/plan.ts';

/** A case of a run as the comparison reads it. */
export interface CaseDigest {
  /** `<subject> › <category> › <question id> › run <n>`, the case's name in Vitest and the report */
  name: string;
  subject: string;
  /** the answer's key and the verdicts' identity together */
  identity: string;
  gfs: number | null;
}

/** The cases of a run, by subject, question and run index. */
export type RunDigest = Map<string, CaseDigest>;

const caseKey = (row: Pick<CaseRow, 'subject_id' | 'question_id' | 'run_index'>) =>
  `${row.subject_id}\u0000${row.question_id}\u0000${row.run_index}`;

/** The digest of a run's published rows (a subject without a rows file has no case in it). */
export function runDigest(plan: RunPlan): RunDigest {
  const digest: RunDigest = new Map();
  for (const subject of plan.subjects)
    scanRows(resultsFile(plan.info.resultsDir, subject.id, plan.info.runId), CaseRow, null, (row) => {
      digest.set(caseKey(row), {
        name: `${row.subject_id} › ${row.category} › ${row.question_id} › run ${row.run_index}`,
        subject: row.subject_id,
        identity: sha256(
          JSON.stringify([
            row.answer_key,
            row.judge_prompt_hash,
            row.verdicts.map((v) => [v.judgeId, v.raw]),
          ]),
        ),
        gfs: row.scores.gfsPrimary,
      });
    });
  return digest;
}

export interface CaseChange {
  name: string;
  subject: string;
  before: number | null;
  after: number | null;
}

export interface CaseChanges {
  /** cases in both runs whose answer or a verdict is another record */
  changed: CaseChange[];
  /** cases only the later run has */
  added: CaseChange[];
  /** how many cases only the earlier run has */
  removed: number;
  /** cases of the later run */
  total: number;
}

/** The cases that changed from one run to the next. */
export function caseChanges(before: RunDigest, after: RunDigest): CaseChanges {
  const changed: CaseChange[] = [];
  const added: CaseChange[] = [];
  for (const [key, now] of after) {
    const was = before.get(key);
    const change = { name: now.name, subject: now.subject, before: was?.gfs ?? null, after: now.gfs };
    if (!was) added.push(change);
    else if (was.identity !== now.identity) changed.push(change);
  }
  const removed = [...before.keys()].filter((key) => !after.has(key)).length;
  return { changed, added, removed, total: after.size };
}
