/**
 * Child processes for the integration tests (vitest.config.ts, docs/adr/0013): `rge` and Node scripts
 * started as a user starts them. A unit test calls `rge` in-process instead (test/helpers/cli.ts
 * `runRge`); test/split.test.ts keeps this module out of the unit project.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

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
