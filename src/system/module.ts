/**
 * The module way in: the system under test is a function a TypeScript or JavaScript module exports,
 * called in rge's own process, one question at a time:
 *
 *   export default async function answer(question, { signal }) { return { answer, contexts }; }
 *
 * The module is loaded without a build step through tsx's `tsImport`, which registers tsx's hooks under
 * a namespace of their own (nothing global: other imports of the process are left alone) and imports
 * the file natively. JavaScript files (.js, .mjs, .cjs) are loaded the same way rather than with a bare
 * `import()`: inside a Vitest worker a bare `import()` of ours is rewritten to load the file through
 * Vite's transform pipeline, so the module would run one way under `vitest` and another under `rge`;
 * through tsImport it is Node that loads it, whatever the front door. Each load is a fresh instance
 * of the module (a namespace of its own), so `version`, the sha256 of the file's bytes, names what runs.
 *
 * The function gets a copy of the question and a signal that aborts when the call times out or the run
 * no longer needs it. Whatever it throws, and an answer that takes longer than `timeoutMs`, is that
 * question's failure (`SystemFailure`); its answer goes through `checkAnswer` (`ContractError`). A
 * call that ignores the signal goes on after its timeout, and rge cannot stop it; what it holds (a
 * timer, a socket) does not keep `rge` up once the command is done (src/cli/main.ts `endWhenDone`). A
 * function that never yields (a synchronous endless loop) cannot be timed out in-process: such a
 * system belongs behind the command or HTTP way in.
 */
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage, RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import {
  ContractError,
  checkAnswer,
  type SystemAnswer,
  type SystemAnswerInput,
  type SystemQuestion,
  type SystemUnderTest,
} from './contract.ts';
import { SystemFailure } from './failure.ts';

/** What a module system exports: a function from a question to its answer. */
export type SystemFunction = (
  question: SystemQuestion,
  opts: { signal: AbortSignal },
) => SystemAnswerInput | Promise<SystemAnswerInput>;

export interface ModuleSystemOptions {
  /** the module's absolute path: .ts, .mts, .cts, .js, .mjs or .cjs */
  file: string;
  /** the export to call; default `default` */
  exportName?: string;
  /** how long one answer may take */
  timeoutMs: number;
}

const EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);

/**
 * The system a module's exported function is. A missing or unreadable file, one that fails to load, and
 * an export that is missing or not a function are errors naming the file and the export: the run's
 * pre-flight, before the first question.
 */
export async function loadModuleSystem(
  opts: ModuleSystemOptions,
): Promise<SystemUnderTest & { version: string }> {
  const { file, timeoutMs } = opts;
  const exportName = opts.exportName ?? 'default';
  if (!isAbsolute(file)) throw new RgeError('a module system is named by an absolute path', { file });
  if (!EXTENSIONS.has(extname(file)))
    throw new RgeError(`a module system is a ${[...EXTENSIONS].join(', ')} file`, { file });
  const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
    const why = err.code === 'ENOENT' ? 'not found' : `cannot be read (${err.message})`;
    throw new RgeError(`the module system's file is ${why}`, { file });
  });
  const fn = exportedFunction(await importModule(file), file, exportName);
  const system = `module ${file}${exportName === 'default' ? '' : ` (export ${exportName})`}`;
  return {
    kind: 'module',
    version: sha256(bytes),
    answer: (question, call = {}) => callFunction(fn, question, { system, timeoutMs, signal: call.signal }),
  };
}

/** The module's namespace, loaded by Node through tsx's namespaced hooks. */
async function importModule(file: string): Promise<unknown> {
  try {
    const { tsImport } = await import('tsx/esm/api');
    return await tsImport(pathToFileURL(file).href, import.meta.url);
  } catch (err) {
    throw new RgeError(`the module system's file failed to load: ${errorMessage(err)}`, { file, cause: err });
  }
}

/**
 * The export named `exportName`. A module Node loads as CommonJS (a .cts or .cjs file, or a .ts or .js
 * file in a package that is not `"type": "module"`) shows its `module.exports` as `default`: when that
 * is a transpiled ES module (`__esModule`), its own exports are the module's.
 */
function exportedFunction(namespace: unknown, file: string, exportName: string): SystemFunction {
  const exports = namespace as Record<string, unknown>;
  const cjs = exports.default as Record<string, unknown> | null | undefined;
  const fromCjs = cjs !== null && typeof cjs === 'object' && cjs.__esModule === true;
  const value = fromCjs ? cjs[exportName] : exports[exportName];
  if (typeof value === 'function') return value as SystemFunction;
  const names = Object.keys(fromCjs ? cjs : exports).filter((n) => n !== '__esModule');
  const what =
    value === undefined
      ? `has no export ${JSON.stringify(exportName)} (its exports: ${names.join(', ') || 'none'})`
      : `exports ${JSON.stringify(exportName)} as ${value === null ? 'null' : typeof value}, not a function`;
  throw new RgeError(
    `the module system ${what}; it must export a function (question) => answer (exportName names it)`,
    { file },
  );
}

/**
 * One question through the function: its checked answer, or the question's failure. The function's
 * signal is made when it first reads it (`lazySignal`).
 */
async function callFunction(
  fn: SystemFunction,
  question: SystemQuestion,
  ctx: { system: string; timeoutMs: number; signal: AbortSignal | undefined },
): Promise<SystemAnswer> {
  const { system, timeoutMs, signal } = ctx;
  signal?.throwIfAborted();
  const own = lazySignal();
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const failure = new SystemFailure(system, question.id, `no answer within ${timeoutMs} ms`);
      own.abort(failure);
      reject(failure);
    }, timeoutMs);
    onAbort = () => {
      own.abort(signal?.reason);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const called = new Promise<unknown>((resolve) => resolve(fn({ ...question }, own.options)));
    return checkAnswer(question.id, await Promise.race([called, stopped]));
  } catch (err) {
    if (err instanceof SystemFailure || err instanceof ContractError || signal?.aborted) throw err;
    throw new SystemFailure(system, question.id, `the function threw: ${errorMessage(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The function's `{ signal }`, whose AbortController is made when the function first reads it (made
 * aborted when the call was stopped before). Most functions never read it, and an AbortController is
 * about 2 us to make and collect: a fifth of the whole call of a function that answers in microseconds
 * (bench/system.bench.ts).
 */
function lazySignal(): { options: { readonly signal: AbortSignal }; abort(reason: unknown): void } {
  let controller: AbortController | undefined;
  let stopped: { reason: unknown } | undefined;
  return {
    options: {
      get signal() {
        if (!controller) {
          controller = new AbortController();
          if (stopped) controller.abort(stopped.reason);
        }
        return controller.signal;
      },
    },
    abort(reason) {
      stopped ??= { reason };
      controller?.abort(reason);
    },
  };
}
