import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The rge reporter writes reports/<run_id>/summary.md for runs that contain eval cases.
    reporters: ['default', './src/vitest/reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'evals',
          include: ['evals/**/*.eval.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
