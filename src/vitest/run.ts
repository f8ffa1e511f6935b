/**
 * Runs the eval suite through Vitest's Node API (the same cases, matchers and reporter as
 * `npx vitest run evals`), handing over the run's request and plan as one value (handoff.ts): the eval
 * files neither read the environment nor plan again.
 */
import { startVitest } from 'vitest/node';
import { HANDOFF_KEY, type RgeRunHandoff } from './handoff.ts';
import type { RgeCaseFailure, RgeCaseMeta, RgeRunInfo } from './meta.ts';
import { RUN_FILE_REPORTERS, TERMINAL_REPORTER } from './reporters.ts';
import RgeSummaryReporter from './summary-reporter.ts';

export interface EvalRunOptions {
  root: string;
  /** the run, planned; its request's `stages: 'done'` says the cases only read the stores */
  handoff: RgeRunHandoff;
  /**
   * What the terminal shows of the cases: 'summary' (default) one line for them all (summary-reporter.ts);
   * 'progress' the same, with a line kept up to date on stderr while they run (a terminal); 'cases'
   * every case with its scores, as `RGE_VERBOSE=1 npx vitest run evals` (evals-reporter.ts). The reports
   * and the vitest-evals artifact are written either way; the caller says the report's path.
   */
  terminal?: 'cases' | 'summary' | 'progress';
}

/** The reporters of `rge eval run`: the terminal's, then the files' (the rge report saying nothing). */
function runReporters(terminal: EvalRunOptions['terminal'], cells: number) {
  const onTerminal: RgeSummaryReporter | [string, Record<string, unknown>] =
    terminal === 'cases'
      ? [TERMINAL_REPORTER, { caseLines: 'all' }]
      : new RgeSummaryReporter({
          progress: terminal === 'progress' && process.stderr.isTTY ? process.stderr : null,
          total: cells,
        });
  return [onTerminal, ...RUN_FILE_REPORTERS];
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
  /**
   * a case that failed without a result: true when its subject gave no answer (its own failure, which
   * the report scores 0), false when it could not be completed for another reason; absent otherwise
   */
  no_answer?: boolean;
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
  /** the processes that planned the cases' run, as the cases recorded it (one run, one plan: one pid) */
  plannedBy: number[];
}

export async function runEvalSuite(opts: EvalRunOptions): Promise<EvalRunOutcome> {
  const vitest = await startVitest('test', ['evals/'], {
    run: true,
    watch: false,
    project: ['evals'],
    root: opts.root,
    provide: { [HANDOFF_KEY]: opts.handoff },
    reporters: runReporters(opts.terminal, opts.handoff.plan.info.cells),
  });
  let cases = 0;
  let reused = 0;
  let failed = 0;
  let run: RgeRunInfo | null = null;
  const plannedBy = new Set<number>();
  const results: EvalCaseResult[] = [];
  const modules = [...vitest.state.getTestModules()].sort((a, b) => (a.moduleId < b.moduleId ? -1 : 1));
  for (const module of modules) {
    const own = module.meta().rgeModule;
    if (own) {
      run = own.run;
      plannedBy.add(own.plannedBy);
    }
    for (const test of module.children.allTests()) {
      // a slice with no question of the run holds one skipped placeholder, not a case
      if (test.result().state === 'skipped') continue;
      cases++;
      const result = test.result();
      if (result.state === 'failed') failed++;
      const meta = test.meta().rge;
      if (meta?.reused) reused++;
      results.push(caseResult(test.fullName, result, meta ?? test.meta().rgeFailure));
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
    plannedBy: [...plannedBy],
  };
}

/**
 * One case as `--json` lists it: its cell from its row's metadata, or, for a case that failed without a
 * row, from its failure record (its scores then null, and `no_answer` true when the subject gave none).
 */
export function caseResult(
  name: string,
  result: { state: string; errors?: readonly { message: string }[] | undefined },
  meta: RgeCaseMeta | RgeCaseFailure | undefined,
): EvalCaseResult {
  const scored = meta !== undefined && 'scores' in meta ? meta : undefined;
  return {
    name,
    subject: meta?.subject_id ?? null,
    question_id: meta?.question_id ?? null,
    run_index: meta?.run_index ?? null,
    category: meta?.category ?? null,
    state: result.state === 'failed' ? 'failed' : 'passed',
    failures: result.state === 'failed' ? (result.errors ?? []).map((e) => e.message) : [],
    scores: scored ? { ...scored.scores } : null,
    ...(meta !== undefined && 'by' in meta ? { no_answer: meta.by === 'subject' } : {}),
  };
}
