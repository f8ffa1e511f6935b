/**
 * `rge` in this process, through the CLI's own entry (src/cli/main.ts `main`, which bin/rge.mjs calls):
 * what a unit test runs. A child process running `rge` is test/helpers/child.ts (integration tests).
 */
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

/** Runs `rge ARGS...` in `cwd` through the real CLI entry and returns its exit code and output. */
export async function runRge(
  cwd: string,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
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
  const code = await main(['node', 'rge', ...args], io);
  return { code, out: io.stdout, err: io.stderr };
}

/** A CliIO that collects everything written (stdout and stderr together) in `text`. */
export function captureIO(cwd: string): CliIO & { text: string } {
  const io = {
    text: '',
    cwd,
    exitCode: 0,
    out: (t: string) => {
      io.text += t;
    },
    err: (t: string) => {
      io.text += t;
    },
  };
  return io;
}
