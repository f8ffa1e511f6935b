/**
 * The command way in: the system under test is a program rge starts, speaking JSON on its stdin and
 * stdout (any language: `python3 app.py`, `node app.mjs`, a binary). Two protocols:
 *
 * - A process per question (`pool: null`): rge writes the question's JSON to stdin and closes it; the
 *   program writes its answer's JSON to stdout and exits 0. A non-zero exit, a signal, no exit within
 *   `timeoutMs` (its process group is killed), stdout that is not one JSON value, or an answer that
 *   does not fit the contract is that question's failure; the message names the question and shows
 *   the end of the program's stderr.
 * - A pool (`pool: N`): N long-lived processes speaking JSON Lines (./command-pool.ts).
 *
 * stdout carries answers only; logs go to stderr. `concurrency` bounds the questions in flight (in a
 * pool, also the pool's size: a process holds one question at a time). The program's environment is
 * rge's with `env` over it; messages pass through `redactSecrets`, so a key the caller registered (a
 * value of `env` read from a secret) does not show in them even when the program prints it.
 */
import { access, constants, stat } from 'node:fs/promises';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import Bottleneck from 'bottleneck';
import { errorMessage, RgeError } from '../util/errors.ts';
import { isFile } from '../util/fs.ts';
import { ProcessPool } from './command-pool.ts';
import { checkAnswer, type SystemAnswer, type SystemQuestion, type SystemUnderTest } from './contract.ts';
import { excerpt, SystemFailure } from './failure.ts';
import { endOf, type ProgramSpec, StderrTail, signalGroup, startProgram } from './process.ts';

export interface CommandSystemOptions {
  /** the program and its arguments, e.g. ['python3', 'app.py'] */
  argv: string[];
  /** where it runs (and where a relative program or script is found) */
  cwd: string;
  /** variables over rge's environment */
  env?: Record<string, string>;
  /** how long one answer may take (in a pool, counted from writing the question's line) */
  timeoutMs: number;
  /** null: a process per question; N: a pool of N long-lived processes speaking JSON Lines */
  pool: number | null;
  /** questions in flight at once */
  concurrency: number;
  /** pool: how long `close` waits after closing stdin, and again after SIGTERM; default 5000 */
  graceMs?: number;
}

/** The system a program is. Check the program first with `checkProgram` (the run's pre-flight). */
export function commandSystem(opts: CommandSystemOptions): SystemUnderTest {
  const spec: ProgramSpec = { argv: opts.argv, cwd: opts.cwd, env: { ...process.env, ...opts.env } };
  const system = `command ${opts.argv.join(' ')}`;
  if (opts.pool !== null) {
    const pool = new ProcessPool(spec, {
      system,
      size: Math.min(opts.pool, opts.concurrency),
      timeoutMs: opts.timeoutMs,
      graceMs: opts.graceMs ?? 5000,
    });
    return {
      kind: 'command',
      answer: (q, call = {}) => pool.answer(q, call.signal),
      close: () => pool.close(),
    };
  }
  const limiter = new Bottleneck({ maxConcurrent: opts.concurrency });
  return {
    kind: 'command',
    answer: (question, call = {}) =>
      limiter.schedule(() =>
        answerOnce(question, { spec, system, timeoutMs: opts.timeoutMs, signal: call.signal }),
      ),
  };
}

