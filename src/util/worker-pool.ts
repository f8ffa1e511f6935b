/**
 * A pool of worker threads fed from one queue, for the stages that spread work over every core (the
 * corpus workers, the USE-lite embedder). A job waits in the queue until a thread is free; threads
 * start on demand, up to the pool's size, so a small job list never pays for more threads than it
 * uses. Jobs may be put at the front of the queue (a document's remaining page ranges, so that it
 * finishes before another starts). A reply is matched to its job by id; a thread that fails or exits
 * fails every job waiting, since that is a bug, not a property of a job.
 *
 * The protocol: the pool posts `{ id, job }`; the worker posts back an object with that `id`.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ResourceLimits, type Transferable, Worker } from 'node:worker_threads';
import { bundledModule } from './bundle.ts';
import { RgeError } from './errors.ts';

interface Task<J, R> {
  job: J;
  /** what the job works on (a file): a thread whose last job had the same key takes it first */
  key: string | undefined;
  transfer: readonly Transferable[];
  resolve: (reply: R) => void;
  reject: (err: unknown) => void;
}

export interface WorkerPoolOptions {
  /** threads; default: the machine's available parallelism */
  size?: number | undefined;
  /** what the pool's threads do, for error messages ("corpus worker") */
  name: string;
  /** each thread's V8 heap limits (Node's `resourceLimits`); default: Node's */
  resourceLimits?: ResourceLimits | undefined;
}

/** The number of threads a pool of `size` (or the default) has. */
export function poolSize(size?: number): number {
  const wanted = size !== undefined && Number.isFinite(size) ? Math.floor(size) : availableParallelism();
  return Math.max(1, wanted);
}

export class WorkerPool<J, R extends { id: number }> {
  readonly size: number;
  private readonly name: string;
  private readonly resourceLimits: ResourceLimits | undefined;
  private readonly queue: Task<J, R>[] = [];
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  /** each thread's last job's key */
  private readonly lastKey = new Map<Worker, string | undefined>();
  private spawning = 0;
  private nextId = 0;
  private closed = false;
  private failure: unknown = null;

  /** `entry`: the worker module (a .ts file beside its caller, bundled or run through tsx). */
  constructor(
    private readonly entry: URL,
    opts: WorkerPoolOptions,
  ) {
    this.size = poolSize(opts.size);
    this.name = opts.name;
    this.resourceLimits = opts.resourceLimits;
  }

  /**
   * Runs `job` on the next free thread; `front` puts it ahead of the jobs waiting. A job with a `key`
   * goes first to a free thread whose last job had that key, ahead of the queue's order (a corpus
   * thread that has a document open extracts its next range without opening it again).
   */
  run(job: J, opts: { front?: boolean; key?: string; transfer?: readonly Transferable[] } = {}): Promise<R> {
    if (this.closed) return Promise.reject(new RgeError(`the ${this.name} threads were closed`));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const task: Task<J, R> = { job, key: opts.key, transfer: opts.transfer ?? [], resolve, reject };
      if (opts.front) this.queue.unshift(task);
      else this.queue.push(task);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0))
      task.reject(new RgeError(`the ${this.name} threads were closed`));
    await Promise.all(this.all.map((w) => w.terminate()));
  }

  /** Gives queued jobs to idle threads, starting threads (up to `size`) while jobs wait. */
  private dispatch(): void {
    // first each free thread that has a job with its last job's key waiting, then the queue in order
    for (let w = this.idle.length - 1; w >= 0 && this.queue.length > 0; w--) {
      const worker = this.idle[w] as Worker;
      const key = this.lastKey.get(worker);
      const at = key === undefined ? -1 : this.queue.findIndex((t) => t.key === key);
      if (at < 0) continue;
      this.idle.splice(w, 1);
      this.start(worker, this.queue.splice(at, 1)[0] as Task<J, R>);
    }
    while (this.queue.length > 0 && this.idle.length > 0)
      this.start(this.idle.pop() as Worker, this.queue.shift() as Task<J, R>);
    if (this.queue.length > this.spawning && this.all.length + this.spawning < this.size) {
      this.spawning++;
      spawnWorker(this.entry, this.resourceLimits).then(
        (worker) => {
          this.spawning--;
          this.all.push(worker);
          if (this.closed) {
            void worker.terminate();
            return;
          }
          this.idle.push(worker);
          this.dispatch();
        },
        (err: unknown) => {
          this.spawning--;
          this.fail(new RgeError(`could not start a ${this.name} thread`, { cause: err }));
        },
      );
    }
  }

  private start(worker: Worker, task: Task<J, R>): void {
    const id = this.nextId++;
    this.lastKey.set(worker, task.key);
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: R) => {
      if (reply.id !== id) return;
      cleanup();
      this.idle.push(worker);
      task.resolve(reply);
      this.dispatch();
    };
    const onError = (err: Error) => {
      cleanup();
      this.fail(new RgeError(`a ${this.name} thread failed: ${err.message}`, { cause: err }), task);
    };
    const onExit = (code: number) => {
      cleanup();
      if (!this.closed) this.fail(new RgeError(`a ${this.name} thread exited (code ${code})`), task);
      else task.reject(new RgeError(`the ${this.name} threads were closed`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage({ id, job: task.job }, [...task.transfer]);
  }

  private fail(err: unknown, task?: Task<J, R>): void {
    this.failure ??= err;
    task?.reject(err);
    for (const t of this.queue.splice(0)) t.reject(err);
  }
}

const require = createRequire(import.meta.url);

const LOADER_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);
/** tsx, as `--import tsx` names it or as a path into its package */
const TSX = /^tsx(?:\/|$)|[\\/]node_modules[\\/]tsx[\\/]/;

