/**
 * pdf.js with rge's speed edits (docs/adr/0024-pdfjs-patched-copies.md). Under Node, pdf.js runs its
 * "worker" (the parser and `getTextContent`, pdfjs-dist/build/pdf.worker.mjs) in the thread that calls
 * it, and takes the module it finds at `globalThis.pdfjsWorker` when there is one; its API side is
 * build/pdf.mjs. rge loads copies of both files with its edits (pdfjs-edits.ts, where each edit says
 * what it does and why), written once into node_modules/.cache/rge under the hash of the original and of
 * the edits (a changed pdfjs-dist or a changed edit gives a new file; a stale one is never run).
 *
 * Each edit must find its text exactly once, and both copies are made or neither; if not (another
 * pdfjs-dist, a cache that cannot be written), pdfjs-dist's own files run: the same text, slower, and
 * rge says so once on stderr, naming the edit (`sayPdfjsFallback`). test/corpus/pdfjs-patches.test.ts
 * fails when an edit does not apply to the pinned pdfjs-dist.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RgeError } from '../util/errors.ts';
import { sha256, writeFileAtomic } from '../util/fs.ts';
import { MAIN_EDITS, type SourceEdit, WORKER_EDITS } from './pdfjs-edits.ts';

/** `source` with every edit applied; throws naming the first edit whose text is not there exactly once. */
export function applyEdits(source: string, edits: readonly SourceEdit[], what = 'pdf.worker.mjs'): string {
  let out = source;
  for (const edit of edits) {
    const at = out.indexOf(edit.find);
    if (at < 0 || out.indexOf(edit.find, at + 1) >= 0) {
      throw new RgeError(
        `${what}: the patch "${edit.name}" ${at < 0 ? 'does not find its text' : 'finds its text more than once'}`,
      );
    }
    out = out.slice(0, at) + edit.replace + out.slice(at + edit.find.length);
  }
  return out;
}

const require = createRequire(import.meta.url);
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/rge/', import.meta.url));

/** The original worker module's path (pdfjs-dist's build/pdf.worker.mjs). */
export function originalWorkerPath(): string {
  return require.resolve('pdfjs-dist/build/pdf.worker.mjs');
}

/** The original API module's path (pdfjs-dist's build/pdf.mjs). */
export function originalMainPath(): string {
  return require.resolve('pdfjs-dist/build/pdf.mjs');
}

/**
 * The path of the patched copy of the module at `original`, written on first use under the hash of
 * the original and of the edits; throws when it cannot be made (an edit does not apply, the cache
 * cannot be written).
 */
export async function patchedCopy(
  original: string,
  edits: readonly SourceEdit[],
  prefix: string,
): Promise<string> {
  const source = await readFile(original, 'utf8');
  const key = sha256(`${sha256(source)}\n${JSON.stringify(edits)}`).slice(0, 16);
  const path = join(CACHE, `${prefix}-${key}.mjs`);
  // written whole or not at all (writeFileAtomic), so a file under the name is the patched code
  if (!existsSync(path)) await writeFileAtomic(path, applyEdits(source, edits, basename(original)));
  return path;
}

/** The patched copies of pdf.js's two modules: both, or a throw (then neither is used). */
export async function patchedPdfjs(): Promise<{ main: string; worker: string }> {
  const [main, worker] = await Promise.all([
    patchedCopy(originalMainPath(), MAIN_EDITS, 'pdfjs-main'),
    patchedCopy(originalWorkerPath(), WORKER_EDITS, 'pdfjs-worker'),
  ]);
  return { main, worker };
}

let fallbackSaid = false;

/**
 * Says on stderr, once a process, that pdf.js runs pdfjs-dist's own files because rge's patched copies
 * could not be made, and why (`reason`: the edit whose text is not found, the cache that cannot be
 * written). pdfjs.ts calls it in the main thread; a corpus thread passes its reason on with its replies
 * (pdf-worker.ts) and the pool says it here (workers.ts), so that a pool of threads says it once.
 */
export function sayPdfjsFallback(reason: string): void {
  if (fallbackSaid) return;
  fallbackSaid = true;
  process.stderr.write(
    `rge: pdf.js runs pdfjs-dist's own files, not rge's patched copies (the same text, slower; RGE_PDFJS_PATCHES=0 chooses them without this message): ${reason}\n`,
  );
}
