/**
 * The `rge traces` commands over windows of logged cases (`judge`, `questions`, `drift`): their names, options and
 * help. Like every command module it loads no judge, provider or schema (docs/adr/0012-cli-start-up.md);
 * each action imports its implementation (traces-judge.ts, traces-questions.ts, traces-drift.ts) when it runs. The `traces`
 * command itself is shared with `rge traces import`: it is found, or made, here.
 */
import type { Command } from 'commander';
import type { CliIO } from './io.ts';
import type { TracesDriftFlags } from './traces-drift.ts';
import type { TracesJudgeFlags } from './traces-judge.ts';
import type { TracesQuestionsFlags } from './traces-questions.ts';

/** The `traces` command of the program (made when no other module has made it). */
export function tracesCommand(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'traces') ??
    program.command('traces').description('logged traffic as cases: import, judge, drift between windows')
  );
}

export function registerTraceWindowCommands(program: Command, io: CliIO): void {
  const traces = tracesCommand(program);
  traces
    .command('judge')
    .description(
      "judge a window's logged cases (cases.jsonl) with a run config's judges, with no call: grounding and calibration " +
        "against each trace's own contexts, the deterministic checks, correctness only where the question matches the golden set; " +
        'writes judged.jsonl and judged.json beside the cases',
    )
    .requiredOption(
      '--cases <file>',
      'the cases of one window (DIR/cases.jsonl, as `rge traces import` writes it)',
    )
    .option(
      '--config <file>',
      'the run config whose judges, judge prompt, golden set and budget are used (default configs/fixture.yaml)',
    )
    .option('--family <family>', "the application's model family: no judge of it is on the panel")
    .option('--sample <n>', 'judge a seeded sample of N cases')
    .option('--stratify <field>', "stratify the sample by a case's field (route, tenant, day), in proportion")
    .option('--seed <seed>', 'the seed of the sample (default rge-traces)')
    .option('--out <dir>', "where judged.jsonl and judged.json go (default the cases' folder)")
    .option(
      '--results-dir <dir>',
      "the results folder whose budget ledger live judges' calls are settled in",
      'results',
    )
    .action(async (flags: TracesJudgeFlags) => {
      const { tracesJudgeAction } = await import('./traces-judge.ts');
      await tracesJudgeAction(flags, io);
    });
  traces
    .command('questions')
    .description(
      'the logged cases of a window as the questions file of a run whose subject is `provider: logged-traces`: ' +
        'trace-00001... in file order, with gold only where the question matches a golden question (else correctness is not judged)',
    )
    .requiredOption('--cases <file>', 'the cases of one window (DIR/cases.jsonl)')
    .requiredOption('--out <file>', 'the questions file to write (JSON Lines)')
    .option(
      '--golden <file>',
      'the golden set (a questions file) whose gold applies where a logged question matches',
    )
    .action(async (flags: TracesQuestionsFlags) => {
      const { tracesQuestionsAction } = await import('./traces-questions.ts');
      await tracesQuestionsAction(flags, io);
    });
  traces
    .command('drift')
    .description(
      'the drift gate between two judged windows: fails (exit 1) when the dimension drops from A to B beyond noise ' +
        '(one-sided permutation test significant at --alpha and the drop larger than --min-effect)',
    )
    .requiredOption('--windows <A,B>', 'two judged windows (judged.jsonl or its folder), the earlier first')
    .option(
      '--dimension <d>',
      'grounding, calibration, correctness, gfs_primary or claim_faithfulness (default grounding)',
    )
    .option('--min-effect <x>', "the smallest drop that matters, on the dimension's scale (default 0.1)")
    .option('--alpha <a>', 'the one-sided level (default 0.05)')
    .option('--seed <seed>', 'the seed of the Monte Carlo splits when no exact method applies')
    .option('--json', 'print the result as JSON')
    .action(async (flags: TracesDriftFlags) => {
      const { tracesDriftAction } = await import('./traces-drift.ts');
      await tracesDriftAction(flags, io);
    });
}
