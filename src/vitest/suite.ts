/**
 * The eval suite as Vitest cases: one `test` per (subject, question, run index), named
 * `<subject> › <category> › <question id> › run <n>` so a reviewer can find any case. Before the cases,
 * the run's stages fill the cell stores (answers, then verdicts; sync or batch, resumable); each case
 * then reads its cell, puts the result row in the task's metadata, and applies the four matchers with
 * the config's thresholds. `rge eval run` runs the stages itself first (with its progress lines) and sets
 * RGE_STAGES=done, so the cases only read.
 *
 * Each subject is a vitest-evals suite (`describeEval`): the subject is its harness and the subject's
 * cross-family panel its judges (evals-harness.ts), so vitest-evals' reporter, JSON artifact and report
 * UI show every case with its answer, usage and the panel's scores (0-1). The judges record without
 * gating (judgeThreshold null); rge's matchers gate, with the config's thresholds.
 *
 * A suite may be one slice of the run (`slice: [i, n]`, evals-slices.ts): it defines, and runs the stages
 * for, the cells of the questions of slice i of n only, so that `vitest --shard` has files to share out.
 * The run id, and so the report, is the run's whatever the slice.
 *
 * The config comes from RGE_CONFIG (default configs/fixture.yaml). RGE_SUBJECTS (comma-separated ids),
 * RGE_QUESTIONS (a number: the first N questions), RGE_SAMPLE (a number: a seeded sample of N questions
 * stratified by category), RGE_CASES (comma-separated question ids, as
 * `rge eval run --case`) and RGE_RUNS narrow a run, for quick looks and
 * benchmarks; they change the run id (the report's name), never which stored cells are reused.
 * RGE_MODE (sync|batch) and RGE_SET (a JSON array of `path=value` config overrides) are what
 * `rge eval run --mode` and `--set` pass on.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, expect, test } from 'vitest';
import { describeEval } from 'vitest-evals';
import { CaseRow } from '../run/case.ts';
import type { RunMode } from '../run/config.ts';
import { type PreparedRun, type PrepareOptions, prepareRun } from '../run/prepare.ts';
import { ResultsStore, type RunHeader, resultsFile } from '../run/results.ts';
import { RunState, runStages, writeRunState } from '../run/stages.ts';
import { subjectCells } from '../run/work.ts';
import { withFileLock } from '../util/lock.ts';
import {
  CaseBook,
  caseInput,
  gatingNote,
  headlineGfs,
  panelScorers,
  subjectHarness,
} from './evals-harness.ts';
import {
  combineSliceStates,
  type Slice,
  sliceQuestions,
  sliceState,
  sliceStateFile,
} from './evals-slices.ts';
import { installRgeMatchers } from './matchers.ts';
import './meta.ts';

export interface SuiteOptions {
  config?: string;
  root?: string;
  /** slice i of n of the run (by question, 1-based); the whole run when absent */
  slice?: Slice;
}

/** The stages of a live batch run can take hours; Vitest's hook timeout must not cut them. */
const STAGES_TIMEOUT_MS = 48 * 3_600_000;

function narrowing(): {
  subjects?: string[];
  questions?: number;
  sample?: number;
  questionIds?: string[];
  runs?: number;
  mode?: RunMode;
  overrides?: string[];
} {
  const env = process.env;
  return {
    ...(env.RGE_SUBJECTS ? { subjects: env.RGE_SUBJECTS.split(',').map((s) => s.trim()) } : {}),
    ...(env.RGE_QUESTIONS ? { questions: Number(env.RGE_QUESTIONS) } : {}),
    ...(env.RGE_SAMPLE ? { sample: Number(env.RGE_SAMPLE) } : {}),
    ...(env.RGE_CASES ? { questionIds: env.RGE_CASES.split(',').map((s) => s.trim()) } : {}),
    ...(env.RGE_RUNS ? { runs: Number(env.RGE_RUNS) } : {}),
    ...(env.RGE_MODE === 'sync' || env.RGE_MODE === 'batch' ? { mode: env.RGE_MODE } : {}),
    ...(env.RGE_SET ? { overrides: JSON.parse(env.RGE_SET) as string[] } : {}),
  };
}

