/**
 * The eval suite as Vitest cases: one `test` per (subject, question, run index), named
 * `<subject> › <category> › <question id> › run <n>` so a reviewer can find any case. Before the cases,
 * the run's stages fill the cell stores (answers, then verdicts; sync or batch, resumable); each case
 * then reads its cell, puts the result row in the task's metadata, and applies the four matchers with
 * the config's thresholds. `rge eval run` runs the stages itself first (with its progress lines) and sets
 * RGE_STAGES=done, so the cases only read.
 *
 * The config comes from RGE_CONFIG (default configs/fixture.yaml). RGE_SUBJECTS (comma-separated ids),
 * RGE_QUESTIONS (a number: the first N questions) and RGE_RUNS narrow a run, for quick looks and
 * benchmarks; they change the run id (the report's name), never which stored cells are reused.
 * RGE_MODE (sync|batch) and RGE_SET (a JSON array of `path=value` config overrides) are what
 * `rge eval run --mode` and `--set` pass on.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { CaseRow, caseRow } from '../run/case.ts';
import type { RunMode } from '../run/config.ts';
import { type PreparedRun, prepareRun } from '../run/prepare.ts';
import { ResultsStore, type RunHeader, resultsFile } from '../run/results.ts';
import { RunState, runStages } from '../run/stages.ts';
import { subjectCells } from '../run/work.ts';
import { installRgeMatchers } from './matchers.ts';
import './meta.ts';

export interface SuiteOptions {
  config?: string;
  root?: string;
}

/** The stages of a live batch run can take hours; Vitest's hook timeout must not cut them. */
const STAGES_TIMEOUT_MS = 48 * 3_600_000;

function narrowing(): {
  subjects?: string[];
  questions?: number;
  runs?: number;
  mode?: RunMode;
  overrides?: string[];
} {
  const env = process.env;
  return {
    ...(env.RGE_SUBJECTS ? { subjects: env.RGE_SUBJECTS.split(',').map((s) => s.trim()) } : {}),
    ...(env.RGE_QUESTIONS ? { questions: Number(env.RGE_QUESTIONS) } : {}),
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

export async function defineGroundingSuite(opts: SuiteOptions = {}): Promise<PreparedRun> {
  installRgeMatchers();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const run = await prepareRun({
    config: opts.config ?? process.env.RGE_CONFIG ?? 'configs/fixture.yaml',
    root: opts.root ?? process.cwd(),
    ...(process.env.RGE_RESULTS_DIR ? { resultsDir: process.env.RGE_RESULTS_DIR } : {}),
    ...(process.env.RGE_REPORTS_DIR ? { reportsDir: process.env.RGE_REPORTS_DIR } : {}),
    log,
    ...narrowing(),
  });
  const cells = await subjectCells(run);
  let state: RunState | null = null;
  beforeAll(async () => {
    state =
      process.env.RGE_STAGES === 'done'
        ? readState(run.info.stateFile)
        : (await runStages(run, { log })).state;
  }, STAGES_TIMEOUT_MS);

  // The run's rows, joined, as the published artifact: data/results/<subject>_<run_id>.jsonl.
  const artifacts = new Map<string, ResultsStore<CaseRow>>();
  const artifactOf = (subjectId: string): ResultsStore<CaseRow> => {
    let store = artifacts.get(subjectId);
    if (!store) {
      const header: RunHeader = {
        kind: 'run',
        run_id: run.info.runId,
        subject_id: subjectId,
        seed: run.config.seed,
        config_hash: run.info.configHash,
        index_checksum: run.info.indexChecksum,
        questions_hash: run.info.questionsHash,
        created_at: new Date().toISOString(),
      };
      store = ResultsStore.open(resultsFile(run.info.resultsDir, subjectId, run.info.runId), header, CaseRow);
      artifacts.set(subjectId, store);
    }
    return store;
  };

  for (const subject of run.subjects) {
    describe(subject.id, () => {
      for (const cell of cells.filter((c) => c.subject === subject)) {
        test(`${cell.question.category} › ${cell.question.id} › run ${cell.runIndex}`, ({ task }) => {
          const row = caseRow(run, cell, state);
          artifactOf(subject.id).put(row);
          const startedAt = (state as RunState | null)?.started_at ?? '';
          const answer = row.answer_key;
          const reused = run.cells
            .answers(subject.config.provider, subject.config.model)
            .get(answer)?.created_at;
          task.meta.rge = { run: run.info, row, reused: reused !== undefined && reused < startedAt };
          const gated = { ...row, thresholds: run.config.thresholds };
          expect(gated).toBeCorrect();
          expect(gated).toBeGrounded();
          expect(gated).toBeCalibrated();
          expect(gated).toMeetExpectedBehavior();
        });
      }
    });
  }
  return run;
}
