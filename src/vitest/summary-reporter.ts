/**
 * The terminal reporter of `rge eval run` (unless `--verbose`): one line for the whole Vitest stage
 * (cases passed, failed and skipped, files, time) instead of a block per case (vitest-evals' reporter
 * prints a case and its seven scores: about 9,600 lines for the fixture run). On a terminal (`progress`)
 * it keeps one line up to date while the cases run, `cases: 340 of 1200 done, 0 failed`, cleared before
 * the stage's line. What goes wrong is never hidden: a file that could not be collected, an error
 * outside any case, and what the cases write to stderr are printed in full; the failed cases themselves
 * are listed by `rge eval run` after the stage (cli/eval.ts), the first 20 and a count.
 * `npx vitest run evals` has its own terminal reporter (evals-reporter.ts).
 */
import type { UserConsoleLog } from 'vitest';
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';

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

/** How often the progress line is drawn again, at most. */
const PROGRESS_EVERY_MS = 200;

export interface SummaryReporterOptions {
  /** where the stage's line goes (default stdout) */
  write?: (text: string) => void;
  /** a terminal to keep a progress line on while the cases run (none: no progress line) */
  progress?: { write: (text: string) => unknown } | null;
  /** the cases the run has (its cells), for the progress line; else counted as files are collected */
  total?: number;
  /** the clock, in milliseconds (tests inject one) */
  now?: () => number;
}

export default class RgeSummaryReporter implements Reporter {
  private started = 0;
  private total = 0;
  private readonly planned: number | undefined;
  private done = 0;
  private failed = 0;
  private drawnAt = Number.NEGATIVE_INFINITY;
  private drawn = false;
  private readonly write: (text: string) => void;
  private readonly progress: { write: (text: string) => unknown } | null;
  private readonly now: () => number;

  constructor(options: SummaryReporterOptions = {}) {
    this.write = options.write ?? ((t) => process.stdout.write(t));
    this.progress = options.progress ?? null;
    this.now = options.now ?? Date.now;
    this.planned = options.total;
  }

  onTestRunStart(): void {
    this.started = this.now();
  }

  /** The cases of a file, once collected: what the progress line counts towards. */
  onTestModuleCollected(module: TestModule): void {
    for (const test of module.children.allTests()) if (test.options.mode !== 'skip') this.total++;
  }

  onTestCaseResult(test: TestCase): void {
    const state = test.result().state;
    if (state === 'skipped') return; // a slice's placeholder
    this.done++;
    if (state === 'failed') this.failed++;
    if (this.progress && this.now() - this.drawnAt >= PROGRESS_EVERY_MS) this.draw();
  }

  private draw(): void {
    this.drawnAt = this.now();
    this.drawn = true;
    const total = this.planned ?? this.total;
    this.progress?.write(`\r\x1b[Kcases: ${this.done} of ${total} done, ${this.failed} failed`);
  }

  /** What the cases write to stderr (warnings) is printed; what they write to stdout is not. */
  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.type !== 'stderr') return;
    if (this.drawn) this.progress?.write('\r\x1b[K');
    process.stderr.write(log.content.endsWith('\n') ? log.content : `${log.content}\n`);
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    if (this.drawn) this.progress?.write('\r\x1b[K');
    const c = counts(testModules);
    const seconds = ((this.now() - this.started) / 1000).toFixed(1);
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
