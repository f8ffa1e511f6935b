/**
 * vitest-evals' JSON artifact for an rge run: Vitest's JSON report (the format vitest-evals' report UI,
 * `vitest-evals serve`, and its GitHub Action read), written beside the run's rge report as
 * `reports/<run_id>/vitest-evals.json` (or `<run_id>-partial/` for a partial run, as the rge report). The
 * cases carry vitest-evals' metadata (`eval`: the panel's scores; `harness`: the subject's run; past the
 * first cases of each file, trimmed to the answer and scores, case-meta.ts); rge's own (`rge`,
 * `rgeModule`) stays out of it, it is in the results store and the rge report. A run without rge cases
 * (the unit tests) writes nothing.
 *
 * The report is written as it is read, a case at a time, in the fields and order of Vitest's own
 * JsonReporter (test/vitest/ui-artifact.test.ts), so a run of a hundred thousand cases never holds
 * its artifact as one string (issue 41).
 *
 * A case's status is Vitest's. An ungated run (every threshold null) passes every case it scored, as
 * vitest-evals passes a case whose judges have threshold null ("recorded without a failure threshold",
 * `thresholdFailed: false`): in its report UI the cases are passed with their recorded scores, and each
 * case's GFS row says "recorded, not gated" with the gold answer and quotes (evals-harness.ts gfsScore),
 * so no gate is claimed. (Issue 39 had marked them `disabled`, which the UI shows as DISABLED and counts
 * "0 passed, 0 failed, 1200 skipped", as if nothing ran: issue 53.)
 */
import { closeSync, copyFileSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TaskMeta } from 'vitest';
import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';

export const EVALS_ARTIFACT = 'vitest-evals.json';

/** The folders an artifact goes to: the report folder of each rge run among the cases. */
function reportFolders(testModules: ReadonlyArray<TestModule>): string[] {
  const runs = new Map<string, { run: NonNullable<TaskMeta['rgeModule']>['run']; cases: number }>();
  for (const module of testModules) {
    const run = module.meta().rgeModule?.run;
    if (!run) continue;
    const entry = runs.get(run.runId) ?? { run, cases: 0 };
    // a case counts once it started, with a row or failed without one, as in the rge report
    for (const test of module.children.allTests()) if (test.result().state !== 'skipped') entry.cases++;
    runs.set(run.runId, entry);
  }
  return [...runs.values()].map(({ run, cases }) => {
    const partial = run.cells !== undefined && cases < run.cells;
    return join(run.reportsDir, partial ? `${run.runId}-partial` : run.runId);
  });
}

/** Vitest's JSON status of a case, as its JsonReporter maps the runner's states. */
function statusOf(test: TestCase): string {
  const state = test.result().state;
  if (state === 'passed' || state === 'failed' || state === 'pending') return state;
  return test.options.mode === 'todo' ? 'todo' : 'skipped';
}

function ancestorTitles(test: TestCase): string[] {
  const titles: string[] = [];
  for (let p: TestSuite | TestModule = test.parent; p.type === 'suite'; p = p.parent) titles.unshift(p.name);
  return titles;
}

/** Vitest's metadata of a case without rge's own (kept in the results store). */
function evalsMeta(meta: TaskMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) if (key !== 'rge' && key !== 'rgeModule') out[key] = value;
  return out;
}

/** One case as Vitest's JSON report lists it (its `assertionResults` entry). */
function assertion(test: TestCase): string {
  const titles = ancestorTitles(test);
  return JSON.stringify({
    ancestorTitles: titles,
    fullName: test.name ? [...titles, test.name].join(' ') : titles.join(' '),
    status: statusOf(test),
    title: test.name,
    duration: test.diagnostic()?.duration,
    failureMessages: (test.result().errors ?? []).map((e) => e.stack || e.message),
    location: test.location,
    meta: evalsMeta(test.meta()),
    tags: test.tags ?? [],
  });
}

interface Counts {
  suites: number;
  failedSuites: number;
  pendingSuites: number;
  tests: number;
  passed: number;
  failed: number;
  pending: number;
  todo: number;
}

