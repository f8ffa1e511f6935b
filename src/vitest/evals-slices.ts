/**
 * Slices of a run, so that Vitest's `--shard` (which shards by test FILE) has files to share out:
 * `evals/grounding-<i>.eval.ts` defines the cells of slice i of n, and runs the stages for those cells
 * only. A run is split by QUESTION (every subject and run index of a question stays in one slice), so
 * retrieval, prompt caching and the pre-flight estimate (which groups calls by question) are the same
 * sliced or not, and the slices' estimates add up to the run's.
 *
 * The run id does not depend on the slice: every slice belongs to the one run, whose report the rge
 * reporter builds from all the cases. Each slice keeps its stage outcome in its own state file,
 * `.runs/<run_id>.slice-<i>-of-<n>.json` (so result folders of shards join without clashes), and the
 * run's state file `.runs/<run_id>.json`, which the report reads, is DERIVED: the combination of the
 * run's slice files, rewritten under a lock by every slice that finishes and by `rge results merge`.
 *
 * Nothing here imports Vitest: `rge results merge` combines slice states too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Estimate, EstimateLine } from '../run/estimate.ts';
import type { RunSession } from '../run/open.ts';
import type { RunPlan } from '../run/plan.ts';
import { RunState } from '../run/stages.ts';
import type { SubjectCell } from '../run/work.ts';
import { UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { withFileLock } from '../util/lock.ts';

/** Slice i of n (1-based, as `vitest --shard i/n`). */
export type Slice = readonly [index: number, count: number];

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

const SLICE_FILE = /^(.+)\.slice-(\d+)-of-(\d+)\.json$/;

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

export function sliceStateFile(runStateFile: string, slice: Slice): string {
  const runId = basename(runStateFile, '.json');
  return join(dirname(runStateFile), `${runId}.slice-${slice[0]}-of-${slice[1]}.json`);
}

/** `.runs/<run_id>.slice-<i>-of-<n>.json` -> its run id and slice, or null for any other name. */
export function parseSliceFile(name: string): { runId: string; slice: Slice } | null {
  const m = SLICE_FILE.exec(name);
  if (!m) return null;
  return { runId: m[1] as string, slice: [Number(m[2]), Number(m[3])] };
}

/** The slice files of a run in a `.runs` folder, with n slices, in slice order. */
export function sliceFilesOf(runsDir: string, runId: string, count: number): string[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .map((name) => ({ name, parsed: parseSliceFile(name) }))
    .filter((f) => f.parsed?.runId === runId && f.parsed.slice[1] === count)
    .sort((a, b) => (a.parsed?.slice[0] ?? 0) - (b.parsed?.slice[0] ?? 0))
    .map((f) => join(runsDir, f.name));
}

/** The slice counts a run was split into in a `.runs` folder (normally one). */
export function sliceCountsOf(runsDir: string, runId: string): number[] {
  if (!existsSync(runsDir)) return [];
  const counts = new Set<number>();
  for (const name of readdirSync(runsDir)) {
    const parsed = parseSliceFile(name);
    if (parsed?.runId === runId) counts.add(parsed.slice[1]);
  }
  return [...counts].sort((a, b) => a - b);
}

