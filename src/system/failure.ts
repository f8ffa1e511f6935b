/**
 * A question a system failed to answer: it threw, timed out, exited non-zero, replied with something
 * that is not JSON, or answered with an HTTP error. That cell's failure, recorded as data (the run
 * state's error and `subject_failures`), never a crash of the run; the report scores it 0 as a wrong
 * answer, its answered-only GFS beside (docs/adr/0030). (An answer that is JSON but does not fit the
 * contract is a `ContractError`, ./contract.ts.) Every message names the system and the question, keys
 * redacted.
 */
import { redactSecrets } from '../providers/credentials.ts';

export class SystemFailure extends Error {
  /** the HTTP status of the last attempt (http systems), else null */
  readonly status: number | null;

  constructor(
    /** how the message names the system: `module /abs/app.ts`, `http http://host/ask`, `command python3 app.py` */
    readonly system: string,
    readonly questionId: string,
    detail: string,
    opts: { cause?: unknown; status?: number | null } = {},
  ) {
    super(
      redactSecrets(`${system}: question ${questionId}: ${detail}`),
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.name = 'SystemFailure';
    this.status = opts.status ?? null;
  }
}

/** A short, one-line piece of a system's output for an error message: whitespace collapsed, keys redacted. */
export function excerpt(text: string, max = 200): string {
  const line = redactSecrets(text).replace(/\s+/g, ' ').trim();
  if (line === '') return '(empty)';
  return line.length > max ? `${line.slice(0, max)}… (${line.length} characters)` : line;
}
