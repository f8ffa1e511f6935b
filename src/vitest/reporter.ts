/**
 * The rge reporter: at the end of a run, collects the cases' metadata (Vitest's public reported-tasks
 * API: TestModule.meta() for the run, TestCase.meta() for each case's cell), reads the cases' rows from
 * the results store in one pass (stored-rows.ts) and writes reports/<run_id>/summary.md, summary.json
 * and gfs.svg. Runs without rge cases (the unit tests) write nothing. As cases finish, it shares what
 * their metadata have in common (case-meta.ts), which Vitest holds to the run's end.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import { gfsChartSvg } from '../report/chart-svg.ts';
import { renderMarkdown } from '../report/markdown.ts';
import { whatWasUsedLine } from '../report/sections/what-was-run.ts';
import { summarise } from '../report/summary.ts';
import type { CaseErrorView, RunBudgetView } from '../report/views.ts';
import { resultsFile } from '../store/rows.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { readLabels, readReviews } from '../validation/labels.ts';
import { VALIDATION_MIN_KAPPA } from '../validation/summary.ts';
import { shareCaseMeta } from './case-meta.ts';
import type { RgeCaseMeta, RgeRunInfo } from './meta.ts';
import { Shared } from './shared-values.ts';
import { readRunRows } from './stored-rows.ts';

/** The run state the stages wrote (estimate, spend), if there is one. */
function readRunBudget(file: string): RunBudgetView | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RunBudgetView;
  } catch {
    return null;
  }
}

interface RunCases {
  run: RgeRunInfo;
  cases: RgeCaseMeta[];
  errors: CaseErrorView[];
}

/**
 * The cases of each run among the modules, in files' path order and cases' definition order (the
 * statistics depend on the order: bootstrap clusters in order of first appearance), whatever order
 * Vitest (or a merge of shards) reported them in, so a sharded run and a single one give the same numbers.
 */
export function casesByRun(testModules: ReadonlyArray<TestModule>): Map<string, RunCases> {
  const byRun = new Map<string, RunCases>();
  const modules = [...testModules].sort((a, b) =>
    a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0,
  );
  for (const module of modules) {
    const run = module.meta().rgeModule?.run;
    if (!run) continue;
    let entry = byRun.get(run.runId);
    if (!entry) {
      entry = { run, cases: [], errors: [] };
      byRun.set(run.runId, entry);
    }
    for (const test of module.children.allTests()) {
      const meta = test.meta().rge;
      if (meta) {
        entry.cases.push(meta);
        continue;
      }
      // A case that failed before it had a result (the subject gave no answer, or its cell could not
      // be completed: the cap, an error) is counted and listed in its run's report, never dropped; its
      // metadata say which cell it is and whose failure it was.
      const result = test.result();
      if (result.state !== 'failed') continue;
      const message = result.errors?.[0]?.message ?? 'failed without a result';
      entry.errors.push({ name: test.fullName, message, ...test.meta().rgeFailure });
    }
  }
  return byRun;
}

export interface RgeReporterOptions {
  /**
   * Whether it says what it wrote (the cases, the report's path, what was used). `rge eval run` says
   * the same in its own last lines, so it passes false: each line once.
   */
  say?: boolean;
}

export default class RgeReporter implements Reporter {
  /** what the cases' metadata have in common, for the run (case-meta.ts `shareCaseMeta`) */
  private shared = new Shared();
  private readonly say: boolean;

  constructor(options: RgeReporterOptions = {}) {
    this.say = options.say ?? true;
  }

  /**
   * A finished case's metadata, as it arrived from its worker (a copy of every string and record),
   * with what it has in common with other cases shared again: Vitest holds it until the run ends.
   */
  onTestCaseResult(test: TestCase): void {
    shareCaseMeta(test.meta(), this.shared);
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    this.shared = new Shared();
    for (const [runId, { run, cases, errors }] of casesByRun(testModules)) {
      const state = run.stateFile ? readRunBudget(run.stateFile) : null;
      const validation = run.labelsDir
        ? {
            labels: await readLabels(run.labelsDir),
            reviews: await readReviews(run.labelsDir),
            minKappa: run.minKappa ?? VALIDATION_MIN_KAPPA,
            limitation: run.limitation ?? null,
          }
        : null;
      // the rows from the results store, in one pass; a case whose row is not there is an error, not dropped
      const { rows, missing } = readRunRows(run, cases);
      for (const c of missing)
        errors.push({
          name: `${c.subject_id} › ${c.category} › ${c.question_id} › run ${c.run_index}`,
          message: `its row is not in ${resultsFile(run.resultsDir, c.subject_id, runId)}`,
          subject_id: c.subject_id,
          question_id: c.question_id,
          run_index: c.run_index,
          category: c.category,
          by: 'run',
        });
      const summary = summarise(rows, {
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
      });
      // A filtered run (vitest -t, a shard alone) never overwrites the run's full report.
      const dir = join(run.reportsDir, summary.partial ? `${runId}-partial` : runId);
      await writeFileAtomic(join(dir, 'gfs.svg'), gfsChartSvg(summary));
      await writeFileAtomic(join(dir, 'summary.md'), renderMarkdown(summary, { chartFile: 'gfs.svg' }));
      await writeFileAtomic(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
      const reused = cases.filter((c) => c.reused).length;
      if (!this.say) continue;
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