function readState(file: string): RunState | null {
  try {
    return RunState.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The prepared runs of this worker, by what was asked: the slices of a run that one Vitest worker runs
 * (the evals project does not isolate its files) share one index, embedder and set of stores.
 */
const prepared = new Map<string, Promise<PreparedRun>>();

function prepare(opts: PrepareOptions): Promise<PreparedRun> {
  const key = JSON.stringify({ ...opts, log: undefined });
  let run = prepared.get(key);
  if (!run) {
    run = prepareRun(opts);
    prepared.set(key, run);
    run.catch(() => prepared.delete(key));
  }
  return run;
}

export async function defineGroundingSuite(opts: SuiteOptions = {}): Promise<PreparedRun> {
  installRgeMatchers();
  const run = await prepare({
    config: opts.config ?? process.env.RGE_CONFIG ?? 'configs/fixture.yaml',
    root: opts.root ?? process.cwd(),
    ...(process.env.RGE_RESULTS_DIR ? { resultsDir: process.env.RGE_RESULTS_DIR } : {}),
    ...(process.env.RGE_REPORTS_DIR ? { reportsDir: process.env.RGE_REPORTS_DIR } : {}),
    log,
    ...narrowing(),
  });
  const slice = opts.slice;
  // A slice's part of the run: its questions, and its own state file for its stages. The run's info
  // (run id, folders, the combined state file the report reads) is what every case carries.
  const part: PreparedRun = slice
    ? {
        ...run,
        questions: sliceQuestions(run.questions, slice),
        info: { ...run.info, stateFile: sliceStateFile(run.info.stateFile, slice) },
      }
    : run;
  const cells = await subjectCells(part);
  let state: RunState | null = null;
  const book = new CaseBook(part, cells, () => state);
  // The run's rows, joined, as the published artifact: data/results/<subject>_<run_id>.jsonl (opened
  // under a lock: the slices of a run write the same files).
  const artifacts = new Map<string, ResultsStore<CaseRow> | Error>();
  beforeAll(async () => {
    if (process.env.RGE_STAGES === 'done') state = readState(run.info.stateFile);
    else {
      const outcome = await runStages(part, { log });
      state = outcome.state;
      if (slice) {
        await writeRunState(part.info.stateFile, sliceState(part, cells, outcome.state));
        await combineSliceStates(run.info.stateFile, slice[1]);
      }
    }
    for (const subject of part.subjects) {
      const header: RunHeader = {
        kind: 'run',
        run_id: run.info.runId,
        subject_id: subject.id,
        seed: run.config.seed,
        config_hash: run.info.configHash,
        index_checksum: run.info.indexChecksum,
        questions_hash: run.info.questionsHash,
        created_at: new Date().toISOString(),
      };
      const file = resultsFile(run.info.resultsDir, subject.id, run.info.runId);
      try {
        artifacts.set(subject.id, await withFileLock(file, () => ResultsStore.open(file, header, CaseRow)));
      } catch (err) {
        artifacts.set(subject.id, err as Error);
      }
    }
  }, STAGES_TIMEOUT_MS);
  const artifactOf = (subjectId: string): ResultsStore<CaseRow> => {
    const store = artifacts.get(subjectId);
    if (!store) throw new Error(`the results file of ${subjectId} is not open (the stages did not finish)`);
    if (store instanceof Error) throw store;
    return store;
  };

  if (cells.length === 0 && slice)
    test.skip(`slice ${slice[0]} of ${slice[1]}: no question of this run falls in it`, () => {});
  for (const subject of part.subjects) {
    const own = cells.filter((c) => c.subject === subject);
    if (own.length === 0) continue;
    describeEval(
      subject.id,
      {
        harness: subjectHarness(part, subject, book),
        judges: panelScorers(part, subject, book),
        judgeThreshold: null,
      },
      (it) => {
        for (const cell of own) {
          it(`${cell.question.category} › ${cell.question.id} › run ${cell.runIndex}`, async ({
            run: answer,
            task,
          }) => {
            task.meta.rgeRun = run.info;
            // The harness reads the stored answer; the panel's judges read the stored verdicts.
            await answer(caseInput(cell));
            headlineGfs(task);
            const row = book.row(cell.id);
            artifactOf(subject.id).put(row);
            const startedAt = (state as RunState | null)?.started_at ?? '';
            const reused = part.cells
              .answers(subject.config.provider, subject.config.model)
              .get(row.answer_key)?.created_at;
            task.meta.rge = {
              run: run.info,
              row,
              reused: reused !== undefined && reused < startedAt,
              gating: gatingNote(run.config.thresholds),
            };
            const gated = { ...row, thresholds: run.config.thresholds };
            expect(gated).toBeCorrect();
            expect(gated).toBeGrounded();
            expect(gated).toBeCalibrated();
            expect(gated).toMeetExpectedBehavior();
          });
        }
      },
    );
  }
  return run;
}
