/**
 * `rge gate` (is the current run's GFS worse than the baseline's beyond noise?) and `rge baseline update`
 * (promote a full report to the baseline). Exit codes: 0 pass, 1 regression, 2 usage error (a missing or
 * malformed file, runs with nothing in common).
 */
import { existsSync } from 'node:fs';
import { appendFile, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { GateSummary } from '../gate/gate.ts';
import { UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { type CliIO, existingPath } from './io.ts';

/** DEFAULT_MIN_EFFECT of src/gate/gate.ts, kept here so that `--help` loads no statistics (test/cli/startup.test.ts) */
const DEFAULT_MIN_EFFECT = 0.02;

/** The newest full report's summary.json under `reportsDir` (partial reports are never picked). */
export async function latestFullSummary(reportsDir: string): Promise<string> {
  const { readGateSummary } = await import('../gate/gate.ts');
  const entries = await readdir(reportsDir, { withFileTypes: true }).catch(() => []);
  const found: { file: string; mtime: number }[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || e.name.endsWith('-partial')) continue;
    const file = join(reportsDir, e.name, 'summary.json');
    const s = await stat(file).catch(() => null);
    if (s) found.push({ file, mtime: s.mtimeMs });
  }
  found.sort((a, b) => b.mtime - a.mtime);
  for (const { file } of found) {
    const summary = await readGateSummary(file).catch(() => null);
    if (summary && !summary.partial) return file;
  }
  throw new UsageError(
    `no full report under ${reportsDir}: run \`rge eval run\` first, or name one with --current`,
  );
}

function minEffect(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MIN_EFFECT;
  const x = Number(value);
  if (!Number.isFinite(x) || x < 0 || x >= 1)
    throw new UsageError(`--min-effect must be a number in [0, 1), got "${value}"`);
  return x;
}

function refusePartial(summary: GateSummary, file: string, role: string): void {
  if (summary.partial)
    throw new UsageError(
      `${file}: a partial report (${summary.partial.cases} of ${summary.partial.cells} cells) cannot be the ${role}`,
    );
}

export function registerGateCommands(program: Command, io: CliIO): void {
  registerGate(program, io);
  registerBaselineUpdate(program, io);
}

function registerGate(program: Command, io: CliIO): void {
  program
    .command('gate')
    .description(
      "fail (exit 1) when a subject's GFS fell beyond noise against the baseline: paired sign-flip test over questions, its interval wholly below 0 and a drop above --min-effect, overall or in a category (with --pass-all, also pass^k)",
    )
    .requiredOption(
      '--baseline <file>',
      'the baseline summary (rge baseline update writes reports/baseline.json)',
    )
    .option('--current <file>', "the current run's summary.json (default: the newest full report)")
    .option('--reports-dir <dir>', 'where to look for the newest report', 'reports')
    .option(
      '--min-effect <x>',
      'the smallest GFS drop that counts as a regression',
      String(DEFAULT_MIN_EFFECT),
    )
    .option('--json <file>', 'also write the verdicts as JSON')
    .option(
      '--pass-all',
      "also fail when the share of questions whose runs all pass (pass^k) fell: more questions lost than gained, McNemar's exact p below the level, a drop above --min-effect",
    )
    .option(
      '--allow-different-config',
      "compare runs of different configs or question sets (judges, rubric, index, retrieval, runs, subjects' models, GFS weights); refused otherwise (exit 2)",
    )
    .action(
      async (flags: {
        baseline: string;
        current?: string;
        reportsDir: string;
        minEffect?: string;
        json?: string;
        allowDifferentConfig?: boolean;
        passAll?: boolean;
      }) => {
        const { compareRuns, gateMarkdown, readGateSummary, refuseDifferentConfig } = await import(
          '../gate/gate.ts'
        );
        const effect = minEffect(flags.minEffect);
        // a path that is not there is a usage error naming its flag (exit 2), never read as a verdict
        const baselineFile = existingPath(io.cwd, '--baseline', flags.baseline, 'file');
        const currentFile = flags.current
          ? existingPath(io.cwd, '--current', flags.current, 'file')
          : await latestFullSummary(resolve(io.cwd, flags.reportsDir));
        const [baseline, current] = [await readGateSummary(baselineFile), await readGateSummary(currentFile)];
        refusePartial(baseline, baselineFile, 'baseline');
        refusePartial(current, currentFile, 'current run');
        if (!flags.allowDifferentConfig)
          refuseDifferentConfig(baseline, current, {
            baseline: relative(io.cwd, baselineFile),
            current: relative(io.cwd, currentFile),
          });
        const result = compareRuns(baseline, current, {
          minEffect: effect,
          allowDifferentConfig: flags.allowDifferentConfig === true,
          passAll: flags.passAll === true,
          files: { baseline: relative(io.cwd, baselineFile), current: relative(io.cwd, currentFile) },
        });
        const markdown = gateMarkdown(result);
        io.out(markdown);
        const stepSummary = (io.env ?? process.env).GITHUB_STEP_SUMMARY;
        if (stepSummary) await appendFile(stepSummary, `${markdown}\n`);
        if (flags.json)
          await writeFileAtomic(
            resolve(io.cwd, flags.json),
            `${JSON.stringify({ baselineFile, currentFile, ...result }, null, 2)}\n`,
          );
        if (!result.passed) io.exitCode = 1;
      },
    );
}

function registerBaselineUpdate(program: Command, io: CliIO): void {
  program
    .command('baseline')
    .description('the baseline the gate compares against')
    .command('update')
    .description('promote a full report (default: the newest) to the baseline file')
    .option('--from <file>', 'the summary.json to promote, or a run id under --reports-dir')
    .option('--to <file>', 'the baseline file', 'reports/baseline.json')
    .option('--reports-dir <dir>', 'reports folder', 'reports')
    .option(
      '--force',
      'replace a baseline of another config or question set (refused otherwise: the gate would refuse the pair)',
    )
    .action(async (flags: { from?: string; to: string; reportsDir: string; force?: boolean }) => {
      const { readGateSummary } = await import('../gate/gate.ts');
      const reportsDir = resolve(io.cwd, flags.reportsDir);
      const from = flags.from
        ? promotedFile(io.cwd, flags.from, reportsDir)
        : await latestFullSummary(reportsDir);
      const summary = await readGateSummary(from);
      refusePartial(summary, from, 'baseline');
      const to = resolve(io.cwd, flags.to);
      const replaces = await replacedBaseline(to, summary, flags.force === true, io.cwd);
      // the summary as written (every field, not only what the gate reads), marked as promoted
      const promoted = {
        ...(JSON.parse(await readFile(from, 'utf8')) as Record<string, unknown>),
        baseline: { promotedAt: new Date().toISOString(), from: relative(io.cwd, from) },
      };
      await writeFileAtomic(to, `${JSON.stringify(promoted, null, 2)}\n`);
      const subjects = [...new Set(summary.diagnostics.cells.map((c) => c.subject))].sort();
      io.out(
        `baseline ${relative(io.cwd, to)} <- ${summary.run.runId} (${summary.diagnostics.cells.length} cells; subjects ${subjects.join(', ')})\n`,
      );
      if (replaces) io.out(`${replaces}\n`);
    });
}

/**
 * The summary `rge baseline update --from` names: a summary.json, or a run id under the reports folder.
 * Either must be there: else a usage error naming --from and what was looked for.
 */
function promotedFile(cwd: string, from: string, reportsDir: string): string {
  if (from.endsWith('.json')) return existingPath(cwd, '--from', from, 'file');
  const file = join(reportsDir, from, 'summary.json');
  if (!existsSync(file))
    throw new UsageError(
      `--from ${from}: no report of that run id (no ${relative(cwd, file) || file}); give a run id under --reports-dir or a summary.json`,
    );
  return file;
}

/**
 * What promoting `summary` to `to` replaces, in words (null: no baseline there yet). A baseline of another
 * config or question set (src/gate/basis.ts) is replaced only with `force`: otherwise a UsageError says
 * which run of which config would be replaced by which.
 */
async function replacedBaseline(
  to: string,
  summary: GateSummary,
  force: boolean,
  cwd: string,
): Promise<string | null> {
  const { readGateSummary } = await import('../gate/gate.ts');
  const { configDifferences, configLabel } = await import('../gate/basis.ts');
  const file = relative(cwd, to);
  if (!(await stat(to).catch(() => null))) return null;
  const old = await readGateSummary(to).catch((err: unknown) => {
    if (force) return null;
    throw new UsageError(
      `${file} is there but is not a baseline the gate reads (${(err as Error).message}); pass --force to replace it`,
    );
  });
  if (old === null) return `replaced ${file}, which was not a baseline the gate reads (--force)`;
  const differences = configDifferences(old, summary);
  const what = `${old.run.runId} (${configLabel(old)}) -> ${summary.run.runId} (${configLabel(summary)})`;
  if (differences.length > 0 && !force)
    throw new UsageError(
      `${file} is a baseline of another config or question set: replacing it would swap ${what}, which differ in: ` +
        `${differences.join('; ')}. Promote to another file with --to FILE, or pass --force to replace it`,
    );
  return `replaced ${what}${differences.length > 0 ? ` (--force; they differ in: ${differences.join('; ')})` : ''}`;
}
