/**
 * The unit project's global setup, in Vitest's main process: one temporary folder for the whole test
 * run (`rgeTestDir`, read with `inject`), removed at the end. The fixture worlds the tests share are
 * built in it on first use (test/helpers/fixture-world.ts), so no test builds into fixtures/generated or
 * caches into .cache/rge: `npm test` leaves the working tree as it found it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the test run's temporary folder (the shared fixture worlds live in it) */
    rgeTestDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'rge-test-run-'));
  project.provide('rgeTestDir', dir);
  return () => {
    // RGE_KEEP_TEST_DIR=1 keeps it (to look at a failing test's world)
    if (process.env.RGE_KEEP_TEST_DIR === '1') process.stderr.write(`rge: test folder kept at ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  };
}
