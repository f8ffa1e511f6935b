import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { redactSecrets } from '../providers/credentials.ts';
import { UsageError } from '../util/errors.ts';
/**
 * What a CLI command receives: where to write, the working folder, and the exit code it wants
 * (commands that finish with some failures set it to 1; thrown `RgeError`s carry their own).
 */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  exitCode: number;
  /** the environment (default process.env); tests pass their own */
  env?: Record<string, string | undefined>;
}

/** The terminal: whatever a command writes there passes through `redactSecrets` first. */
export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(redactSecrets(text)),
    err: (text) => process.stderr.write(redactSecrets(text)),
    cwd: process.cwd(),
    exitCode: 0,
  };
}

/** A positive integer flag value, or a usage error naming the flag; undefined stays undefined. */
export function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

/** A non-negative integer flag value, or a usage error naming the flag; undefined stays undefined. */
export function nonNegativeInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || value.trim() === '')
    throw new UsageError(`--${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/**
 * A path given with a flag, which must exist (a folder where `kind` is 'folder'): else a usage error
 * (exit 2) naming the flag and the path. Returns the path resolved against `cwd`.
 */
export function existingPath(
  cwd: string,
  flag: string,
  path: string,
  kind: 'file' | 'folder' | 'file or folder' = 'file or folder',
): string {
  const at = resolve(cwd, path);
  let isDir: boolean;
  try {
    isDir = statSync(at).isDirectory();
  } catch {
    throw new UsageError(`${flag} ${path}: no such ${kind}`);
  }
  if (kind === 'folder' && !isDir) throw new UsageError(`${flag} ${path}: not a folder (give a folder)`);
  return at;
}
