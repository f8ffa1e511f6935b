/**
 * One rge run reported from several files, and from several machines:
 *
 * - The run's cases come in four files (slices), which Vitest reports in the order it scheduled them
 *   (by past durations) or, after `--merge-reports`, in the order they started on their machines. The
 *   rge report's statistics (bootstrap intervals, sums) depend on the order of the cases, so at the end
 *   of the run this reporter puts the modules in file order, the same whether the run was sharded or not,
 *   before the reporters after it (the JSON artifact, the rge report) read them.
 * - On `vitest --merge-reports`, each eval file's metadata names the folders of the machine that ran it
 *   (its results folder, hence the run's state file and the cases' rows, and its reports folder).
 *   RGE_RESULTS_DIR and RGE_REPORTS_DIR, when set, say where the merging machine keeps them (the results
 *   folder `rge results merge` joined the shards into, and where the report goes): each file's run is
 *   pointed there at the end of the run, before the reporters after this one read it.
 *
 * It must come before the artifact and rge reporters in the config's list.
 */
import { basename, resolve } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { resultsLayout } from '../store/layout.ts';
import type { RgeRunInfo } from './meta.ts';

/** The run as this machine sees it: its results folder (and the run's state file in it) and reports folder. */
export function relocateRun(
  run: RgeRunInfo,
  env: { RGE_RESULTS_DIR?: string | undefined; RGE_REPORTS_DIR?: string | undefined },
  cwd: string,
): void {
  if (env.RGE_RESULTS_DIR) {
    run.resultsDir = resolve(cwd, env.RGE_RESULTS_DIR);
    run.stateFile = resultsLayout(run.resultsDir).runState(basename(run.stateFile, '.json'));
  }
  if (env.RGE_REPORTS_DIR) run.reportsDir = resolve(cwd, env.RGE_REPORTS_DIR);
}

export default class EvalsMergeReporter implements Reporter {
  private merging = false;
  private root = process.cwd();

  onInit(vitest: Vitest): void {
    this.merging = Boolean(vitest.config.mergeReports);
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (!testModules.some((m) => m.moduleId.endsWith('.eval.ts'))) return;
    if (this.merging)
      for (const module of testModules) {
        const own = module.meta().rgeModule;
        if (own) relocateRun(own.run, process.env, this.root);
      }
    // Vitest hands every reporter the same list; the ones after this one see it in file order.
    (testModules as TestModule[]).sort((a, b) =>
      a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0,
    );
  }
}
