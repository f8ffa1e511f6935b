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
