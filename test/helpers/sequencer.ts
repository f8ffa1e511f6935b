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

/**
 * The slowest files of each project on a 2-core machine, slowest first (the per-file times of
 * test/helpers/file-times-reporter.ts, docs/measurements.md); a file's rank only matters within its project.
 */
export const SLOW_FILES = [
  // the integration project's: the real filings' recall (cold: extraction and use-lite embeddings of 22
  // filings) is its critical path, then the docs' shell blocks
  'test/ingest/financebench-recall.integration.test.ts',
  'test/docs/shell-blocks.integration.test.ts',
  'test/validation/summary-publish.integration.test.ts',
  'test/docs/rag-app-guide.integration.test.ts',
  'test/bench/quick.integration.test.ts',
  'test/cli/eval-live.integration.test.ts',
  'test/examples/rag-app-eval.integration.test.ts',
  'test/ci/shard-merge.integration.test.ts',
  'test/cli/gate-planted.integration.test.ts',
  'test/run/stop-signals.integration.test.ts',
  'test/run/crash-batch.integration.test.ts',
  // the unit project's
  'test/run/batch-unknown.test.ts',
  'test/judging/heuristic/world-quotes.test.ts',
  'test/gate/power-simulation.test.ts',
  'test/gate/plan.test.ts',
  'test/retrieval/use-lite-batch.test.ts',
  'test/subject/baselines.test.ts',
  'test/run/fixture-refusals.test.ts',
  'test/run/live-loopback.test.ts',
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
