/**
 * What the terminal says of an eval run (issue 53: `npx vitest run evals` printed about 9,600 lines for
 * 1,200 cases, and `rge eval run` said the judges line and the report's path twice), in-process:
 *
 * - `npx vitest run evals`' reporter (src/vitest/evals-reporter.ts), driven as Vitest drives it with
 *   reported cases: a line per file and the failed cases with why, nothing per passed case; with
 *   RGE_VERBOSE=1 every case with its scores, as vitest-evals prints it.
 * - `rge eval run`'s (src/vitest/summary-reporter.ts): one line for the cases, and on a terminal a
 *   progress line kept up to date while they run, cleared before it.
 * - which of them `rge eval run` picks (`--quiet`, `--verbose`, RGE_VERBOSE), and that its rge report
 *   leaves the report's lines to `rge eval run` (src/vitest/reporters.ts).
 */
import { describe, expect, it } from 'vitest';
import type { TestCase, TestModule, TestSpecification } from 'vitest/node';
import { casesOutput } from '../../src/cli/eval.ts';
import type { CliIO } from '../../src/cli/io.ts';
import RgeTerminalReporter, { caseLinesFrom } from '../../src/vitest/evals-reporter.ts';
import { FILE_REPORTERS, RUN_FILE_REPORTERS } from '../../src/vitest/reporters.ts';
import RgeSummaryReporter from '../../src/vitest/summary-reporter.ts';

/** Strips the terminal's colours. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences are what is stripped
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

type State = 'passed' | 'failed' | 'skipped';

/** The vitest-evals metadata a case of rge carries (the subject's run, the panel's scores). */
const evalMeta = (gfs: number) => ({
  harness: {
    name: 'extractive (offline/extractive)',
    run: {
      output: 'Rs 4,512 crore',
      session: { events: [] },
      usage: { inputTokens: 4000, outputTokens: 12 },
    },
  },
  eval: {
    scores: [
      { name: 'numeric correctness', score: 1 },
      { name: 'GFS', score: gfs },
    ],
    avgScore: gfs,
    thresholdFailed: false,
  },
});

/** A file of cases as Vitest's reported-tasks API hands it to a reporter. */
function fakeModule(file: string, states: State[]): { module: TestModule; cases: TestCase[] } {
  const project = { name: 'evals', config: { root: '/repo' } };
  const moduleState = states.includes('failed') ? 'failed' : 'passed';
  const moduleTask = {
    name: file,
    mode: 'run',
    result: { state: moduleState === 'failed' ? 'fail' : 'pass', duration: 40 },
  };
  const module = {
    type: 'module',
    moduleId: `/repo/${file}`,
    task: moduleTask,
    project,
    state: () => moduleState,
    meta: () => ({}),
    errors: () => [],
    diagnostic: () => ({}),
    children: {} as Record<string, unknown>,
  };
  const cases = states.map((state, i) => {
    const name = `grounded-direct › gd-00${i + 1} › run 0`;
    const task = {
      name,
      mode: state === 'skipped' ? 'skip' : 'run',
      result: { state: state === 'passed' ? 'pass' : state === 'failed' ? 'fail' : 'skip', duration: 3 },
    };
    return {
      type: 'test',
      name,
      task,
      module,
      project,
      location: { line: 10 + i, column: 5 },
      options: { mode: task.mode },
      meta: () => (state === 'skipped' ? {} : evalMeta(state === 'failed' ? 0.4 : 1)),
      result: () =>
        state === 'failed'
          ? { state, errors: [{ message: `gd-00${i + 1}: GFS 0.400 < threshold 0.9; answered as expected` }] }
          : { state },
      diagnostic: () => ({ duration: 3 }),
      annotations: () => [],
    };
  });
  module.children = { [Symbol.iterator]: () => cases.values(), allTests: () => cases.values() };
  return { module: module as unknown as TestModule, cases: cases as unknown as TestCase[] };
}

/** Drives the terminal reporter through a run of `files` (not a terminal: no live summary) and returns its lines. */
function terminalLines(caseLines: 'all' | 'failed', files: [string, State[]][]): string[] {
  const out: string[] = [];
  const ctx = {
    config: { root: '/repo', hideSkippedTests: false, slowTestThreshold: 300, silent: false },
    logger: {
      log: (...m: unknown[]) => out.push(m.join(' ')),
      error: (...m: unknown[]) => out.push(m.join(' ')),
      printBanner: () => {},
    },
  };
  const reporter = new RgeTerminalReporter({ caseLines, isTTY: false });
  reporter.onInit(ctx as never);
  reporter.onTestRunStart(files.map(([f]) => ({ moduleId: `/repo/${f}` }) as TestSpecification));
  for (const [file, states] of files) {
    const { module, cases } = fakeModule(file, states);
    for (const c of cases) reporter.onTestCaseResult(c);
    reporter.printTestModule(module);
  }
  return out.map(plain).flatMap((l) => l.split('\n'));
}