interface Once {
  spec: ProgramSpec;
  system: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/** How a process of one question ended. */
interface Outcome {
  stdout: string;
  stderr: StderrTail;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  startError: Error | null;
}

/** One question, one process: its checked answer, or the question's failure. */
async function answerOnce(question: SystemQuestion, ctx: Once): Promise<SystemAnswer> {
  ctx.signal?.throwIfAborted();
  const o = await runProcess(ctx, `${JSON.stringify(question)}\n`);
  if (ctx.signal?.aborted) throw ctx.signal.reason;
  const fail = (detail: string) => new SystemFailure(ctx.system, question.id, `${detail}${o.stderr}`);
  if (o.startError) throw fail(`the program could not be started: ${errorMessage(o.startError)}`);
  if (o.timedOut) throw fail(`no answer within ${ctx.timeoutMs} ms (its process group was killed)`);
  if (o.code !== 0) throw fail(`the program ${endOf(o.code, o.signal)}`);
  let reply: unknown;
  try {
    reply = JSON.parse(o.stdout);
  } catch {
    throw fail(`stdout is not JSON: ${excerpt(o.stdout)}`);
  }
  return checkAnswer(question.id, reply);
}

/** Runs the program with `input` on stdin (then closed) until it ends, is timed out or aborted. */
function runProcess(ctx: Once, input: string): Promise<Outcome> {
  return new Promise((done) => {
    const child = startProgram(ctx.spec);
    const stdout: Buffer[] = [];
    const o: Outcome = {
      stdout: '',
      stderr: new StderrTail(),
      code: null,
      signal: null,
      timedOut: false,
      startError: null,
    };
    const stop = () => {
      signalGroup(child, 'SIGKILL');
      // a process the program left behind (outside its group) may hold the pipes: do not wait for it
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const timer = setTimeout(() => {
      o.timedOut = true;
      stop();
    }, ctx.timeoutMs);
    ctx.signal?.addEventListener('abort', stop, { once: true });
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      ctx.signal?.removeEventListener('abort', stop);
      o.stdout = Buffer.concat(stdout).toString('utf8');
      done(o);
    };
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => o.stderr.push(d));
    child.on('error', (err) => {
      o.startError = err;
      if (child.pid === undefined) finish();
    });
    child.on('close', (code, signal) => {
      Object.assign(o, { code, signal });
      finish();
    });
    child.stdin.end(input);
  });
}

/** Programs whose first argument, when it is not an option, is a script file that must exist. */
const INTERPRETERS = /^(node|nodejs|python[\d.]*|pypy[\d.]*|ruby|perl|php|bash|sh|zsh|tsx|Rscript)$/;

/**
 * The pre-flight of a command system: its program exists, found as a path (relative to `cwd`) when it
 * names one, else on the PATH of its environment, and is an executable file; and when it is an
 * interpreter (`node`, `python3`, ...) whose first argument is not an option, that script file exists.
 * Otherwise an error naming the program or the script; no question has been asked then. Returns the
 * program's path.
 */
export async function checkProgram(
  argv: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string> {
  const [program, first] = argv;
  if (!program) throw new RgeError('a command system needs a program: its argv is empty');
  if (!(await isFolder(cwd)))
    throw new RgeError(`the command system's working folder ${cwd} is not a folder; no question was asked`);
  const path = { ...process.env, ...env }.PATH ?? '';
  const found = await findProgram(program, cwd, path);
  if (found === null) {
    const where = program.includes('/') ? `at ${resolve(cwd, program)}` : 'on PATH';
    throw new RgeError(
      `the command system's program ${program} is not found ${where} (or is not executable); no question was asked`,
    );
  }
  if (first !== undefined && !first.startsWith('-') && INTERPRETERS.test(basename(program))) {
    const script = resolve(cwd, first);
    if (!(await isFile(script)))
      throw new RgeError(
        `the command system's script ${first} is not found at ${script}; no question was asked`,
      );
  }
  return found;
}

/** The executable file a program names: a path (with a slash) from `cwd`, else the first on PATH. */
async function findProgram(program: string, cwd: string, path: string): Promise<string | null> {
  const candidates = program.includes('/')
    ? [resolve(cwd, program)]
    : path.split(delimiter).map((dir) => join(isAbsolute(dir) ? dir : resolve(cwd, dir), program));
  for (const candidate of candidates) if (await isExecutable(candidate)) return candidate;
  return null;
}

const isFolder = (path: string) =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

const isExecutable = async (path: string) =>
  (await isFile(path)) &&
  access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
