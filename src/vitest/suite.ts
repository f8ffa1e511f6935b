/**
 * The eval suite as Vitest cases: one `test` per (subject, question, run index), named
 * `<subject> › <category> › <question id> › run <n>` so a reviewer can find any case. Before the cases,
 * the run's stages fill the cell stores (answers, then verdicts; sync or batch, resumable); each case
 * then reads its cell, puts the result row in the task's metadata, and applies the four matchers with
 * the config's thresholds; a cell without a row fails its case, whose metadata then say which cell it is
 * and whether the subject's own failure (no answer) was why. `rge eval run` runs the stages itself first (with its progress lines) and
 * hands over a request whose stages are `done`, so the cases only read.
 *
 * The run arrives planned (handoff.ts): the request and plan that the front door made, provided by
 * Vitest. A Vitest config without rge's global setup provides none; the suite then reads the request
 * from the RGE_* variables and plans here, once per worker.
 *
 * Each subject is a vitest-evals suite (`describeEval`): the subject is its harness and the subject's
 * cross-family panel its judges (evals-harness.ts), so vitest-evals' reporter, JSON artifact and report
 * UI show every case with its answer, usage and the panel's scores (0-1). The judges record without
 * gating (judgeThreshold null); rge's matchers gate, with the config's thresholds.
 *
 * A suite may be one slice of the run (`slice: [i, n]`, evals-slices.ts): it defines, and runs the stages
 * for, the cells of the questions of slice i of n only, so that `vitest --shard` has files to share out.
 * The run id, and so the report, is the run's whatever the slice.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, expect, inject, type TaskMeta, test } from 'vitest';
import { describeEval } from 'vitest-evals';
import { hasGold } from '../questions/schema.ts';
import { CaseRow, failedBySubject } from '../run/case/case.ts';
import { planFromRequest, type RunPlan, requestFromEnv } from '../run/plan/index.ts';
import { RunSession, type SubjectCell } from '../run/session/index.ts';
import { runStages } from '../run/stages/stages.ts';
import { ResultsStore, type RunHeader, resultsFile } from '../store/rows.ts';
import { combineSliceStates, RunState, type Slice, writeRunState } from '../store/run-state.ts';
import { withFileLock } from '../util/lock.ts';
import { caseFailure, caseMeta, trimEvalMeta } from './case-meta.ts';
import {
  CaseBook,
  caseInput,
  gatingNote,
  headlineGfs,
  panelScorers,
  subjectHarness,
} from './evals-harness.ts';
import { slicePlan, sliceState } from './evals-slices.ts';
import { HANDOFF_KEY, type RgeRunHandoff } from './handoff.ts';
import { installRgeMatchers } from './matchers.ts';
import { Shared } from './shared-values.ts';
import './meta.ts';

export interface SuiteOptions {
  /** the folder the request's relative paths are resolved against (default: the working folder) */
  root?: string;
  /** slice i of n of the run (by question, 1-based); the whole run when absent */
  slice?: Slice;
}

/** The stages of a live batch run can take hours; Vitest's hook timeout must not cut them. */
const STAGES_TIMEOUT_MS = 48 * 3_600_000;