describe('npx vitest run evals: what the terminal says of the cases', () => {
  const files: [string, State[]][] = [
    ['evals/grounding-1.eval.ts', ['passed', 'failed', 'passed']],
    ['evals/grounding-2.eval.ts', ['passed', 'passed', 'passed']],
  ];

  it('by default: a line per file and each failed case with why, nothing per passed case', () => {
    const lines = terminalLines('failed', files);
    expect(lines).toEqual([
      expect.stringMatching(
        /^ × {2}evals {2}evals\/grounding-1\.eval\.ts:11:5 > grounded-direct › gd-002 › run 0 \[4012 tok\]/,
      ),
      expect.stringMatching(/^ {3}reason +gd-002: GFS 0\.400 < threshold 0\.9; answered as expected$/),
      ' ×  evals  evals/grounding-1.eval.ts (3 tests | 1 failed) 40ms',
      ' ✓  evals  evals/grounding-2.eval.ts (3 tests) 40ms',
    ]);
  });

  it('with RGE_VERBOSE=1: every case with its scores, as vitest-evals prints it', () => {
    const lines = terminalLines('all', files);
    expect(lines.filter((l) => / › run 0 \[4012 tok\]/.test(l))).toHaveLength(6);
    expect(lines.filter((l) => /^ {3}score +GFS /.test(l))).toHaveLength(5); // the failed one says why instead
    expect(lines.some((l) => /grounding-2\.eval\.ts \(3 tests\)/.test(l))).toBe(false); // vitest-evals: no file lines
  });

  it('reads RGE_VERBOSE', () => {
    expect(caseLinesFrom({})).toBe('failed');
    expect(caseLinesFrom({ RGE_VERBOSE: '1' })).toBe('all');
    expect(caseLinesFrom({ RGE_VERBOSE: 'true' })).toBe('all');
    expect(caseLinesFrom({ RGE_VERBOSE: '0' })).toBe('failed');
  });
});

describe('rge eval run: one line for the cases, with progress on a terminal', () => {
  it('keeps a progress line up to date on the terminal, clears it, then says the stage in one line', () => {
    let clock = 0;
    const progress: string[] = [];
    const out: string[] = [];
    const reporter = new RgeSummaryReporter({
      write: (t) => out.push(t),
      progress: { write: (t) => progress.push(t) },
      total: 6,
      now: () => clock,
    });
    reporter.onTestRunStart();
    const files = [fakeModule('evals/grounding-1.eval.ts', ['passed', 'failed', 'passed'])];
    files.push(fakeModule('evals/grounding-2.eval.ts', ['passed', 'passed', 'passed']));
    for (const { cases } of files)
      for (const c of cases) {
        clock += 150; // a line at most every 200 ms: at the 1st, 3rd and 5th case
        reporter.onTestCaseResult(c);
      }
    clock = 2500;
    reporter.onTestRunEnd(
      files.map((f) => f.module),
      [],
    );
    expect(progress).toEqual([
      '\r\x1b[Kcases: 1 of 6 done, 0 failed',
      '\r\x1b[Kcases: 3 of 6 done, 1 failed',
      '\r\x1b[Kcases: 5 of 6 done, 1 failed',
      '\r\x1b[K',
    ]);
    expect(out).toEqual(['cases: 5 passed, 1 failed in 2 files (2.5 s)\n']);
  });

  it('draws no progress line where there is no terminal (CI, --quiet, a log)', () => {
    const out: string[] = [];
    const reporter = new RgeSummaryReporter({ write: (t) => out.push(t) });
    reporter.onTestRunStart();
    const { module, cases } = fakeModule('evals/grounding-1.eval.ts', ['passed']);
    for (const c of cases) reporter.onTestCaseResult(c);
    reporter.onTestRunEnd([module], []);
    expect(out).toHaveLength(1);
  });
});

describe('rge eval run: which terminal, and each line once', () => {
  const io = (env: Record<string, string> = {}): CliIO => ({
    out: () => {},
    err: () => {},
    cwd: '.',
    exitCode: 0,
    env,
  });

  it('every case with --verbose or RGE_VERBOSE=1; else one line, with progress on a terminal', () => {
    expect(casesOutput({}, 'full', io())).toBe('progress');
    expect(casesOutput({}, 'summary', io())).toBe('summary');
    expect(casesOutput({ quiet: true }, 'quiet', io())).toBe('summary');
    expect(casesOutput({ verbose: true }, 'summary', io())).toBe('cases');
    expect(casesOutput({}, 'full', io({ RGE_VERBOSE: '1' }))).toBe('cases');
    expect(casesOutput({ quiet: true }, 'quiet', io({ RGE_VERBOSE: '1' }))).toBe('summary'); // --quiet wins
    expect(() => casesOutput({ quiet: true, verbose: true }, 'quiet', io())).toThrow(
      '--quiet and --verbose: give one of them',
    );
  });

  it("leaves the report's path and the judges line to rge eval run's last lines", () => {
    expect(FILE_REPORTERS).toContain('./src/vitest/reporter.ts');
    expect(RUN_FILE_REPORTERS).toContainEqual(['./src/vitest/reporter.ts', { say: false }]);
    expect(RUN_FILE_REPORTERS).toContain('./src/vitest/evals-artifact.ts');
  });
});
