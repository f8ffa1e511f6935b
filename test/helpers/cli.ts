import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
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

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A child process's exit code (-1 when a signal ended it) and all it wrote, once it has closed. */
export function childOutput(
  child: Pick<ChildProcess, 'on'> & { stdout: Readable; stderr: Readable },
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/** Runs `node SCRIPT ARGS...` in the repository with `env`, collecting its output and exit code. */
export function spawnNode(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> {
  return childOutput(
    spawn(process.execPath, [script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

/** Runs `node bin/rge.mjs ARGS...` as a child process in the repository, with extra environment. */
export function spawnRge(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  return spawnNode('bin/rge.mjs', args, { ...process.env, ...env, CI: '1' });
}
