/**
 * A run's state, as the stages leave it for the cases and the report (`.runs/<run_id>.json`): the
 * pre-flight estimate, errors by cell, why it stopped, the counts and what it spent. A run split into
 * slices (the Vitest entry's files) keeps one state file per slice, `.runs/<run_id>.slice-<i>-of-<n>.json`
 * (so result folders of shards join without clashes), and the run's state file is DERIVED: the
 * combination of its slice files, rewritten under a lock by every slice that finishes and by `rge results
 * merge`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../util/fs.ts';
import { withFileLock } from '../util/lock.ts';
import { STOP_SIGNALS } from '../util/stop-signal.ts';

export interface EstimateLine {
  provider: string;
  model: string;
  role: 'subject' | 'judge';
  batch: boolean;
  calls: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  expectedUsd: number;
  naiveUsd: number;
  worstUsd: number;
  priceSource: string;
}

/** One batch of the batch plan: what it holds and reserves, in which wave it is submitted. */
export interface PlannedBatch {
  /** 1-based: the batches of a wave go together; the next wave goes when they have settled */
  wave: number;
  provider: string;
  model: string;
  role: 'subject' | 'judge';
  calls: number;
  /** the worst case it reserves before it is submitted */
  reservedUsd: number;
  expectedUsd: number;
}

/**
 * How a batch run's batches fit the budget cap (run/batch/plan.ts): each batch reserves its worst case,
 * so batches are sized to what the cap leaves, and the rest is submitted as earlier batches settle.
 */
export interface BatchPlan {
  /** what the cap left when the plan was made */
  leftUsd: number;
  calls: number;
  expectedUsd: number;
  worstUsd: number;
  /** the whole worst case fits what is left: the run finishes under the cap whatever its batches cost */
  fitsAtWorst: boolean;
  /** the batches, wave by wave, when each settles at its expected cost */
  batches: PlannedBatch[];
  waves: number;
  /** calls no batch holds at the expected cost: the cap would stop the run before them */
  unplacedCalls: number;
  /** the calls submitted before the cap stops the run if every batch costs its worst case */
  callsAtWorst: number;
  /** the dearest single call, when even its worst case is above what the cap leaves */
  tooLarge: { provider: string; model: string; role: 'subject' | 'judge'; worstUsd: number } | null;
}

export interface Estimate {
  runId: string;
  mode: string;
  lines: EstimateLine[];
  totals: { calls: number; expectedUsd: number; naiveUsd: number; worstUsd: number };
  /** cells of the run, and how many are already stored */
  /**
   * cells of the run, and how many are already stored; `keptReplies`: judges' first replies an earlier
   * run kept, whose retries are the only calls counted for their verdicts (absent in older estimates)
   */
  cells: { total: number; stored: number; verdictsStored: number; keptReplies?: number };
  assumptions: {
    subjectOutputTokens: number;
    judgeOutputTokens: number;
    cacheHitRate: number;
    /** true when the context was bounded by k x chunk_tokens (no index) */
    contextBounded: boolean;
  };
  /** how the batches fit the cap (batch mode with batch calls to make; null otherwise) */
  batchPlan: BatchPlan | null;
}

/** A run state's spend as states before issue 52 wrote it: `unaccounted_usd` is the unknown amount. */
function olderSpend(spend: unknown): unknown {
  if (typeof spend !== 'object' || spend === null || !('unaccounted_usd' in spend) || 'unknown_usd' in spend)
    return spend;
  const { unaccounted_usd, ...rest } = spend as Record<string, unknown>;
  return { ...rest, unknown_usd: unaccounted_usd };
}

/** What the stages left for the cases and the report: the estimate, errors by cell, why it stopped. */
export const RunState = z.strictObject({
  run_id: z.string(),
  mode: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  estimate: z.unknown().nullable(),
  /** cell id (`subject/question/run n`) -> why it has no answer or verdict */
  errors: z.record(z.string(), z.string()),
  /**
   * the cells among `errors` that the subject itself gave no answer for: a user's system crashed, timed
   * out, exited non-zero, replied with something malformed or an HTTP error, or broke the contract (not
   * a stop, a judge's failure or rge's own error); the report scores them 0. Absent in older states.
   */
  subject_failures: z.array(z.string()).optional(),
  /** why the run stopped before every cell was asked: the budget cap's message, or a stop signal's */
  stopped: z.string().nullable(),
  /** the signal that stopped the run (SIGINT, SIGTERM, SIGHUP), if one did; absent in older states */
  stop_signal: z.enum(STOP_SIGNALS).nullable().optional(),
  warnings: z.array(z.string()),
  counts: z.object({
    answers: z.object({ computed: z.number(), reused: z.number(), failed: z.number() }),
    verdicts: z.object({ computed: z.number(), reused: z.number(), failed: z.number() }),
    batches: z.number(),
  }),
  /** what this run spent, from the ledger (after minus before), by provider, model and role */
  spend: z.preprocess(
    olderSpend,
    z.object({
      usd: z.number(),
      /**
       * calls of processes that died (kill -9) that this run found with no reply on record: possibly
       * billed, at most this; not spend, but counted against the cap (docs/adr/0034)
       */
      unknown_usd: z.number(),
      by_payer: z.array(
        z.object({
          provider: z.string(),
          model: z.string(),
          role: z.string(),
          usd: z.number(),
          calls: z.number(),
        }),
      ),
    }),
  ),
  /** the budget warnings in the ledger when the run ended */
  budget_warnings: z.array(z.string()),
});
export type RunState = z.infer<typeof RunState>;

export async function writeRunState(file: string, state: RunState): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** Slice i of n (1-based, as `vitest --shard i/n`). */
export type Slice = readonly [index: number, count: number];

export function sliceStateFile(runStateFile: string, slice: Slice): string {
  const runId = basename(runStateFile, '.json');
  return join(dirname(runStateFile), `${runId}.slice-${slice[0]}-of-${slice[1]}.json`);
}

const SLICE_FILE = /^(.+)\.slice-(\d+)-of-(\d+)\.json$/;

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
      keptReplies: sum(estimates.map((e) => e.cells.keptReplies ?? 0)),
    },
    // each slice planned its own batches under what the cap left it: their plans do not add up
    batchPlan: estimates.length === 1 ? (first.batchPlan ?? null) : null,
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
    unknown_usd: sum(states.map((s) => s.spend.unknown_usd)),
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
    subject_failures: unique(states.flatMap((s) => s.subject_failures ?? [])).sort(),
    stopped: states.find((s) => s.stopped !== null)?.stopped ?? null,
    stop_signal: states.find((s) => s.stop_signal)?.stop_signal ?? null,
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
