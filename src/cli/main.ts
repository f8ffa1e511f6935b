import { Command, CommanderError } from 'commander';
import { redactSecrets } from '../providers/credentials.ts';
import { errorMessage, RgeError } from '../util/errors.ts';
import { registerBudgetCommands } from './budget.ts';
import { registerConfigCommands } from './config.ts';
import { registerCorpusCommands } from './corpus.ts';
import { registerEvalCommands } from './eval.ts';
import { registerFixturesCommands } from './fixtures.ts';
import { registerFixtureBuildCommands } from './fixtures-build.ts';
import { registerGateCommands } from './gate.ts';
import { type CliIO, processIO } from './io.ts';
import { registerJudgeCommands } from './judge-commands.ts';
import { registerValidationCommands } from './labelling-commands.ts';
import { applyOfflineFlag, saveOfflineEnv } from './offline.ts';
import { registerPlanCommands } from './plan.ts';
import { registerQuestionCommands } from './questions.ts';
import { registerResultsCommands } from './results-commands.ts';
import { registerRetrievalCommands } from './retrieval.ts';
import { registerTracesCommands } from './traces.ts';
import { registerTraceWindowCommands } from './traces-window-commands.ts';
import { registerWatchCommand } from './watch.ts';

export function buildProgram(io: CliIO): Command {
  // Commander's own errors (an unknown option, a missing argument) read like every rge error: `rge: ...`.
  const output = {
    writeOut: io.out,
    writeErr: io.err,
    outputError: (text: string, write: (text: string) => void) => write(text.replace(/^error: /, 'rge: ')),
  };
  const program = new Command('rge')
    .description('RAG grounding eval: measure how faithfully LLMs answer from retrieved documents')
    .version('0.1.0')
    .exitOverride()
    .configureOutput(output)
    .showHelpAfterError('(add --help for usage)')
    .hook('preAction', applyOfflineFlag);
  registerCorpusCommands(program, io);
  registerRetrievalCommands(program, io);
  registerQuestionCommands(program, io);
  registerFixturesCommands(program, io);
  registerFixtureBuildCommands(program, io);
  registerConfigCommands(program, io);
  registerEvalCommands(program, io);
  registerWatchCommand(program, io);
  registerBudgetCommands(program, io);
  registerJudgeCommands(program, io);
  registerValidationCommands(program, io);
  registerResultsCommands(program, io);
  registerGateCommands(program, io);
  registerPlanCommands(program, io);
  registerTracesCommands(program, io);
  registerTraceWindowCommands(program, io);
  // Every subcommand inherits exitOverride and the output streams.
  for (const cmd of allCommands(program)) cmd.exitOverride().configureOutput(output);
  return program;
}

function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** How long `endWhenDone` lets a finished command's process stay up before it ends it. */
export const LINGER_MS = 2000;

/**
 * The process's end once its command has finished (bin/rge.mjs): the exit code set, and the process
 * ended should anything still hold it open `graceMs` later. A module system runs in rge's own process,
 * and what it leaves behind (a call that ignored the abort signal of its timeout, a timer, a database
 * pool, a keep-alive socket) would otherwise keep `rge eval run` up after its report, for as long as
 * that lasts. The timer is unref'd: a process with nothing left open exits at once, as it always did.
 * Every command's own work is awaited before `main` returns (a server runs until interrupted), so
 * nothing of rge's is cut short.
 */
export function endWhenDone(code: number, graceMs = LINGER_MS): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), graceMs).unref();
}

/** Runs the CLI and returns the exit code: 0 ok, 1 failure, 2 usage error. */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const program = buildProgram(io);
  const restoreOfflineEnv = saveOfflineEnv();
  try {
    await program.parseAsync([...argv]);
    return io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0)
        return 0;
      if (err.code === 'commander.help') return 0;
      return 2;
    }
    if (err instanceof RgeError) {
      io.err(`rge: ${redactSecrets(err.message)}\n`);
      return err.exitCode;
    }
    io.err(`rge: ${redactSecrets(errorMessage(err))}\n`);
    if (process.env.RGE_DEBUG && err instanceof Error && err.stack) io.err(`${err.stack}\n`);
    return 1;
  } finally {
    restoreOfflineEnv();
  }
}
