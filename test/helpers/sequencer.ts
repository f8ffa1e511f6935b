/**
 * The unit project's file order. Vitest runs the files that took longest last time first (its results
 * cache, under node_modules/.vite), so no long file starts last and leaves one worker idle while the
 * other finishes it. A fresh clone has no cache: Vitest would then start the largest files first,
 * and the long ones here are short files that spawn children (a crash test is 77 lines), so they
 * would start last and add a minute or two to `npm test`. Without a cached result for every file,
 * the files listed here (measured slowest, docs/adr/0013) start first, in this order.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The slowest unit files on a 2-core machine, slowest first (`npm test`'s per-file times). */
export const SLOW_FILES = [
  'test/docs/shell-blocks.test.ts',
  'test/bench/quick.integration.test.ts',
  'test/run/crash-batch.integration.test.ts',
  'test/cli/gate-planted.integration.test.ts',
  'test/run/crash-sync.integration.test.ts',
  'test/cli/eval-live.integration.test.ts',
  'test/run/concurrent-sync.integration.test.ts',
  'test/run/concurrent-batch.integration.test.ts',
  'test/fixtures/world.test.ts',
  'test/ci/shard-merge.integration.test.ts',
  'test/validation/summary.test.ts',
  'test/validation/sample.test.ts',
  'test/cli/startup.test.ts',
  'test/vitest/report-ui.integration.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const path = (f: TestSpecification) => relative(root, f.moduleId).split('\\').join('/');
    const cached = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${path(f)}`) !== undefined;
    if (sorted.every(cached)) return sorted;
    const rank = (f: TestSpecification) => {
      const i = SLOW_FILES.indexOf(path(f));
      return i < 0 ? SLOW_FILES.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
