/** Runs test/system/system-child.ts in a plain Node process (its bundle; through tsx if none was built). */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledModule } from '../../src/util/bundle.ts';
import { root } from '../helpers/live.ts';

const CHILD = join(root, 'test/system/system-child.ts');

/** Starts the child with `args`. */
export async function startSystemChild(args: readonly string[]): Promise<ChildProcessWithoutNullStreams> {
  const bundle = await bundledModule(CHILD);
  const entry = bundle ? [bundle] : ['--import', 'tsx', CHILD];
  return spawn(process.execPath, [...entry, ...args], { cwd: root, stdio: 'pipe' });
}

/** Runs the child with `args` to its end. */
export async function runSystemChild(
  args: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
  const child = await startSystemChild(args);
  child.stdin.end();
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/**
 * Whether a process is running: it exists and is not a zombie (a process whose parent died is
 * reparented, and in a container nothing may reap it).
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync('/proc/self/stat')) return true; // not Linux: it exists
  try {
    return !/^\S+ \(.*\) [ZX]/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
