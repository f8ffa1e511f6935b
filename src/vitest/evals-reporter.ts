/**
 * The terminal reporter of `npx vitest run evals` (vitest.config.ts) and of `rge eval run --verbose`.
 *
 * For a run with eval files it says what a run of a thousand cases needs said, by `caseLines`:
 * - 'failed' (the default): Vitest's progress (the live summary at the foot of a terminal; none under CI
 *   or into a log), a line per file as it finishes, every failed case as it fails (its line and why, as
 *   vitest-evals prints it), then the summary. The fixture run says 25 lines (17 warm), where vitest-evals'
 *   block of eight lines per case said 9,600 (issue 53).
 * - 'all' (`RGE_VERBOSE=1`, `rge eval run --verbose`): vitest-evals' reporter, each case with its
 *   harness usage and the panel's scores.
 * A run without eval files (the unit tests) prints as Vitest's default reporter. Another reporter asked
 * for on the command line (`--reporter=verbose`, `--reporter=dot`) replaces this one, as Vitest does.
 */
import type { TestCase, TestModule, TestSpecification } from 'vitest/node';
import { DefaultReporter } from 'vitest/node';
import * as evalsReporter from 'vitest-evals/reporter';

// vitest-evals types its reporter entry as CommonJS (`module.exports.default` is the class) while Node
// loads its ES module (whose default export is the class): take the class from either shape.
type EvalReporterClass = typeof evalsReporter.default.default;
const loaded = evalsReporter.default as unknown as EvalReporterClass | { default: EvalReporterClass };
const DefaultEvalReporter: EvalReporterClass = 'default' in loaded ? loaded.default : loaded;

const isEvalFile = (moduleId: string) => moduleId.endsWith('.eval.ts');

/** Which cases the terminal shows line by line: every one with its scores, or the failed ones. */
export type CaseLines = 'all' | 'failed';

/** `RGE_VERBOSE=1` (or true, yes): every case; otherwise the failed ones. */
export function caseLinesFrom(env: Record<string, string | undefined>): CaseLines {
  return /^(1|true|yes)$/i.test(env.RGE_VERBOSE ?? '') ? 'all' : 'failed';
}

export interface RgeTerminalOptions {
  /** default: from RGE_VERBOSE */
  caseLines?: CaseLines;
}

/** The DefaultReporter's own methods, called on this reporter where vitest-evals' would say too much. */
const base = DefaultReporter.prototype as unknown as {
  printTestModule(this: unknown, module: TestModule): void;
  onTestCaseResult(this: unknown, test: TestCase): void;
};

export default class RgeTerminalReporter extends DefaultEvalReporter {
  private evalsRun = true;
  private readonly caseLines: CaseLines;

  constructor(options: RgeTerminalOptions & ConstructorParameters<EvalReporterClass>[0] = {}) {
    super(options);
    this.caseLines = options.caseLines ?? caseLinesFrom(process.env);
  }

  /** Whether this run prints as Vitest's default reporter: no eval files, or only the failed eval cases. */
  private get brief(): boolean {
    return !this.evalsRun || this.caseLines === 'failed';
  }

  override onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.evalsRun = specifications.some((s) => isEvalFile(s.moduleId));
    if (!this.evalsRun) {
      this.verbose = false;
      this.renderSucceed = false;
    }
    super.onTestRunStart(specifications);
    // on a terminal, Vitest lists every test of a run of one file: not the cases of an eval run
    if (this.evalsRun && this.caseLines === 'failed') this.renderSucceed = false;
  }

  /** The file's line (and, outside an eval run, its failed tests); vitest-evals prints none. */
  override printTestModule(testModule: TestModule): void {
    if (this.brief) base.printTestModule.call(this, testModule);
  }

  /** An eval run's failed cases are printed as they fail, with why: not again under their file. */
  override printTestCase(moduleState: Parameters<DefaultReporter['printTestCase']>[0], test: TestCase): void {
    if (!this.evalsRun) super.printTestCase(moduleState, test);
  }

  override onTestCaseResult(test: TestCase): void {
    if (!this.evalsRun) base.onTestCaseResult.call(this, test);
    else if (this.caseLines === 'all' || test.result().state === 'failed') super.onTestCaseResult(test);
    else base.onTestCaseResult.call(this, test); // the progress only
  }
}
