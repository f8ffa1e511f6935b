import { Command, CommanderError } from 'commander';
import type { CliIO } from '../../src/cli/io.ts';
import { registerQuestionCommands } from '../../src/cli/questions.ts';
import type { Chunk } from '../../src/corpus/schema.ts';
import { errorMessage, RgeError } from '../../src/util/errors.ts';
import { sha1 } from '../../src/util/fs.ts';

/**
 * Runs `rge questions ...` as src/cli/main.ts does (same exit codes: 0 ok, 1 failure, 2 usage), on a
 * program holding only the questions commands, so the tests do not depend on main.ts's wiring.
 */
export async function rgeQuestions(cwd: string, ...args: string[]) {
  const io: CliIO & { stdout: string; stderr: string } = {
    stdout: '',
    stderr: '',
    cwd,
    exitCode: 0,
    out: (t: string) => {
      io.stdout += t;
    },
    err: (t: string) => {
      io.stderr += t;
    },
  };
  const program = new Command('rge').exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  registerQuestionCommands(program, io);
  const all = (c: Command): Command[] => c.commands.flatMap((s) => [s, ...all(s)]);
  for (const c of all(program)) c.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
  let code: number;
  try {
    await program.parseAsync(['node', 'rge', ...args]);
    code = io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) code = err.exitCode === 0 ? 0 : 2;
    else if (err instanceof RgeError) {
      io.err(`rge: ${err.message}\n`);
      code = err.exitCode;
    } else {
      io.err(`rge: ${errorMessage(err)}\n`);
      code = 1;
    }
  }
  return { code, out: io.stdout, err: io.stderr };
}

/** A hand-made chunk with a proper id ({company}-{fy}-{sha1[:8]}). */
export function chunk(company: string, fy: string, pages: [number, number], text: string): Chunk {
  return {
    id: `${company}-${fy}-${sha1(`${company}\0${fy}\0${text}`).slice(0, 8)}`,
    company,
    fy,
    source: `${company}-${fy}.pdf`,
    heading: null,
    pages,
    tokens: Math.max(1, Math.ceil(text.length / 4)),
    text,
  };
}
