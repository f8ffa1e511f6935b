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