function countSuites(testModules: ReadonlyArray<TestModule>, c: Counts): void {
  for (const module of testModules) {
    const states: string[] = [module.state(), ...[...module.children.allSuites()].map((s) => s.state())];
    for (const state of states) {
      c.suites++;
      if (state === 'failed') c.failedSuites++;
      else if (state === 'pending' || state === 'queued') c.pendingSuites++;
    }
  }
}

/** The cases' totals, by their statuses. */
function countTests(testModules: ReadonlyArray<TestModule>, c: Counts): void {
  for (const module of testModules)
    for (const test of module.children.allTests()) {
      const status = statusOf(test);
      c.tests++;
      if (status === 'passed') c.passed++;
      else if (status === 'failed') c.failed++;
      else if (status === 'todo') c.todo++;
      else c.pending++;
    }
}

/** One file's entry of `testResults`, its cases written one at a time through `put`. */
function writeModule(module: TestModule, start: number, put: (text: string) => void): void {
  const tests = [...module.children.allTests()];
  put('{"assertionResults":[');
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const [t, test] of tests.entries()) {
    put(`${t > 0 ? ',' : ''}${assertion(test)}`);
    const d = test.diagnostic();
    if (d) {
      first = Math.min(first, d.startTime);
      last = Math.max(last, d.startTime + d.duration);
    }
  }
  const startTime = first === Number.POSITIVE_INFINITY ? start : first;
  const failed = module.state() === 'failed' || tests.some((t) => t.result().state === 'failed');
  const tail = {
    startTime,
    endTime: Math.max(last, startTime),
    status: failed ? 'failed' : 'passed',
    message: module.errors()[0]?.message ?? '',
    name: module.moduleId,
  };
  put(`],${JSON.stringify(tail).slice(1)}`);
}

/** Writes the report into `file` (through a temporary file, renamed at the end), a case at a time. */
export function writeArtifact(
  file: string,
  testModules: ReadonlyArray<TestModule>,
  vitest: Vitest,
  start: number,
): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  let pending = '';
  const put = (text: string) => {
    pending += text;
    if (pending.length < 1 << 20) return;
    writeSync(fd, pending);
    pending = '';
  };
  try {
    const c: Counts = {
      suites: 0,
      failedSuites: 0,
      pendingSuites: 0,
      tests: 0,
      passed: 0,
      failed: 0,
      pending: 0,
      todo: 0,
    };
    countSuites(testModules, c);
    countTests(testModules, c);
    const success = testModules.length > 0 && c.failedSuites === 0 && c.failed === 0;
    const head = JSON.stringify(totals(c, vitest, start, success));
    put(`${head.slice(0, -1)},"testResults":[`);
    for (const [m, module] of testModules.entries()) {
      if (m > 0) put(',');
      writeModule(module, start, put);
    }
    put(']}');
    writeSync(fd, pending);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function totals(c: Counts, vitest: Vitest, start: number, success: boolean) {
  return {
    numTotalTestSuites: c.suites,
    numPassedTestSuites: c.suites - c.failedSuites - c.pendingSuites,
    numFailedTestSuites: c.failedSuites,
    numPendingTestSuites: c.pendingSuites,
    numTotalTests: c.tests,
    numPassedTests: c.passed,
    numFailedTests: c.failed,
    numPendingTests: c.pending,
    numTodoTests: c.todo,
    snapshot: vitest.snapshot.summary,
    startTime: start,
    success,
  };
}

export default class EvalsArtifactReporter implements Reporter {
  private vitest: Vitest | null = null;
  private start = 0;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.start = Date.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const folders = reportFolders(testModules);
    const [first, ...others] = folders.map((f) => join(f, EVALS_ARTIFACT));
    if (!first || !this.vitest) return;
    writeArtifact(first, testModules, this.vitest, this.start);
    for (const other of others) {
      mkdirSync(dirname(other), { recursive: true });
      copyFileSync(first, other);
    }
    for (const file of [first, ...others])
      process.stdout.write(
        `vitest-evals: JSON artifact written to ${file} (view it: npx vitest-evals serve ${file})\n`,
      );
  }
}
