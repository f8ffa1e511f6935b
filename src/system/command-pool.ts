/**
 * The pool protocol of a command system (`pool: N`): N long-lived processes of the program, each
 * speaking JSON Lines. rge writes one question per line to a process's stdin; the process writes one
 * answer per line to its stdout, in the order of the questions. A process holds one question at a time,
 * so an answer always belongs to the question its process was last given.
 *
 * What the program must do:
 * - read stdin line by line and answer each line with one line of JSON on stdout, flushed at once
 *   (Python: `print(json.dumps(answer), flush=True)`); nothing else on stdout (logs go to stderr; blank
 *   lines are ignored);
 * - exit when its stdin ends. That is how `close` ends the pool, and how a pool never outlives rge:
 *   when rge dies, even by SIGKILL (which it cannot catch), the pipes close and the program sees the
 *   end of its stdin. The processes run in process groups of their own (a Ctrl-C signals rge, not
 *   them), so a program that ignores the end of its stdin lingers until something kills it.
 *
 * Failures are the question's, never retried silently: a process that exits or is killed while holding
 * a question fails it (naming how it ended, and the end of its stderr) and is replaced by a new process
 * for the next question; an answer not within `timeoutMs` of writing the question's line fails it, and
 * the process's group is killed (its late answer would be taken for the next question's); so is a line
 * that is not JSON, or a line when no question is held (the process is out of step). A JSON answer that
 * does not fit the contract fails the question (`ContractError`) and the process is kept.
 *
 * `close` closes every process's stdin and waits `graceMs` for it to exit (a question it holds may
 * still be answered), then sends SIGTERM to its group, waits `graceMs` again, then SIGKILL.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { errorMessage } from '../util/errors.ts';
import { checkAnswer, type SystemAnswer, type SystemQuestion } from './contract.ts';
import { excerpt, SystemFailure } from './failure.ts';
import { endOf, type ProgramSpec, StderrTail, signalGroup, startProgram } from './process.ts';

export interface PoolOptions {
  /** how messages name the system */
  system: string;
  /** processes, each holding one question at a time */
  size: number;
  timeoutMs: number;
  graceMs: number;
}

export class ProcessPool {
  private readonly processes: (PoolProcess | null)[];
  private readonly busy: boolean[];
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly spec: ProgramSpec,
    private readonly opts: PoolOptions,
  ) {
    this.processes = Array.from({ length: opts.size }, () => null);
    this.busy = Array.from({ length: opts.size }, () => false);
  }

  /** One question in the first free process (a new one if it has none, or its last one ended). */
  async answer(question: SystemQuestion, signal?: AbortSignal): Promise<SystemAnswer> {
    const i = await this.freeSlot();
    if (i === null) throw new SystemFailure(this.opts.system, question.id, 'the pool is closed');
    try {
      signal?.throwIfAborted();
      let proc = this.processes[i];
      if (!proc?.usable) {
        proc = new PoolProcess(this.spec, this.opts.system);
        this.processes[i] = proc;
      }
      return checkAnswer(question.id, await proc.ask(question, this.opts.timeoutMs, signal));
    } finally {
      this.busy[i] = false;
      this.waiting.shift()?.();
    }
  }

  /** The index of a process holding no question, marked busy (waits for one); null once closed. */
  private async freeSlot(): Promise<number | null> {
    for (;;) {
      if (this.closed) return null;
      const i = this.busy.indexOf(false);
      if (i >= 0) {
        this.busy[i] = true;
        return i;
      }
      await new Promise<void>((wake) => this.waiting.push(wake));
    }
  }

  /** Ends every process (stdin closed; SIGTERM after `graceMs`; SIGKILL after `graceMs` more). */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
    await Promise.all(this.processes.map((p) => p?.close(this.opts.graceMs)));
  }
}

/** A question a process holds. */
interface Held {
  question: SystemQuestion;
  resolve: (reply: unknown) => void;
  reject: (err: Error) => void;
}

/** One long-lived process of the pool. */
class PoolProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly stderr = new StderrTail();
  private readonly ended: Promise<void>;
  private held: Held | null = null;
  private gone = false;
  private startError: Error | null = null;

  constructor(
    spec: ProgramSpec,
    private readonly system: string,
  ) {
    this.child = startProgram(spec);
    this.child.stderr.on('data', (d: Buffer) => this.stderr.push(d));
    createInterface({ input: this.child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
      this.onLine(line),
    );
    this.child.on('error', (err) => {
      this.startError = err;
    });
    this.ended = new Promise((resolve) =>
      this.child.on('close', (code, signal) => {
        this.gone = true;
        const how = this.startError
          ? `could not be started: ${errorMessage(this.startError)}`
          : `${endOf(code, signal)} while answering it`;
        this.fail(`the pool's process ${how}`);
        resolve();
      }),
    );
  }

  /** Whether it can take a question: running and in step. */
  get usable(): boolean {
    return !this.gone;
  }

  /** The reply (parsed JSON) to one question, or the question's failure. */
  ask(question: SystemQuestion, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const onAbort = () => this.stop(() => this.held?.reject(signal?.reason));
      const timer = setTimeout(
        () => this.stop(() => this.fail(`no answer within ${timeoutMs} ms (the process was killed)`)),
        timeoutMs,
      );
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.held = null;
      };
      this.held = {
        question,
        resolve: (reply) => {
          settle();
          resolve(reply);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.child.stdin.write(`${JSON.stringify(question)}\n`);
    });
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    if (!this.held) {
      this.stop(() => {}); // out of step: an answer to no question
      return;
    }
    let reply: unknown;
    try {
      reply = JSON.parse(line);
    } catch {
      this.stop(() => this.fail(`a line of stdout is not JSON: ${excerpt(line)} (the process was killed)`));
      return;
    }
    this.held.resolve(reply);
  }

  /** Fails the question held, if any, with `detail` and the end of stderr. */
  private fail(detail: string): void {
    const held = this.held;
    if (held) held.reject(new SystemFailure(this.system, held.question.id, `${detail}${this.stderr}`));
  }

  /** Takes the process out of the pool: `then` (fail or reject what it holds), then kill its group. */
  private stop(then: () => void): void {
    this.gone = true;
    then();
    this.kill();
  }

  /** SIGKILL to its group; its pipes closed, in case a process it left outside its group holds them. */
  private kill(): void {
    signalGroup(this.child, 'SIGKILL');
    this.child.stdout.destroy();
    this.child.stderr.destroy();
  }

  /** stdin closed; SIGTERM to its group after `graceMs`; SIGKILL after `graceMs` more. */
  async close(graceMs: number): Promise<void> {
    this.child.stdin.end();
    if (await within(this.ended, graceMs)) return;
    signalGroup(this.child, 'SIGTERM');
    if (await within(this.ended, graceMs)) return;
    this.kill();
    await this.ended;
  }
}

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