function readState(file: string): RunState | null {
  try {
    return RunState.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The run as handed over by the front door, else planned here from the environment. */
async function handoff(root: string): Promise<RgeRunHandoff> {
  const provided = inject(HANDOFF_KEY);
  if (provided) return provided;
  const request = requestFromEnv(process.env);
  const plan = await planFromRequest(request, { root, log });
  for (const note of plan.notes) log(note);
  return { request, plan, plannedBy: process.pid };
}

/**
 * The run this worker serves, opened once: the slices that one Vitest worker runs (the evals project
 * does not isolate its files) share its index, stores and providers. This is the front door's own
 * state (one worker, one run; a rerun in watch mode with another plan opens that one), not state
 * derived from the run.
 */
let workerRun: { runId: string | null; opening: Promise<WorkerRun> } | null = null;

interface WorkerRun {
  handoff: RgeRunHandoff;
  session: RunSession;
  /** the run's published rows, opened by the worker's first slice and shared by the others (read once) */
  artifacts?: Promise<Artifacts>;
}

function openWorkerRun(root: string): Promise<WorkerRun> {
  const runId = inject(HANDOFF_KEY)?.plan.info.runId ?? null;
  if (workerRun && workerRun.runId === runId) return workerRun.opening;
  const opening = (async () => {
    const run = await handoff(root);
    const calls = run.request.stages === 'run';
    return { handoff: run, session: await RunSession.open(run.plan, { root, log, calls }) };
  })();
  const mine = { runId, opening };
  workerRun = mine;
  opening.catch(() => {
    if (workerRun === mine) workerRun = null;
  });
  return opening;
}

/** The published rows of a run, per subject (`data/results/<subject>_<run_id>.jsonl`), or why one could not open. */
type Artifacts = Map<string, ResultsStore<CaseRow> | Error>;

/**
 * Opens each subject's published rows of the run, under a lock (the slices of a run write the same
 * files); a file that cannot be opened is kept as its error, for the cases of that subject to fail with.
 */
async function openArtifacts(plan: RunPlan): Promise<Artifacts> {
  const { info } = plan;
  const artifacts: Artifacts = new Map();
  for (const subject of plan.subjects) {
    const header: RunHeader = {
      kind: 'run',
      run_id: info.runId,
      subject_id: subject.id,
      seed: plan.config.seed,
      config_hash: info.configHash,
      index_checksum: info.indexChecksum,
      questions_hash: info.questionsHash,
      created_at: new Date().toISOString(),
    };
    const file = resultsFile(info.resultsDir, subject.id, info.runId);
    try {
      artifacts.set(subject.id, await withFileLock(file, () => ResultsStore.open(file, header, CaseRow)));
    } catch (err) {
      artifacts.set(subject.id, err as Error);
    }
  }
  return artifacts;
}

/**
 * The stages of a suite's part of the run (its slice), or, when another process ran them, the run's
 * state; a slice's outcome goes to its own state file, and the run's is combined again from the slices.
 */
async function stagesOf(
  given: RgeRunHandoff,
  part: RunSession,
  cells: readonly SubjectCell[],
  slice: Slice | undefined,
): Promise<RunState | null> {
  const runStateFile = given.plan.info.stateFile;
  if (given.request.stages === 'done') return readState(runStateFile);
  // each slice says its own progress: four identical lines read as one said four times (issue 53)
  const { state } = await runStages(part, {
    log: slice ? (l) => log(`slice ${slice[0]} of ${slice[1]}: ${l}`) : log,
  });
  if (slice) {
    await writeRunState(part.plan.info.stateFile, sliceState(part, cells, state));
    await combineSliceStates(runStateFile, slice[1]);
  }
  return state;
}

/**
 * rge's four matchers on a case's row, with the config's thresholds: those of a gated score only (a
 * matcher of a null threshold passes whatever the score, so it is not called: issue 53, a run of
 * 100,000 ungated cases spent some 10 s in Vitest's expect).
 */
function expectThresholds(row: CaseRow, thresholds: RunPlan['config']['thresholds']): void {
  const gated = { ...row, thresholds };
  // a question with no gold (a logged trace no golden question matched) has no correctness and no GFS to gate
  const gold = row.question === undefined || hasGold(row.question);
  if (gold && thresholds.correctness !== null) expect(gated).toBeCorrect();
  if (thresholds.grounding !== null) expect(gated).toBeGrounded();
  if (thresholds.calibration !== null) expect(gated).toBeCalibrated();
  if (gold && thresholds.gfs !== null) expect(gated).toMeetExpectedBehavior();
}

/**
 * A case that failed without a row says which cell it is and whether its subject gave no answer (the
 * report scores a subject's own failure 0 and lists every other one under Errors).
 */
function noteFailure(task: { meta: TaskMeta }, cell: SubjectCell, run: RunSession, state: RunState | null) {
  if (!task.meta.rge) task.meta.rgeFailure = caseFailure(cell, failedBySubject(run, cell, state));
}

export async function defineGroundingSuite(opts: SuiteOptions = {}): Promise<RunSession> {
  installRgeMatchers();
  const worker = await openWorkerRun(opts.root ?? process.cwd());
  const { handoff: given, session: run } = worker;
  const plan = run.plan;
  const info = plan.info;
  const slice = opts.slice;
  // A slice's part of the run: its questions, and its own state file for its stages. The run's info
  // (run id, folders, the combined state file the report reads) is what every case carries.
  const part = slice ? run.narrowed(slicePlan(plan, slice)) : run;
  const cells = await part.work.cells();
  let state: RunState | null = null;
  const book = new CaseBook(part, cells, () => state);
  let artifacts: Artifacts = new Map();
  beforeAll(async () => {
    state = await stagesOf(given, part, cells, slice);
    worker.artifacts ??= openArtifacts(plan);
    artifacts = await worker.artifacts;
  }, STAGES_TIMEOUT_MS);
  const artifactOf = (subjectId: string): ResultsStore<CaseRow> => {
    const store = artifacts.get(subjectId);
    if (!store) throw new Error(`the results file of ${subjectId} is not open (the stages did not finish)`);
    if (store instanceof Error) throw store;
    return store;
  };
  const gating = gatingNote(plan.config.thresholds);
  const wasReused = (subject: RunPlan['subjects'][number], row: CaseRow): boolean => {
    const startedAt = (state as RunState | null)?.started_at ?? '';
    const reused = part.answers(subject).get(row.answer_key)?.created_at;
    return reused !== undefined && reused < startedAt;
  };
  let casesRun = 0;
  // what the file's cases' metadata have in common, one instance each (case-meta.ts)
  const shared = new Shared();

  if (cells.length === 0 && slice)
    test.skip(`slice ${slice[0]} of ${slice[1]}: no question of this run falls in it`, () => {});
  for (const subject of plan.subjects) {
    const own = cells.filter((c) => c.subject.id === subject.id);
    if (own.length === 0) continue;
    describeEval(
      subject.id,
      {
        harness: subjectHarness(part, subject, book),
        judges: panelScorers(part, subject, book),
        judgeThreshold: null,
      },
      (it) => {
        for (const cell of own)
          it(`${cell.question.category} › ${cell.question.id} › run ${cell.runIndex}`, async ({
            run: answer,
            task,
          }) => {
            task.file.meta.rgeModule ??= { run: info, gating, plannedBy: given.plannedBy };
            try {
              // The harness reads the stored answer; the panel's judges read the stored verdicts.
              await answer(caseInput(cell));
              headlineGfs(task);
              const row = book.row(cell.id);
              artifactOf(subject.id).put(row);
              task.meta.rge = caseMeta(row, wasReused(subject, row));
              expectThresholds(row, plan.config.thresholds);
            } catch (err) {
              noteFailure(task, cell, part, state as RunState | null);
              throw err;
            } finally {
              // the case is the row's last reader: a long run holds no row past its case
              book.release(cell.id);
              trimEvalMeta(task, ++casesRun, info, shared);
            }
          });
      },
    );
  }
  return run;
}
