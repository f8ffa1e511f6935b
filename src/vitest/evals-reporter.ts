/**
 * The terminal reporter: vitest-evals' reporter (each case with its harness usage and the panel's
 * scores) when the run has eval cases, Vitest's default reporter otherwise, so the unit tests print
 * as they always have. vitest-evals' reporter is Vitest's verbose reporter with eval lines; for a run
 * without eval files this one turns the verbose parts off and defers to Vitest's default behaviour,
 * the way vitest-evals' own reporter does for the cases it does not render.
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

export default class RgeTerminalReporter extends DefaultEvalReporter {
  private evalsRun = true;

  override onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.evalsRun = specifications.some((s) => isEvalFile(s.moduleId));
    if (!this.evalsRun) {
      this.verbose = false;
      this.renderSucceed = false;
    }
    super.onTestRunStart(specifications);
  }

  override printTestModule(testModule: TestModule): void {
    if (!this.evalsRun)
      (DefaultReporter.prototype as unknown as RgeTerminalReporter).printTestModule.call(this, testModule);
  }

  override onTestCaseResult(test: TestCase): void {
    if (this.evalsRun) super.onTestCaseResult(test);
    else DefaultReporter.prototype.onTestCaseResult.call(this, test);
  }
}
