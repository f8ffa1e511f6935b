/**
 * What the command way in (./command.ts, ./command-pool.ts) shares about a program's processes: how one
 * is started (in a process group of its own, so that a timeout kills whatever it started too), how
 * its group is signalled, the last lines of its stderr, and how its end is told.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { redactSecrets } from '../providers/credentials.ts';

export interface ProgramSpec {
  /** the program and its arguments */
  argv: readonly string[];
  cwd: string;
  /** the environment: the process's, with the system's own variables over it */
  env: NodeJS.ProcessEnv;
}

/**
 * Starts the program with piped stdio as the leader of a new process group (`detached`), so that
 * `signalGroup` reaches its children too; and so that a Ctrl-C at the terminal, which signals rge's
 * group, does not reach it: rge ends it (close, or the end of its stdin when rge itself is gone).
 */
export function startProgram(spec: ProgramSpec): ChildProcessWithoutNullStreams {
  const [program = '', ...args] = spec.argv;
  const child = spawn(program, args, { cwd: spec.cwd, env: spec.env, stdio: 'pipe', detached: true });
  // a program that exits without reading its stdin makes the write fail (EPIPE): its exit says why
  child.stdin.on('error', () => {});
  return child;
}

/**
 * Sends `signal` to the process's group: it and what it started, also after it has exited itself (a
 * child it left may hold its stdout open). To the process alone when the group is gone.
 */
export function signalGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

/** The last lines a process wrote to stderr (at most `maxChars`), for the message of its failure. */
export class StderrTail {
  private text = '';

  constructor(private readonly maxChars = 2000) {}

  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-2 * this.maxChars);
  }

  /** `; stderr ends: a | b | c` (keys redacted), or '' when it wrote nothing. */
  toString(): string {
    const lines = redactSecrets(this.text)
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '');
    if (lines.length === 0) return '';
    const joined = lines.join(' | ');
    const shown = joined.length > this.maxChars ? `…${joined.slice(-this.maxChars)}` : joined;
    return `; stderr ends: ${shown}`;
  }
}

/** How a process ended, in words: `exited with code 3`, `was killed by SIGSEGV`. */
export function endOf(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) return `was killed by ${signal}`;
  return `exited with code ${code ?? 'unknown'}`;
}
