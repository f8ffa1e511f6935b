/**
 * The rge reporter: at the end of a run, collects the cases' metadata (Vitest's public reported-tasks
 * API: TestModule.children.allTests(), TestCase.meta()) and writes reports/<run_id>/summary.md,
 * summary.json and gfs.svg. Runs without rge cases (the unit tests) write nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { gfsChartSvg, renderMarkdown, whatWasUsedLine } from '../report/markdown.ts';
import { summarise } from '../report/summary.ts';
import type { RunBudgetView } from '../report/views.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { readLabels, readReviews } from '../validation/labels.ts';
import { VALIDATION_MIN_KAPPA } from '../validation/summary.ts';
import type { RgeCaseMeta, RgeRunInfo } from './meta.ts';

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
    const byRun = new Map<
      string,
      { run: RgeRunInfo; cases: RgeCaseMeta[]; errors: { name: string; message: string }[] }
    >();
    const entry = (run: RgeRunInfo) => {
      let e = byRun.get(run.runId);
      if (!e) {
        e = { run, cases: [], errors: [] };
        byRun.set(run.runId, e);
      }
      return e;
    };
    // The statistics depend on the order of the cases (bootstrap clusters in order of first appearance):
    // files in path order and cases in definition order, whatever order Vitest (or a merge of shards)
    // reported them in, so a sharded run and a single one give the same numbers.
    const modules = [...testModules].sort((a, b) =>
      a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0,
    );
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const meta = test.meta().rge;
        if (meta) {
          entry(meta.run).cases.push(meta);
          continue;
        }
        // A case that failed before it had a result (its cell could not be completed: the cap, an
        // error) is counted and listed in its run's report, never dropped.
        const run = test.meta().rgeRun;
        const result = test.result();
        if (!run || result.state !== 'failed') continue;
        const message = result.errors?.[0]?.message ?? 'failed without a result';
        entry(run).errors.push({ name: test.fullName, message });
      }
    }
    for (const [runId, { run, cases, errors }] of byRun) {
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
          ...(run.gfsWeights ? { gfsWeights: run.gfsWeights } : {}),
          describe: run.describe ?? null,
          ...(run.cells === undefined ? {} : { cells: run.cells }),
          errors,
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
          `${errors.length > 0 ? `, ${errors.length} failed without a result (listed under Errors)` : ''}` +
          `${summary.partial ? `, a partial report (${summary.partial.cases} of ${summary.partial.cells} cases)` : ''}` +
          `, report written to ${join(dir, 'summary.md')}\n` +
          (run.describe ? `rge: ${whatWasUsedLine(run.describe)}\n` : ''),
      );
    }
  }
}
