/**
 * Scratch space and processes for tests: a folder per test file, removed after its tests, that hands
 * out fresh subfolders; and the pid of a process that has exited (an owner known to be dead).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** A fresh subfolder per call, under one folder made before the file's tests and removed after them. */
export function scratchDirs(prefix: string): () => string {
  let work = '';
  let seq = 0;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });
  return () => join(work, `d${seq++}`);
}

/** The pid of a process that has exited. */
export function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => (child.pid === undefined ? reject(new Error('no pid')) : resolve(child.pid)));
  });
}
