/**
 * The `rge judge` commands' names, options and help: this module loads no judge, provider or schema, so
 * that `rge --help` and `rge --version` start fast (docs/adr/0012-cli-start-up.md); each action imports
 * its implementation (judge.ts, judge-agree.ts, judge-audit.ts) when it runs.
 */
import type { Command } from 'commander';
import type { CliIO } from './io.ts';
import type { AgreeFlags } from './judge-agree.ts';
import type { AuditFlags } from './judge-audit.ts';

/** Copies of library constants shown in the help; test/cli/startup.test.ts checks they are the library's. */
export const HELP_CONSTANTS = {
  /** JUDGE_PROMPT_VERSION and JUDGE_PROMPT_VERSIONS of src/judging/prompt.ts */
  judgePromptVersion: 'v2',
  judgePromptVersions: ['v1', 'v2'],
  /** AGREEMENT_FORMATS of src/validation/datasets.ts */
  agreementFormats: ['attributionbench', 'financebench', 'salad'],
} as const;

const DEFAULT_PUBLISHED = 'configs/published.yaml';
const DEFAULT_CONFIG = 'configs/fixture.yaml';
const JUDGE_PROMPT_VERSION = HELP_CONSTANTS.judgePromptVersion;
const JUDGE_PROMPT_VERSIONS = HELP_CONSTANTS.judgePromptVersions;
const AGREEMENT_FORMATS = HELP_CONSTANTS.agreementFormats;

const collectAgree = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
const collectAudit = (value: string, previous: string[] = []) => [...previous, value];

export function registerJudgeCommands(program: Command, io: CliIO): void {
  const judge = program.command('judge').description('the judge prompt and the judges against people');
  registerPromptCommand(judge, io);
  registerAgreeCommand(judge, io);
  registerAuditCommand(judge, io);
}

/** `rge judge prompt`: print, pin or check the judge prompt. */
function registerPromptCommand(judge: Command, io: CliIO): void {
  judge
    .command('prompt')
    .description(
      `print the judge prompt (${JUDGE_PROMPT_VERSION}, or --prompt-version), pin the canonical one in a run config (--write-config), or check a pinned copy (--check)`,
    )
    .option('--prompt-version <v>', `the version to print: ${JUDGE_PROMPT_VERSIONS.join(', ')}`)
    .option('--write-config <file>', 'copy the canonical prompt text and its sha256 into this config')
    .option(
      '--check [file]',
      `exit 1 when the config's pinned prompt is stale (default ${DEFAULT_PUBLISHED})`,
    )
    .action(async (opts: { writeConfig?: string; check?: string | boolean; promptVersion?: string }) => {
      const { judgePromptAction } = await import('./judge.ts');
      await judgePromptAction(opts, io);
    });
}

/** `rge judge agree`: judges against a human-labelled public set. */
function registerAgreeCommand(judge: Command, io: CliIO): void {
  judge
    .command('agree')
    .description(
      'judges of a run config against a human-labelled file, pooled and per subset: n, unscored, ' +
        'Cohen kappa with a bootstrap 95% interval, accuracy, confusion matrix, cost, latency',
    )
    .requiredOption('--format <format>', `one of ${AGREEMENT_FORMATS.join(', ')}`)
    .requiredOption('--file <file>', 'the labelled file (salad and financebench: a file or a folder of them)')
    .option(
      '--config <file>',
      `run config whose judges, providers and budget apply (default ${DEFAULT_CONFIG}, else the packaged one)`,
    )
    .option(
      '--judge <id>',
      'a judge id of the config, repeatable or comma-separated (default every judge of the config)',
      collectAgree,
    )
    .option('--results-dir <dir>', 'results folder holding the budget ledger', 'data/results')
    .option(
      '--docs <file>',
      'salad, one annotations file: the documents file (default docs-webgpt.json or docs-human.json beside --file)',
    )
    .option(
      '--questions <file>',
      'financebench: financebench_open_source.jsonl (default ../../corpus/financebench/ from the labels folder)',
    )
    .option('--limit <n>', 'judge a deterministic subsample of n items of the dataset')
    .option('--min-kappa <x>', 'exit 1 when a pooled kappa (per judge) is below x, in [-1, 1]')
    .option(
      '--compare <a,b>',
      'two judge ids of the config compared on the same items: kappa and alpha differences (A - B) with paired bootstrap intervals, McNemar on agreement',
    )
    .option('--json', 'print every number as JSON')
    .action(async (opts: AgreeFlags) => {
      const { judgeAgreeAction } = await import('./judge-agree.ts');
      await judgeAgreeAction(opts, io);
    });
}

/** `rge judge audit`: replicate stability, order bias and the paradox flag. */
function registerAuditCommand(judge: Command, io: CliIO): void {
  judge
    .command('audit')
    .description(
      'audit judges: replicate stability, order bias (chunks reversed, answer first) and the paradox flag, on a labelled set or the human validation set',
    )
    .option('--config <file>', 'run config whose judges are audited (default configs/fixture.yaml)')
    .option(
      '--judge <id>',
      'a judge id of the config (repeatable or comma-separated; default every judge)',
      collectAudit,
    )
    .option('--format <format>', `a public labelled set: ${AGREEMENT_FORMATS.join(', ')} (with --file)`)
    .option('--file <file>', 'the labelled file or folder (as rge judge agree reads it)')
    .option('--docs <file>', 'salad: the documents file')
    .option('--questions <file>', 'financebench: financebench_open_source.jsonl')
    .option(
      '--sample <file>',
      'the human validation set (rge validation sample), with the labels of --labels-dir',
    )
    .option('--labels-dir <dir>', 'where rge validation label saved the labels', 'data/labels')
    .option('--replicates <n>', 'how many times each item is judged for stability (>= 2)', '3')
    .option('--limit <n>', 'a deterministic subsample of n items', '50')
    .option('--results-dir <dir>', 'budget ledger folder (live judges)', 'data/results')
    .option('--json', 'print every number as JSON')
    .action(async (flags: AuditFlags) => {
      const { judgeAuditAction } = await import('./judge-audit.ts');
      await judgeAuditAction(flags, io);
    });
}
