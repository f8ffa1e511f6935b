import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorMessage, RgeError, UsageError } from './errors.ts';

/** Why a write failed, in words, for the errno codes a user can act on. */
const WRITE_FAILURES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a parent of this path is a file, not a folder',
  // mkdir -p over a path whose parent is a regular file
  EEXIST: 'a parent of this path is a file, not a folder',
  EISDIR: 'the path is a folder',
};

/**
 * A fault for tests to inject into `writeFileAtomic` (a full disk cannot be had without root): given
 * the target path, an error to fail with after half the bytes are written to the temporary file, or
 * undefined to write normally. `setWriteFault(undefined)` removes it.
 */
let writeFault: ((path: string) => NodeJS.ErrnoException | undefined) | undefined;
export function setWriteFault(
  fault: ((path: string) => NodeJS.ErrnoException | undefined) | undefined,
): void {
  writeFault = fault;
}

/**
 * Writes a file so that readers see either the old content or the whole new content, never a
 * half-written file: the bytes go to a temporary sibling which is then renamed over the target. A
 * failure removes the temporary file, leaves the target as it was and throws an `RgeError` naming
 * the target and why (e.g. `no space left on the device`). `data` may be an iterable of strings,
 * written piece by piece, so that a large file (an index's chunks.json) is never one string in memory.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | Iterable<string>,
): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true });
    const fault = writeFault?.(path);
    if (fault) {
      const bytes =
        typeof data === 'string'
          ? Buffer.from(data)
          : data instanceof Uint8Array
            ? data
            : Buffer.from([...data].join(''));
      await writeFile(tmp, bytes.subarray(0, Math.floor(bytes.length / 2)));
      throw fault;
    }
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    const why = (code && WRITE_FAILURES[code]) ?? (err as Error).message;
    throw new RgeError(`cannot write: ${why}${code ? ` (${code})` : ''}; nothing was written`, {
      file: path,
      cause: err,
    });
  }
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function sha1(data: string | Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

/** A file's text; a missing file is `file not found`, another failure its message (an RgeError naming the file). */
export async function readTextFile(path: string): Promise<string> {
  return readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new RgeError(err.code === 'ENOENT' ? 'file not found' : err.message, { file: path });
  });
}

/**
 * The text of a file the command line names (a run config, a sources file): a missing one is a usage
 * error (exit 2) `<what> not found`, another failure `cannot read <what>: <why>`, both naming the file.
 */
export async function readInputFile(path: string, what: string): Promise<string> {
  return readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new UsageError(`${what} not found`, { file: path });
    throw new RgeError(`cannot read ${what}: ${errorMessage(err)}`, { file: path, cause: err });
  });
}

/** Whether the path is a regular file (false when it is missing or cannot be read). */
export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}
