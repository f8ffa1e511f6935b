/**
 * The run's Vitest reporters, one list for vitest.config.ts and `rge eval run` (run.ts), so the two
 * cannot drift: the terminal reporter, then the ones that write files (each acts only on what concerns
 * it; a run without eval cases writes nothing):
 * - the terminal: for runs with eval files a line per file and the failed cases (every case with its
 *   scores with RGE_VERBOSE=1), Vitest's default reporter otherwise (evals-reporter.ts);
 * - on `--merge-reports`, the cases' run folders become this machine's (RGE_RESULTS_DIR, RGE_REPORTS_DIR);
 * - vitest-evals' JSON artifact, reports/<run_id>/vitest-evals.json (`npx vitest-evals serve` reads it);
 * - the rge report, reports/<run_id>/summary.md.
 * Paths are relative to the repository root (the folder Vitest runs in).
 */
export const TERMINAL_REPORTER = './src/vitest/evals-reporter.ts';

export const FILE_REPORTERS = [
  './src/vitest/evals-merge.ts',
  './src/vitest/evals-artifact.ts',
  './src/vitest/reporter.ts',
] as const;

/**
 * The same for `rge eval run`, which says the cases, the report's path and what was used in its own
 * last lines: the rge report is written without saying so again (each line once; issue 53).
 */
export const RUN_FILE_REPORTERS: (string | [string, Record<string, unknown>])[] = [
  './src/vitest/evals-merge.ts',
  './src/vitest/evals-artifact.ts',
  ['./src/vitest/reporter.ts', { say: false }],
];
