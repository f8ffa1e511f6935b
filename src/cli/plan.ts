/**
 * `rge plan --from reports/<run>/summary.json --effect 0.03`: the design table of a comparison (questions
 * x runs per question, MDD, power, cost) and the cheapest design reaching the power. Exit codes: 0 a
 * design fits, 2 none fits the budget or a usage error. The action imports src/gate/plan.ts when it
 * runs, so that `rge --help` loads no statistics (docs/adr/0012-cli-start-up.md).
 */
import type { Command } from 'commander';
import { UsageError } from '../util/errors.ts';
import { type CliIO, existingPath } from './io.ts';

interface PlanFlags {
  from: string;
  effect: string;
  power: string;
  runs: string;
  budgetUsd?: string;
  compare?: string;
  betweenVariance?: string;
}

function numberFlag(name: string, value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x))
    throw new UsageError(`${name} must be a number, got "${value}"`);
  return x;
}

/** "1..5" or "3" as an inclusive range of runs per question. */
export function runsRange(value: string): [number, number] {
  const m = /^\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?$/.exec(value);
  if (!m) throw new UsageError(`--runs must be a number or a range such as 1..5, got "${value}"`);
  const from = Number(m[1]);
  return [from, m[2] === undefined ? from : Number(m[2])];
}

export function registerPlanCommands(program: Command, io: CliIO): void {
  program
    .command('plan')
    .description(
      "plan a comparison before paying for it: from an earlier run's variance components and costs, the questions and runs per question needed to detect a GFS difference, each design's cost, and the cheapest that reaches the power (exit 2 when none fits --budget-usd)",
    )
    .requiredOption('--from <file>', "an earlier run's summary.json (reports/<run_id>/summary.json)")
    .requiredOption('--effect <x>', 'the GFS difference to detect, e.g. 0.03')
    .option('--power <p>', 'the power to reach', '0.8')
    .option('--runs <range>', 'runs per question to consider, e.g. 1..5 or 3', '1..5')
    .option('--budget-usd <x>', 'the most the comparison may cost')
    .option(
      '--compare <a,b|subject>',
      'a pair of subjects (default with two or more: the pair with the most variance), or one subject whose change is gated against its baseline',
    )
    .option(
      '--between-variance <x>',
      "for one subject's change: how unevenly it acts across questions (variance of its per-question effect; default 0)",
    )
    .action(async (flags: PlanFlags) => {
      // the flags first, so that a malformed flag is named before the summary file is read
      const options = {
        effect: numberFlag('--effect', flags.effect),
        power: numberFlag('--power', flags.power),
        runs: runsRange(flags.runs),
        budgetUsd: flags.budgetUsd === undefined ? null : numberFlag('--budget-usd', flags.budgetUsd),
        compare: flags.compare ?? null,
        betweenVariance:
          flags.betweenVariance === undefined
            ? null
            : numberFlag('--between-variance', flags.betweenVariance),
      };
      const { checkPlanOptions, planMarkdown, planRun, readPlanSummary } = await import('../gate/plan.ts');
      checkPlanOptions(options);
      const summary = await readPlanSummary(existingPath(io.cwd, '--from', flags.from, 'file'));
      const plan = planRun(summary, options, flags.from);
      io.out(planMarkdown(plan));
      if (!plan.cheapest) {
        io.err(`rge: no design reaches the power within the budget of $${plan.budgetUsd}\n`);
        io.exitCode = 2;
      }
    });
}
