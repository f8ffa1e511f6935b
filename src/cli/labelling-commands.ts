/**
 * The human-validation commands' names, options and help (`rge validation sample|label|review`; the
 * hidden `rge label` and `rge review` are the last two's old names); the actions import validation.ts
 * when they run, so that `rge --help` loads none of it (docs/adr/0012-cli-start-up.md).
 */
import type { Command } from 'commander';
import type { CliIO } from './io.ts';
import type { LabelFlags, ReviewFlags, SampleFlags } from './labelling.ts';

/** VALIDATION_SIZE of src/validation/sample.ts, shown in the help; test/cli/startup.test.ts checks it is the library's. */
export const VALIDATION_SIZE = 50;

const runOptions = (cmd: Command) =>
  cmd
    .option('--config <file>', 'run config', 'configs/fixture.yaml')
    .option('--subjects <ids>', 'only these subjects (comma-separated ids)')
    .option('--questions <n>', 'only the first N questions')
    .option('--runs <n>', 'runs per question (default: the config runs)')
    .option(
      '--set <path=value>',
      'override a config field as the run did, e.g. corpus.index=DIR (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--results-dir <dir>', "results folder holding the run's cell stores", 'data/results');

export function registerValidationCommands(program: Command, io: CliIO): void {
  const validation = program
    .command('validation')
    .description(
      'human validation of the judges (methodology 5.4): draw the validation sample, label it, review contested responses',
    );
  runOptions(
    validation
      .command('sample')
      .description(
        `draw the ${VALIDATION_SIZE}-response validation set from a run's completed cells: 10 grounded-direct, ` +
          '10 grounded-multihop, 20 adversarial, 10 out-of-domain, each stratum proportional across the subjects',
      ),
  )
    .option('--out <file>', 'where to write the sample (default data/labels/samples/<sample_id>.json)')
    .option('--seed <seed>', "the draw's seed (default: the config's seed + ':validation')")
    .option('--size <n>', 'responses to draw (the strata scale with it)', String(VALIDATION_SIZE))
    .action(async (flags: SampleFlags) => {
      const { sampleCommand } = await import('./labelling.ts');
      await sampleCommand(flags, io);
    });

  labelCommand(validation.command('label'), io);
  reviewCommand(validation.command('review'), io);
  // The old top-level names still work, hidden from the help, each saying once what it is now.
  for (const name of ['label', 'review'] as const) {
    const alias = program.command(name, { hidden: true });
    (name === 'label' ? labelCommand : reviewCommand)(alias, io).hook('preAction', () =>
      io.err(aliasNote(name)),
    );
  }
}

/** What `rge label` and `rge review` say (stderr) before doing what `rge validation label|review` does. */
export function aliasNote(name: 'label' | 'review'): string {
  return `note: \`rge ${name}\` is now \`rge validation ${name}\` (same flags); the old name will go in a later release\n`;
}

/** `rge validation label` (and its old name): the labelling page over a validation sample. */
function labelCommand(cmd: Command, io: CliIO): Command {
  return cmd
    .description(
      'label a validation sample in a local page (127.0.0.1): score correctness, grounding and calibration ' +
        '0/1/2 with a rationale, keyboard first; every label is appended to <labels-dir>/labels-<sample_id>.jsonl',
    )
    .option('--sample <file>', 'the sample (default: the newest in <labels-dir>/samples)')
    .option('--labeller <name>', 'who labels (default: $USER)')
    .option('--port <n>', 'port on 127.0.0.1 (0: any free port)', '0')
    .option('--labels-dir <dir>', 'labels folder', 'data/labels')
    .action(async (flags: LabelFlags) => {
      const { serveUntilInterrupted, startLabelling } = await import('./labelling.ts');
      await serveUntilInterrupted(await startLabelling(flags, io), io);
    });
}

/** `rge validation review` (and its old name): the run's contested responses, both verdicts shown. */
function reviewCommand(cmd: Command, io: CliIO): Command {
  return runOptions(
    cmd.description(
      "hand-review a run's contested responses (judges more than one point apart on a dimension) in a " +
        'local page showing both verdicts; outcomes are appended to <labels-dir>/reviews.jsonl',
    ),
  )
    .option('--reviewer <name>', 'who reviews (default: $USER)')
    .option('--labels-dir <dir>', 'labels folder', 'data/labels')
    .option('--port <n>', 'port on 127.0.0.1 (0: any free port)', '0')
    .action(async (flags: ReviewFlags) => {
      const { serveUntilInterrupted, startReviewing } = await import('./labelling.ts');
      await serveUntilInterrupted(await startReviewing(flags, io), io);
    });
}
