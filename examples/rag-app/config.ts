/**
 * Where rag-app finds its corpus, its prompt and its cache: a command-line flag, else an environment
 * variable, else the default (paths relative to the working directory; defaults relative to the
 * repository). The module entry (app.ts) runs inside the caller's process, so it reads the environment
 * only.
 *
 * | flag | variable | default |
 * |---|---|---|
 * | `--corpus DIR` | `RAG_APP_CORPUS` | `fixtures/generated/pdfs` |
 * | `--prompt FILE` | `RAG_APP_PROMPT` | `examples/rag-app/prompt.md` |
 * | `--cache DIR` | `RAG_APP_CACHE` | `.cache/rag-app` |
 * | `--port N` (server) | `RAG_APP_PORT` | 8787 (0: a free port) |
 * | `--pool` (cli) | | one question, then exit |
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RagAppOptions } from './rag.ts';

const APP_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = resolve(APP_DIR, '../..');

export const DEFAULT_PORT = 8787;

/** A command line or environment rag-app cannot run with (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The app's options from the environment alone (the module entry's way). */
export function optionsFromEnv(env: NodeJS.ProcessEnv): RagAppOptions {
  return {
    corpus: resolve(env.RAG_APP_CORPUS || join(ROOT, 'fixtures/generated/pdfs')),
    prompt: resolve(env.RAG_APP_PROMPT || join(APP_DIR, 'prompt.md')),
    cache: resolve(env.RAG_APP_CACHE || join(ROOT, '.cache/rag-app')),
  };
}

export interface CommandLine {
  options: RagAppOptions;
  port: number;
  pool: boolean;
}

function portFrom(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--port: a port number 0-65535, not ${text}`);
  return port;
}

const FLAGS = {
  corpus: { type: 'string' },
  prompt: { type: 'string' },
  cache: { type: 'string' },
  port: { type: 'string' },
  pool: { type: 'boolean' },
} as const;

/** The options of a command line (flags beat the environment); `accepts` names the entry's own flags. */
export function commandLine(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  accepts: { port?: boolean; pool?: boolean } = {},
): CommandLine {
  let values: ReturnType<typeof parseArgs<{ options: typeof FLAGS }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.port !== undefined && !accepts.port) throw new UsageError('--port is a flag of server.ts');
  if (values.pool !== undefined && !accepts.pool) throw new UsageError('--pool is a flag of cli.ts');
  const fromEnv = optionsFromEnv(env);
  return {
    options: {
      corpus: values.corpus ? resolve(values.corpus) : fromEnv.corpus,
      prompt: values.prompt ? resolve(values.prompt) : fromEnv.prompt,
      cache: values.cache ? resolve(values.cache) : fromEnv.cache,
    },
    port: portFrom(values.port ?? env.RAG_APP_PORT ?? String(DEFAULT_PORT)),
    pool: values.pool === true,
  };
}

/** Runs an entry's main: a usage error exits 2, any other failure 1, each with its message on stderr. */
export async function runMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (e) {
    const message = (e as Error).message;
    process.stderr.write(`${message.startsWith('rag-app:') ? message : `rag-app: ${message}`}\n`);
    process.exitCode = e instanceof UsageError ? 2 : 1;
  }
}
