import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { prepareRun } from '../run/case.ts';
import { planRun } from '../run/plan.ts';
import { UsageError } from '../util/errors.ts';
import { runEvalSuite } from '../vitest/run.ts';
import type { CliIO } from './io.ts';

interface EvalFlags {
  config: string;
  subjects?: string;
  questions?: string;
  runs?: string;
  resultsDir?: string;
  reportsDir?: string;
  dryRun?: boolean;
  json?: boolean;
}

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

export function registerEvalCommands(program: Command, io: CliIO): void {
  const evalCmd = program.command('eval').description('run the evaluation suite');
  evalCmd
    .command('run')
    .description(
      'run the eval suite through Vitest (one case per subject, question and run); writes reports/<run_id>/',
    )
    .option('--config <file>', 'run config', 'configs/fixture.yaml')
    .option('--subjects <ids>', 'only these subjects (comma-separated ids)')
    .option('--questions <n>', 'only the first N questions')
    .option('--runs <n>', 'runs per question (default: the config runs)')
    .option('--results-dir <dir>', 'results store folder', 'data/results')
    .option('--reports-dir <dir>', 'reports folder', 'reports')
    .option('--dry-run', 'print what would run (cells, calls, tokens) without calling any provider')
    .option('--json', 'with --dry-run: print the plan as JSON')
    .action(async (flags: EvalFlags) => {
      const narrowing = {
        ...(flags.subjects ? { subjects: flags.subjects.split(',').map((s) => s.trim()) } : {}),
        ...(flags.questions ? { questions: positive('questions', flags.questions) as number } : {}),
        ...(flags.runs ? { runs: positive('runs', flags.runs) as number } : {}),
      };
      const resultsDir = resolve(io.cwd, flags.resultsDir ?? 'data/results');
      const reportsDir = resolve(io.cwd, flags.reportsDir ?? 'reports');
      if (flags.dryRun) {
        const run = await prepareRun({
          config: flags.config,
          root: io.cwd,
          resultsDir,
          reportsDir,
          dryRun: true,
          ...narrowing,
        });
        const plan = await planRun(run);
        if (flags.json) {
          io.out(`${JSON.stringify(plan, null, 2)}\n`);
          return;
        }
        io.out(
          [
            `run ${plan.runId} (dry run: nothing is called)`,
            `subjects: ${plan.subjects.join(', ')}; ${plan.questions} questions x ${plan.runs} runs`,
            `cells: ${plan.cells} (${plan.stored} already stored and reused, ${plan.toCompute} to compute)`,
            `calls: ${plan.calls.subject} subject + ${plan.calls.judge} judge`,
            `tokens: ${plan.tokens.input.toLocaleString('en')} input (cl100k), at most ${plan.tokens.outputMax.toLocaleString('en')} output`,
            `budget cap: $${run.config.budget.cap_usd} (warning at $${run.config.budget.warn_usd})`,
            '',
          ].join('\n'),
        );
        return;
      }
      const outcome = await runEvalSuite({
        root: io.cwd,
        config: flags.config,
        resultsDir,
        reportsDir,
        ...narrowing,
      });
      io.out(
        `${outcome.cases} cases, ${outcome.reused} reused, ${outcome.failed} failed` +
          (outcome.runId && outcome.reportsDir
            ? `; report ${join(outcome.reportsDir, outcome.runId, 'summary.md')}`
            : '') +
          '\n',
      );
      if (!outcome.ok) io.exitCode = 1;
    });
}
