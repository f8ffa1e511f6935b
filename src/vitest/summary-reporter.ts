/**
 * The terminal reporter of `rge eval run --quiet`, and of `rge eval run` under CI or into a log that is
 * not a terminal: one line for the whole Vitest stage (cases passed, failed and skipped, files, time)
 * instead of a block per case (vitest-evals' reporter prints a case and its seven scores: about 9,600
 * lines for the fixture run). What goes wrong is never hidden: a file that could not be collected, an
 * error outside any case, and what the cases write to stderr are printed in full; the failed cases
 * themselves are listed by `rge eval run` after the stage (cli/eval.ts), the first 20 and a count.
 * `npx vitest run evals` keeps vitest-evals' reporter (vitest.config.ts).
 */
import type { UserConsoleLog } from 'vitest';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** "1200 passed, 0 failed" and the rest, from the cases' states. */
function counts(testModules: ReadonlyArray<TestModule>): { passed: number; failed: number; skipped: number } {
  const c = { passed: 0, failed: 0, skipped: 0 };
  for (const module of testModules)
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') c.passed++;
      else if (state === 'failed') c.failed++;
      else c.skipped++;
    }
  return c;
}

const errorText = (e: SerializedError) => (e.stack ?? `${e.name ?? 'Error'}: ${e.message}`).trimEnd();

export default class RgeSummaryReporter implements Reporter {
  private started = 0;

  constructor(private readonly write: (text: string) => void = (t) => process.stdout.write(t)) {}

  onTestRunStart(): void {
    this.started = Date.now();
  }

  /** What the cases write to stderr (warnings) is printed; what they write to stdout is not. */
  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.type === 'stderr')
      process.stderr.write(log.content.endsWith('\n') ? log.content : `${log.content}\n`);
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    const c = counts(testModules);
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    // a slice with no question of the run holds one skipped placeholder: it is not a case
    this.write(
      `cases: ${c.passed} passed, ${c.failed} failed${c.skipped > 0 ? `, ${c.skipped} skipped` : ''} ` +
        `in ${testModules.length} files (${seconds} s)\n`,
    );
    for (const module of testModules)
      for (const e of module.errors())
        process.stderr.write(`error in ${module.relativeModuleId}: ${errorText(e)}\n`);
    for (const e of unhandledErrors) process.stderr.write(`unhandled error: ${errorText(e)}\n`);
  }
}
