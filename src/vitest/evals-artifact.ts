/**
 * vitest-evals' JSON artifact for an rge run: Vitest's JSON report (the format vitest-evals' report UI,
 * `vitest-evals serve`, and its GitHub Action read), written beside the run's rge report as
 * `reports/<run_id>/vitest-evals.json` (or `<run_id>-partial/` for a partial run, as the rge report). The
 * cases carry vitest-evals' metadata (`eval`: the panel's scores; `harness`: the subject's run); rge's
 * own row (`rge`) stays out of it, it is in the results store and the rge report. A run without rge
 * cases (the unit tests) writes nothing.
 *
 * An ungated run (every threshold null) passes every case, and vitest-evals' report UI would head it
 * "100% pass rate", with a case at GFS 0.4 marked PASSED. Its UI (0.16.1) reckons the pass rate from the
 * cases' statuses alone, passed over passed and failed, with the words "pass rate" fixed; so in the
 * artifact a passed case that no threshold gates is `disabled` (the gate, not the case): the UI says
 * "n/a" for the pass rate, counts the cases apart from passed and failed, and each case's GFS row says
 * "recorded, not gated" with the gold answer and quotes (evals-harness.ts gfsScore). A gated run's
 * statuses are Vitest's. Vitest's own outcome (exit code, `rge eval run`) is untouched: this is the view.
 */
import { join } from 'node:path';
import type { TestModule } from 'vitest/node';
import { JsonReporter } from 'vitest/node';
import { writeFileAtomic } from '../util/fs.ts';
import type { RgeRunInfo } from './meta.ts';

export const EVALS_ARTIFACT = 'vitest-evals.json';

/** The parts of Vitest's JSON report this reporter changes. */
interface VitestJson {
  numPassedTests: number;
  numPendingTests: number;
  testResults: { assertionResults: { status: string; meta?: { eval?: { scores?: GfsRecord[] } } }[] }[];
}
interface GfsRecord {
  name?: string;
  metadata?: { gated?: boolean };
}

/**
 * The report with each passed case whose GFS record says no threshold gates it (`gated: false`) marked
 * `disabled`, and the totals to match: vitest-evals counts it neither passed nor failed.
 */
export function recordedNotGated(report: VitestJson): VitestJson {
  let recorded = 0;
  for (const file of report.testResults)
    for (const a of file.assertionResults) {
      const gfs = a.meta?.eval?.scores?.find((s) => s.name === 'GFS');
      if (a.status !== 'passed' || gfs?.metadata?.gated !== false) continue;
      a.status = 'disabled';
      recorded++;
    }
  report.numPassedTests -= recorded;
  report.numPendingTests += recorded;
  return report;
}

/** The folders an artifact goes to: the report folder of each rge run among the cases. */
function reportFolders(testModules: ReadonlyArray<TestModule>): string[] {
  const runs = new Map<string, { run: RgeRunInfo & { cells?: number }; cases: number }>();
  for (const module of testModules)
    for (const test of module.children.allTests()) {
      // a case counts once it started (rgeRun), with a row or failed without one, as in the rge report
      const run = test.meta().rge?.run ?? test.meta().rgeRun;
      if (!run) continue;
      const entry = runs.get(run.runId) ?? { run, cases: 0 };
      entry.cases++;
      runs.set(run.runId, entry);
    }
  return [...runs.values()].map(({ run, cases }) => {
    const partial = run.cells !== undefined && cases < run.cells;
    return join(run.reportsDir, partial ? `${run.runId}-partial` : run.runId);
  });
}

export default class EvalsArtifactReporter extends JsonReporter {
  private folders: string[] = [];

  constructor(options: { filterMeta?: (key: string, value: unknown) => unknown } = {}) {
    super({ filterMeta: (key) => key !== 'rge' && key !== 'rgeRun', ...options });
  }

  override async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    this.folders = reportFolders(testModules);
    if (this.folders.length === 0) return;
    await super.onTestRunEnd(testModules);
  }

  override async writeReport(text: string): Promise<void> {
    const report = recordedNotGated(JSON.parse(text) as VitestJson);
    for (const folder of this.folders) {
      const file = join(folder, EVALS_ARTIFACT);
      await writeFileAtomic(file, JSON.stringify(report));
      process.stdout.write(
        `vitest-evals: JSON artifact written to ${file} (view it: npx vitest-evals serve ${file})\n`,
      );
    }
  }
}
