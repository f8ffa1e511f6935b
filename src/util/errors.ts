/**
 * Errors that reach the user. `RgeError` carries the exit code the CLI returns and, where the error is
 * about a file, the file and line so that the message can name them.
 */
/** 0 ok, 1 bad data, 2 bad usage; 129, 130, 143 stopped by SIGHUP, SIGINT, SIGTERM (stop-signal.ts). */
export type ExitCode = 0 | 1 | 2 | 129 | 130 | 143;

export class RgeError extends Error {
  readonly exitCode: ExitCode;
  readonly file: string | undefined;
  readonly line: number | undefined;

  constructor(
    message: string,
    opts: { exitCode?: ExitCode; file?: string; line?: number; cause?: unknown } = {},
  ) {
    const where = opts.file ? `${opts.file}${opts.line !== undefined ? `:${opts.line}` : ''}: ` : '';
    super(`${where}${message}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'RgeError';
    this.exitCode = opts.exitCode ?? 1;
    this.file = opts.file;
    this.line = opts.line;
  }
}

/**
 * A usage error: wrong flags or arguments (exit code 2), including a path given on the command line
 * that does not exist (`file` names it).
 */
export class UsageError extends RgeError {
  constructor(message: string, opts: { file?: string; line?: number } = {}) {
    super(message, { ...opts, exitCode: 2 });
    this.name = 'UsageError';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
