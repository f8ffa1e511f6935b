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
  runs?: number;
  resultsDir?: string;
  reportsDir?: string;
  mode?: 'sync' | 'batch';
  overrides?: readonly string[];
  /** the stages already ran in this process: the cases only read the stores */
  stagesDone?: boolean;
}

export interface EvalRunOutcome {
  ok: boolean;
  cases: number;
  reused: number;
  failed: number;
  runId: string | null;
  reportsDir: string | null;
}

export async function runEvalSuite(opts: EvalRunOptions): Promise<EvalRunOutcome> {
  const env: Record<string, string> = { RGE_CONFIG: opts.config };
  if (opts.subjects) env.RGE_SUBJECTS = opts.subjects.join(',');
  if (opts.questions !== undefined) env.RGE_QUESTIONS = String(opts.questions);
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
    for (const module of vitest.state.getTestModules()) {
      for (const test of module.children.allTests()) {
        // a slice with no question of the run holds one skipped placeholder, not a case
        if (test.result().state === 'skipped') continue;
        cases++;
        if (test.result().state === 'failed') failed++;
        const meta = test.meta().rge;
        if (meta) {
          run = meta.run;
          if (meta.reused) reused++;
        }
      }
    }
    const ok = failed === 0 && vitest.state.getUnhandledErrors().length === 0 && cases > 0;
    await vitest.close();
    return { ok, cases, reused, failed, runId: run?.runId ?? null, reportsDir: run?.reportsDir ?? null };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
