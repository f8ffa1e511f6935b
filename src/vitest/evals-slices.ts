/**
 * Slices of a run, so that Vitest's `--shard` (which shards by test FILE) has files to share out:
 * `evals/grounding-<i>.eval.ts` defines the cells of slice i of n, and runs the stages for those cells
 * only. A run is split by QUESTION (every subject and run index of a question stays in one slice), so
 * retrieval, prompt caching and the pre-flight estimate (which groups calls by question) are the same
 * sliced or not, and the slices' estimates add up to the run's.
 *
 * The run id does not depend on the slice: every slice belongs to the one run, whose report the rge
 * reporter builds from all the cases. Each slice keeps its stage outcome in its own state file, and the
 * run's state file is the combination of the slices' (the store's run-state.ts, which `rge results
 * merge` uses too).
 */

import type { RunPlan } from '../run/plan/index.ts';
import type { RunSession, SubjectCell } from '../run/session/index.ts';
import { type RunState, type Slice, sliceStateFile } from '../store/run-state.ts';
import { UsageError } from '../util/errors.ts';

export type { Slice } from '../store/run-state.ts';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

export function checkSlice(slice: Slice): void {
  const [i, n] = slice;
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(i) || i < 1 || i > n)
    throw new UsageError(`a slice is [i, n] with 1 <= i <= n, got [${slice.join(', ')}]`);
}

/**
 * The questions of slice i of n: contiguous blocks in the question file's order, sizes differing by at
 * most one (question q, 0-based, of N goes to slice floor(q * n / N) + 1).
 */
export function sliceQuestions<Q>(questions: readonly Q[], slice: Slice): Q[] {
  checkSlice(slice);
  const [i, n] = slice;
  return questions.filter((_, q) => Math.floor((q * n) / questions.length) + 1 === i);
}

/**
 * The plan of slice i of n of a run: its questions, and its own state file for its stages; the run's
 * info (run id, folders, cells, the combined state file the report reads) is every case's.
 */
export function slicePlan(plan: RunPlan, slice: Slice): RunPlan {
  return {
    ...plan,
    questions: sliceQuestions(plan.questions, slice),
    info: { ...plan.info, stateFile: sliceStateFile(plan.info.stateFile, slice) },
  };
}

/**
 * What the calls of these cells made since `since` cost, from their stored records (each billed call is
 * a charge on the record it produced; the ledger's spent is the sum of the recorded charges). Slices of a
 * run that share a results folder run their stages at the same time, so the ledger's before/after
 * difference of one slice would count the others' calls too; the records of its own cells do not.
 */
export function spendOfCells(
  run: RunSession,
  cells: readonly SubjectCell[],
  since: string,
): Pick<RunState['spend'], 'usd' | 'by_payer'> {
  const byPayer = new Map<string, RunState['spend']['by_payer'][number]>();
  const charge = (
    payer: { provider: string; model: string; role: 'subject' | 'judge' },
    charges: readonly { reservation: string | null; usd: number }[],
  ) => {
    const billed = charges.filter((c) => c.reservation !== null);
    if (billed.length === 0) return;
    const key = `${payer.provider}\u0000${payer.model}\u0000${payer.role}`;
    const line = byPayer.get(key) ?? { ...payer, usd: 0, calls: 0 };
    line.usd += sum(billed.map((c) => c.usd));
    line.calls += billed.length;
    byPayer.set(key, line);
  };
  for (const cell of cells) {
    const answer = run.answers(cell.subject).get(cell.key);
    if (!answer) continue;
    if (answer.created_at >= since)
      charge({ provider: cell.subject.provider, model: cell.subject.model, role: 'subject' }, answer.charges);
    for (const { judge, key } of run.work.verdictCells(cell, answer)) {
      const verdict = run.verdicts(judge).get(key);
      if (verdict && verdict.created_at >= since)
        charge({ provider: judge.provider, model: judge.model, role: 'judge' }, verdict.charges);
    }
  }
  const lines = [...byPayer.values()];
  return { usd: sum(lines.map((l) => l.usd)), by_payer: lines };
}

/** A slice's state as its file keeps it: the stages' outcome, with the spend of the slice's own cells. */
export function sliceState(run: RunSession, cells: readonly SubjectCell[], state: RunState): RunState {
  // The ledger's difference over the slice's window never undercounts: nothing spent, nothing to look up.
  if (state.spend.usd === 0 && state.spend.by_payer.length === 0) return state;
  const own = spendOfCells(run, cells, state.started_at);
  return { ...state, spend: { ...state.spend, usd: own.usd, by_payer: own.by_payer } };
}
