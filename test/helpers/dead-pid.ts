/**
 * The pid of a process that has exited (an owner known to be dead): a child that runs `node -e 0`,
 * tens of milliseconds.
 */
import { spawn } from 'node:child_process';

/** The pid of a process that has exited. */
export function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => (child.pid === undefined ? reject(new Error('no pid')) : resolve(child.pid)));
  });
}