export function readRunState(file: string): RunState {
  return RunState.parse(JSON.parse(readFileSync(file, 'utf8')));
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const unique = (xs: readonly string[]) => [...new Set(xs)];

function combineEstimates(estimates: readonly Estimate[]): Estimate | null {
  const [first] = estimates;
  if (!first) return null;
  const lines = new Map<string, EstimateLine>();
  for (const e of estimates)
    for (const l of e.lines) {
      const key = `${l.provider}\u0000${l.model}\u0000${l.role}\u0000${l.batch}`;
      const line = lines.get(key);
      if (!line) {
        lines.set(key, { ...l });
        continue;
      }
      line.calls += l.calls;
      line.inputTokens += l.inputTokens;
      line.cacheReadTokens += l.cacheReadTokens;
      line.cacheWriteTokens += l.cacheWriteTokens;
      line.outputTokens += l.outputTokens;
      line.expectedUsd += l.expectedUsd;
      line.naiveUsd += l.naiveUsd;
      line.worstUsd += l.worstUsd;
    }
  return {
    ...first,
    lines: [...lines.values()],
    totals: {
      calls: sum(estimates.map((e) => e.totals.calls)),
      expectedUsd: sum(estimates.map((e) => e.totals.expectedUsd)),
      naiveUsd: sum(estimates.map((e) => e.totals.naiveUsd)),
      worstUsd: sum(estimates.map((e) => e.totals.worstUsd)),
    },
    cells: {
      total: sum(estimates.map((e) => e.cells.total)),
      stored: sum(estimates.map((e) => e.cells.stored)),
      verdictsStored: sum(estimates.map((e) => e.cells.verdictsStored)),
    },
  };
}

function combineSpend(states: readonly RunState[]): RunState['spend'] {
  const byPayer = new Map<string, RunState['spend']['by_payer'][number]>();
  for (const s of states)
    for (const p of s.spend.by_payer) {
      const key = `${p.provider}\u0000${p.model}\u0000${p.role}`;
      const line = byPayer.get(key);
      if (line) {
        line.usd += p.usd;
        line.calls += p.calls;
      } else byPayer.set(key, { ...p });
    }
  return {
    usd: sum(states.map((s) => s.spend.usd)),
    unaccounted_usd: sum(states.map((s) => s.spend.unaccounted_usd)),
    by_payer: [...byPayer.values()].sort((a, b) =>
      `${a.provider}/${a.model}/${a.role}`.localeCompare(`${b.provider}/${b.model}/${b.role}`),
    ),
  };
}

/**
 * The run's state from its slices' states (in slice order): estimates, counts and spend add up (the
 * slices' cells are disjoint), errors and warnings are joined, the first stop reason is the run's.
 */
export function combineRunStates(states: readonly RunState[]): RunState {
  const [first] = states;
  if (!first) throw new Error('no slice states to combine');
  const estimates = states.map((s) => s.estimate as Estimate | null);
  const finished = states.map((s) => s.finished_at);
  return {
    run_id: first.run_id,
    mode: first.mode,
    started_at: states.map((s) => s.started_at).sort()[0] as string,
    finished_at: finished.includes(null) ? null : ([...finished].sort().at(-1) as string),
    estimate: estimates.includes(null) ? null : combineEstimates(estimates as Estimate[]),
    errors: Object.assign({}, ...states.map((s) => s.errors)),
    stopped: states.find((s) => s.stopped !== null)?.stopped ?? null,
    warnings: unique(states.flatMap((s) => s.warnings)),
    counts: {
      answers: {
        computed: sum(states.map((s) => s.counts.answers.computed)),
        reused: sum(states.map((s) => s.counts.answers.reused)),
        failed: sum(states.map((s) => s.counts.answers.failed)),
      },
      verdicts: {
        computed: sum(states.map((s) => s.counts.verdicts.computed)),
        reused: sum(states.map((s) => s.counts.verdicts.reused)),
        failed: sum(states.map((s) => s.counts.verdicts.failed)),
      },
      batches: sum(states.map((s) => s.counts.batches)),
    },
    spend: combineSpend(states),
    budget_warnings: unique(states.flatMap((s) => s.budget_warnings)),
  };
}

/**
 * Rewrites a run's state file as the combination of its slice files with n slices (under the state
 * file's lock, so that two slices finishing together cannot lose each other's outcome). Returns the
 * combined state, or null when there is no slice file.
 */
export async function combineSliceStates(runStateFile: string, count: number): Promise<RunState | null> {
  const runId = basename(runStateFile, '.json');
  return withFileLock(runStateFile, async () => {
    const files = sliceFilesOf(dirname(runStateFile), runId, count);
    if (files.length === 0) return null;
    const combined = combineRunStates(files.map(readRunState));
    await writeFileAtomic(runStateFile, `${JSON.stringify(combined, null, 2)}\n`);
    return combined;
  });
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
