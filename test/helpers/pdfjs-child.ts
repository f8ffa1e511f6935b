/**
 * A fresh Node process for the tests of rge's pdf.js edits (test/corpus/pdfjs-patches*.test.ts), in
 * which pdf.js runs pdfjs-dist's own worker code, rge's patched copies, or its own files by choice.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { originalWorkerPath } from '../../src/corpus/pdfjs-patches.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

export interface ChildRun {
  stdout: string;
  stderr: string;
}

export interface ChildOptions {
  env?: Record<string, string>;
  /** a module to preload (`--import`) */
  preload?: string;
  /** run without tsx (a body that imports no TypeScript) */
  plain?: boolean;
}

/**
 * Runs `body` (an ES module's code, with `files` the parsed argument) in a fresh Node process in which
 * pdf.js runs its original worker code or rge's patched one, with `env` added; returns what it printed.
 */
export async function inChild(
  which: 'original' | 'patched' | 'patches off',
  files: readonly string[],
  body: string,
  opts: ChildOptions = {},
): Promise<ChildRun> {
  // 'original': a worker module set before pdf.js loads (an embedding application's) is kept;
  // 'patches off': RGE_PDFJS_PATCHES=0
  const script = `
    ${which === 'original' ? `globalThis.pdfjsWorker = await import(${JSON.stringify(originalWorkerPath())});` : ''}
    const files = JSON.parse(process.argv[1]);
    ${body}`;
  const env = { ...process.env, ...opts.env };
  if (which === 'patches off') env.RGE_PDFJS_PATCHES = '0';
  else delete env.RGE_PDFJS_PATCHES;
  const loaders = [
    ...(opts.plain ? [] : ['--import', 'tsx']),
    ...(opts.preload ? ['--import', opts.preload] : []),
  ];
  return run(process.execPath, [...loaders, '--input-type=module', '-e', script, JSON.stringify(files)], {
    cwd: ROOT,
    env,
    maxBuffer: 1 << 30,
  });
}