/** Options whose value may come as the next argument (`--import x`) rather than after `=`. */
const VALUE_FLAGS = new Set([...LOADER_FLAGS, '--conditions', '-C', '--disable-warning']);
/** Besides preloads, the parent's options a worker takes: export conditions and warning switches. */
const KEPT_FLAGS = new Set(['--conditions', '-C', '--no-warnings', '--no-deprecation', '--disable-warning']);

/**
 * The parent's Node options that a bundled worker takes: its preloads other than tsx (an
 * instrumentation `--import` stays), export conditions and warning switches; nothing else.
 * - Without tsx and source maps: a worker inherits the parent's options by default, so a parent run
 *   through tsx (`--import tsx`) would register tsx again in every bundled worker, which needs none
 *   (its loader thread, and source maps that keep the decoded mappings of pdf.js's 2 MB bundle: about
 *   70 MB a thread).
 * - Without V8 and per-process options (`--max-old-space-size`, `--expose-gc`, `--stack-size`): given
 *   to a worker they make `new Worker` throw ERR_WORKER_INVALID_EXEC_ARGV, so `node
 *   --max-old-space-size=8192 bin/rge.mjs corpus ingest` could not start a corpus thread. V8's flags
 *   are the whole process's anyway.
 */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const nextIsValue = eq < 0 && VALUE_FLAGS.has(name) && i + 1 < execArgv.length;
    const value = eq > 0 ? arg.slice(eq + 1) : nextIsValue ? (execArgv[i + 1] as string) : '';
    if (nextIsValue) i++;
    const keep = LOADER_FLAGS.has(name) ? !TSX.test(value) : KEPT_FLAGS.has(name);
    if (keep) out.push(...(nextIsValue ? [arg, value] : [arg]));
  }
  return out;
}

/**
 * A worker thread running `entry`: the bundled module (bundle.ts) when it could be built, and otherwise
 * the TypeScript sources: `execArgv: ['--import', 'tsx']` does not reach a worker's entry module on
 * Node 20 (ERR_UNKNOWN_FILE_EXTENSION), so that worker starts from a two-line eval'd script that calls
 * tsx's `register()` in the worker thread and then imports the entry. Both checked under
 * `node bin/rge.mjs`, `tsx` and vitest.
 */
export async function spawnWorker(entry: URL, resourceLimits?: ResourceLimits): Promise<Worker> {
  const limits = resourceLimits ? { resourceLimits } : {};
  const bundled = await bundledModule(fileURLToPath(entry));
  if (bundled) return new Worker(bundled, { execArgv: workerExecArgv(process.execArgv), ...limits });
  // tsx's ESM API (what bin/rge.mjs uses), by file: an eval'd worker resolves bare names from the cwd.
  const tsxApi = pathToFileURL(
    join(dirname(require.resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  ).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true, ...limits });
}
