/**
 * Runs the eval suite through Vitest's Node API (the same cases, matchers and reporter as
 * `npx vitest run evals`), narrowing it through the environment the suite reads.
 */
import { startVitest } from 'vitest/node';
import type { RgeCaseMeta } from './meta.ts';

export interface EvalRunOptions {
  root: string;
  config: string;
  subjects?: readonly string[];
  questions?: number;
  sample?: number;
  /** only these question ids (`--case`) */
  questionIds?: readonly string[];
  runs?: number;
  resultsDir?: string;
  reportsDir?: string;
  mode?: 'sync' | 'batch';
  overrides?: readonly string[];
  /** the stages already ran in this process: the cases only read the stores */
  stagesDone?: boolean;
}

/** One case as `rge eval run --json` writes it: its name, verdict, why it failed, and its scores. */
export interface EvalCaseResult {
  name: string;
  subject: string | null;
  question_id: string | null;
  run_index: number | null;
  category: string | null;
  state: 'passed' | 'failed';
  /** the failed matchers' (or the error's) messages */
  failures: string[];
  scores: {
    correctness: number | null;
    grounding: number | null;
    calibration: number | null;
    gfs: number | null;
  } | null;
}

export interface EvalRunOutcome {
  ok: boolean;
  cases: number;
  reused: number;
  failed: number;
  runId: string | null;
  reportsDir: string | null;
  results: EvalCaseResult[];
  /** errors outside any case (a reporter, a hook) */
  unhandledErrors: number;
}

export async function runEvalSuite(opts: EvalRunOptions): Promise<EvalRunOutcome> {
  const env: Record<string, string> = { RGE_CONFIG: opts.config };
  if (opts.subjects) env.RGE_SUBJECTS = opts.subjects.join(',');
  if (opts.questions !== undefined) env.RGE_QUESTIONS = String(opts.questions);
  if (opts.sample !== undefined) env.RGE_SAMPLE = String(opts.sample);
  if (opts.questionIds && opts.questionIds.length > 0) env.RGE_CASES = opts.questionIds.join(',');
  if (opts.runs !== undefined) env.RGE_RUNS = String(opts.runs);
  if (opts.resultsDir) env.RGE_RESULTS_DIR = opts.resultsDir;
  if (opts.reportsDir) env.RGE_REPORTS_DIR = opts.reportsDir;
  if (opts.mode) env.RGE_MODE = opts.mode;
  if (opts.overrides && opts.overrides.length > 0) env.RGE_SET = JSON.stringify(opts.overrides);
  if (opts.stagesDone) env.RGE_STAGES = 'done';
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const vitest = await startVitest('test', ['evals/'], {
      run: true,
      watch: false,
      project: ['evals'],
      root: opts.root,
    });
    let cases = 0;
    let reused = 0;
    let failed = 0;
    let run: RgeCaseMeta['run'] | null = null;
    const results: EvalCaseResult[] = [];
    const modules = [...vitest.state.getTestModules()].sort((a, b) => (a.moduleId < b.moduleId ? -1 : 1));
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        // a slice with no question of the run holds one skipped placeholder, not a case
        if (test.result().state === 'skipped') continue;
        cases++;
        const result = test.result();
        if (result.state === 'failed') failed++;
        const meta = test.meta().rge;
        if (meta) {
          run = meta.run;
          if (meta.reused) reused++;
        }
        const row = meta?.row;
        results.push({
          name: test.fullName,
          subject: row?.subject_id ?? null,
          question_id: row?.question_id ?? null,
          run_index: row?.run_index ?? null,
          category: row?.category ?? null,
          state: result.state === 'failed' ? 'failed' : 'passed',
          failures: result.state === 'failed' ? (result.errors ?? []).map((e) => e.message) : [],
          scores: row
            ? {
                correctness: row.scores.correctness,
                grounding: row.scores.grounding,
                calibration: row.scores.calibration,
                gfs: row.scores.gfsPrimary,
              }
            : null,
        });
      }
    }
    const unhandledErrors = vitest.state.getUnhandledErrors().length;
    const ok = failed === 0 && unhandledErrors === 0 && cases > 0;
    await vitest.close();
    return {
      ok,
      cases,
      reused,
      failed,
      runId: run?.runId ?? null,
      reportsDir: run?.reportsDir ?? null,
      results,
      unhandledErrors,
    };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
