import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The eval suite is built in a later issue; until then `vitest run evals` has nothing to run.
    passWithNoTests: true,
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
