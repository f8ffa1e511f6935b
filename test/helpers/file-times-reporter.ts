/**
 * A Vitest reporter that prints each project's slowest test files once the run ends: the time from the
 * file's start to its end (collection, hooks and tests, as `TestModule.diagnostic()` gives them), the
 * ten slowest of each project. docs/measurements.md's lists come from it:
 * `npx vitest run --project unit --reporter=default --reporter=./test/helpers/file-times-reporter.ts`.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** How many files each project lists (`RGE_SLOWEST` overrides). */
const COUNT = Number(process.env.RGE_SLOWEST ?? 10);

/** The seconds a file took: its collection, set-up and run. */
export function fileSeconds(m: TestModule): number {
  const d = m.diagnostic();
  return (d.prepareDuration + d.collectDuration + d.setupDuration + d.duration) / 1000;
}

export default class FileTimesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const byProject = new Map<string, TestModule[]>();
    for (const m of modules) {
      const name = m.project.name || 'default';
      byProject.set(name, [...(byProject.get(name) ?? []), m]);
    }
    for (const [name, list] of byProject) {
      const timed = list
        .map((m) => ({ file: m.relativeModuleId, s: fileSeconds(m) }))
        .sort((a, b) => b.s - a.s);
      const total = timed.reduce((sum, t) => sum + t.s, 0);
      console.log(
        `\n${name}: ${timed.length} files, ${total.toFixed(0)} s of file time; the ${COUNT} slowest:`,
      );
      for (const t of timed.slice(0, COUNT)) console.log(`  ${t.s.toFixed(1).padStart(6)} s  ${t.file}`);
    }
  }
}
