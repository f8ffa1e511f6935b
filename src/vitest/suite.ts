/**
 * The eval suite as Vitest cases: one `test` per (subject, question, run index), named
 * `<subject> › <category> › <question id> › run <n>` so a reviewer can find any case. Each case runs
 * the pipeline (or reuses the stored cell), puts the result row in the task's metadata, and applies
 * the four matchers with the config's thresholds.
 *
 * The config comes from RGE_CONFIG (default configs/fixture.yaml). RGE_SUBJECTS (comma-separated ids),
 * RGE_QUESTIONS (a number: the first N questions) and RGE_RUNS narrow a run, for quick looks and
 * benchmarks; they change the run id, so their results never mix with a full run's.
 */
import { describe, expect, test } from 'vitest';
import { type PreparedRun, prepareRun, runCase } from '../run/case.ts';
import { installRgeMatchers } from './matchers.ts';
import './meta.ts';

export interface SuiteOptions {
  config?: string;
  root?: string;
}

function narrowing(): { subjects?: string[]; questions?: number; runs?: number } {
  const env = process.env;
  return {
    ...(env.RGE_SUBJECTS ? { subjects: env.RGE_SUBJECTS.split(',').map((s) => s.trim()) } : {}),
    ...(env.RGE_QUESTIONS ? { questions: Number(env.RGE_QUESTIONS) } : {}),
    ...(env.RGE_RUNS ? { runs: Number(env.RGE_RUNS) } : {}),
  };
}

export async function defineGroundingSuite(opts: SuiteOptions = {}): Promise<PreparedRun> {
  installRgeMatchers();
  const run = await prepareRun({
    config: opts.config ?? process.env.RGE_CONFIG ?? 'configs/fixture.yaml',
    root: opts.root ?? process.cwd(),
    ...(process.env.RGE_RESULTS_DIR ? { resultsDir: process.env.RGE_RESULTS_DIR } : {}),
    ...(process.env.RGE_REPORTS_DIR ? { reportsDir: process.env.RGE_REPORTS_DIR } : {}),
    ...narrowing(),
  });
  for (const subject of run.subjects) {
    describe(subject.id, () => {
      for (const question of run.questions) {
        for (let runIndex = 0; runIndex < run.runs; runIndex++) {
          test(`${question.category} › ${question.id} › run ${runIndex}`, async ({ task }) => {
            const { row, reused } = await runCase(run, subject, question, runIndex);
            task.meta.rge = { run: run.info, row, reused };
            const gated = { ...row, thresholds: run.config.thresholds };
            expect(gated).toBeCorrect();
            expect(gated).toBeGrounded();
            expect(gated).toBeCalibrated();
            expect(gated).toMeetExpectedBehavior();
          });
        }
      }
    });
  }
  return run;
}
