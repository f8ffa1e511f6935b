/**
 * Scratch space for tests: a folder per test file, removed after its tests, that hands out fresh
 * subfolders. The pid of a process that has exited is test/helpers/dead-pid.ts.
 */
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
