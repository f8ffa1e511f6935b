/**
 * An exclusive lock on a file shared by processes (several Vitest workers, two `rge` runs), taken with
 * proper-lockfile: a lock directory beside the file whose mtime the holder refreshes. A holder killed
 * with SIGKILL leaves the directory behind; it is taken over once it is stale (no refresh for
 * `LOCK_STALE_MS`), so a crash never wedges the file.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { errorMessage, RgeError } from './errors.ts';

export const LOCK_STALE_MS = 4000;

/**
 * Runs `fn` while holding the lock of `file` (the file itself need not exist). `waitMs` bounds how long
 * to wait for another holder (about 40 s by default; a holder building an index needs longer).
 */
export async function withFileLock<T>(
  file: string,
  fn: () => Promise<T> | T,
  opts: { waitMs?: number } = {},
): Promise<T> {
  mkdirSync(dirname(file), { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      stale: LOCK_STALE_MS,
      update: LOCK_STALE_MS / 4,
      retries: {
        retries: opts.waitMs === undefined ? 400 : Math.ceil(opts.waitMs / 100),
        factor: 1.3,
        minTimeout: 2,
        maxTimeout: 100,
        randomize: true,
      },
      // A lock lost to a stalled event loop is reported by the next operation, not thrown at random.
      onCompromised: () => {},
    });
  } catch (err) {
    throw new RgeError(`could not lock ${file}: ${errorMessage(err)}`, { cause: err });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}

/**
 * A heartbeat: a lock on `file` held for as long as the process wants it, whose mtime proper-lockfile
 * refreshes every `staleMs / 4` (at most every 5 s). Another process reads it with `heartbeatFresh`.
 * A holder killed with SIGKILL stops refreshing it; one that exits otherwise removes it. A refresh
 * missed past `staleMs` (a stalled event loop) takes the lock again. Returns the function that stops it.
 */
export async function startHeartbeat(file: string, staleMs: number): Promise<() => Promise<void>> {
  mkdirSync(dirname(file), { recursive: true });
  const options = {
    realpath: false,
    stale: staleMs,
    update: Math.min(5000, staleMs / 4),
    retries: { retries: 20, minTimeout: 5, maxTimeout: 200 },
  };
  let release: (() => Promise<void>) | null = null;
  let stopped = false;
  const take = async (): Promise<void> => {
    release = await lockfile.lock(file, {
      ...options,
      onCompromised: () => {
        release = null;
        if (!stopped) void take().catch(() => {});
      },
    });
    if (stopped) await release().catch(() => {});
  };
  try {
    await take();
  } catch (err) {
    throw new RgeError(`could not start the heartbeat ${file}: ${errorMessage(err)}`, { cause: err });
  }
  return async () => {
    stopped = true;
    await (release as (() => Promise<void>) | null)?.().catch(() => {});
  };
}

/** Is the heartbeat of `file` held and refreshed within the last `staleMs`? */
export function heartbeatFresh(file: string, staleMs: number): boolean {
  try {
    return lockfile.checkSync(file, { realpath: false, stale: staleMs });
  } catch {
    return false;
  }
}
