/** Runs test/system/system-child.ts in a plain Node process (its bundle; through tsx if none was built). */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundledModule } from '../../src/util/bundle.ts';
import { root } from '../helpers/live.ts';

const CHILD = join(root, 'test/system/system-child.ts');
const run = promisify(execFile);

/** The node arguments that run the child: its bundle, or its sources through tsx. */
async function entry(): Promise<string[]> {
  const bundle = await bundledModule(CHILD);
  return bundle ? [bundle] : ['--import', 'tsx', CHILD];
}

/** Starts the child with `args`. */
export async function startSystemChild(args: readonly string[]): Promise<ChildProcessWithoutNullStreams> {
  return spawn(process.execPath, [...(await entry()), ...args], { cwd: root, stdio: 'pipe' });
}

/** Runs the child with `args` to its end. */
export async function runSystemChild(
  args: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...(await entry()), ...args], { cwd: root });
    return { code: 0, out: stdout, err: stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as { code?: number; stdout?: string; stderr?: string };
    return { code: code ?? -1, out: stdout ?? '', err: stderr ?? String(err) };
  }
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
