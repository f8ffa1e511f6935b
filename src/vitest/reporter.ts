/**
 * The rge reporter: at the end of a run, collects the cases' metadata (Vitest's public reported-tasks
 * API: TestModule.children.allTests(), TestCase.meta()) and writes reports/<run_id>/summary.md,
 * summary.json and gfs.svg. Runs without rge cases (the unit tests) write nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { gfsChartSvg, renderMarkdown } from '../report/markdown.ts';
import { type RunBudgetView, summarise } from '../report/summary.ts';
import { VALIDATION_MIN_KAPPA } from '../report/validation.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { readLabels, readReviews } from '../validation/labels.ts';
import type { RgeCaseMeta } from './meta.ts';

/** The run state the stages wrote (estimate, spend), if there is one. */
function readRunBudget(file: string): RunBudgetView | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RunBudgetView;
  } catch {
    return null;
  }
}

export default class RgeReporter implements Reporter {
  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const byRun = new Map<string, RgeCaseMeta[]>();
    const errorsByRun = new Map<string, { name: string; message: string }[]>();
    // The statistics depend on the order of the cases (bootstrap clusters in order of first appearance):
    // files in path order and cases in definition order, whatever order Vitest (or a merge of shards)
    // reported them in, so a sharded run and a single one give the same numbers.
    const modules = [...testModules].sort((a, b) =>
      a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0,
    );
    for (const module of modules) {
      const tests = [...module.children.allTests()];
      // A case that failed before it had a result carries no metadata: it belongs to its module's run.
      const moduleRun = tests.map((t) => t.meta().rge?.run.runId).find((id) => id !== undefined);
      for (const test of tests) {
        const meta = test.meta().rge;
        if (meta) {
          byRun.set(meta.run.runId, [...(byRun.get(meta.run.runId) ?? []), meta]);
          continue;
        }
        const result = test.result();
        if (moduleRun === undefined || result.state !== 'failed') continue;
        const message = result.errors?.[0]?.message ?? 'failed without a result';
        errorsByRun.set(moduleRun, [...(errorsByRun.get(moduleRun) ?? []), { name: test.fullName, message }]);
      }
    }
    for (const [runId, cases] of byRun) {
      const run = (cases[0] as RgeCaseMeta).run;
      const state = run.stateFile ? readRunBudget(run.stateFile) : null;
      const validation = run.labelsDir
        ? {
            labels: await readLabels(run.labelsDir),
            reviews: await readReviews(run.labelsDir),
            minKappa: run.minKappa ?? VALIDATION_MIN_KAPPA,
            limitation: run.limitation ?? null,
          }
        : null;
      const summary = summarise(
        cases.map((c) => c.row),
        {
          seed: run.seed,
          run: {
            runId,
            configHash: run.configHash,
            indexChecksum: run.indexChecksum,
            questionsHash: run.questionsHash,
          },
          budget: state,
          validation,
          describe: run.describe ?? null,
          ...(run.cells === undefined ? {} : { cells: run.cells }),
          errors: errorsByRun.get(runId) ?? [],
        },
      );
      // A filtered run (vitest -t, a shard alone) never overwrites the run's full report.
      const dir = join(run.reportsDir, summary.partial ? `${runId}-partial` : runId);
      await writeFileAtomic(join(dir, 'gfs.svg'), gfsChartSvg(summary));
      await writeFileAtomic(join(dir, 'summary.md'), renderMarkdown(summary, { chartFile: 'gfs.svg' }));
      await writeFileAtomic(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
      const reused = cases.filter((c) => c.reused).length;
      process.stdout.write(
        `\nrge: ${cases.length} cases (${reused} reused from the results store)` +
          `${summary.partial ? `, a partial report (${summary.partial.cases} of ${summary.partial.cells} cases)` : ''}` +
          `, report written to ${join(dir, 'summary.md')}\n`,
      );
    }
  }
}
