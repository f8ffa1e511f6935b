import { configDefaults, defineConfig } from 'vitest/config';
import { FILE_REPORTERS, TERMINAL_REPORTER } from './src/vitest/reporters.ts';
import { workerHeapArgs } from './src/vitest/worker-heap.ts';
import SlowFirstSequencer from './test/helpers/sequencer.ts';

/** The integration project's files; every other test file is the unit project's. */
const INTEGRATION = 'test/**/*.integration.test.ts';

export default defineConfig({
  test: {
    // Reporters are the run's, not a project's; each acts only on what concerns it (src/vitest/reporters.ts).
    // Runs without eval cases (the unit tests) write no artifact and no report.
    reporters: [TERMINAL_REPORTER, ...FILE_REPORTERS],
    // Each project's slowest files first, on a fresh clone too (test/helpers/sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      // `npm test`: the tests that run in-process (docs/adr/0013: which test goes where).
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, INTEGRATION],
          // One temporary folder per test run: the shared fixture worlds are built in it on first use
          // (test/helpers/fixture-world.ts), so the tests write nothing into the working tree.
          globalSetup: ['./test/helpers/test-dir-setup.ts'],
          // Two files at a time: Vitest's default on two cores is one.
          maxWorkers: 2,
          // A worker runs its files in one module graph: each file would otherwise import the CLI,
          // the stores and the schemas again (about a minute of CPU over the suite). A test that
          // changes a global (process.env, a write fault) restores it (docs/adr/0013).
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
      // `npm run test:integration`: the tests that start many child processes (kill -9 and resume,
      // runs at once, `rge eval run` and `vitest run evals` as a user starts them), a browser, the docs'
      // shell blocks, the bench smoke test, or read the real filings in ../shared.
      {
        test: {
          name: 'integration',
          include: [INTEGRATION],
          globalSetup: ['./test/helpers/test-dir-setup.ts'],
          // Two files at a time even on two cores: these files spend much of their time waiting on
          // child processes and loopback servers.
          maxWorkers: 2,
          isolate: false,
          testTimeout: 300_000,
          hookTimeout: 1_800_000,
        },
      },
      {
        test: {
          name: 'evals',
          // One run in four files (slices by question) so that `vitest --shard i/n` can share it out.
          include: ['evals/**/*.eval.ts'],
          // A worker runs its slices in one module graph, so they share the run's index and stores
          // (src/vitest/suite.ts) instead of opening them once per file.
          isolate: false,
          // Builds the fixture corpus and index once, before the slices start (a fresh clone).
          globalSetup: ['./src/vitest/evals-setup.ts'],
          // The worker's modules as Vite transformed them, kept on disk (node_modules/.experimental-vitest-cache,
          // keyed by each file's content and the config) for the next run: a warm suite only reads, and
          // transforming rge's sources again for its worker was some 1 s of its CPU (issue 53, ADR 0035).
          experimental: { fsModuleCache: true },
          // A heap limit for the workers, so a long run collects its garbage (src/vitest/worker-heap.ts).
          execArgv: workerHeapArgs(process.env),
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
