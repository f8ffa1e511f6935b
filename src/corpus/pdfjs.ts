/**
 * pdf.js for the corpus workers: the modern build of pdfjs-dist, made to load on Node 20.
 *
 * pdfjs-dist ships a "legacy" build for Node, which is what pdf-parse imports. It carries core-js
 * polyfills that it installs globally, among them a forced replacement of `Array.prototype.push`, and
 * they slow every array push of the thread: about 13% of a page's extraction in a CPU profile, and
 * 7.5 ms a page against the modern build's 5.3 ms for the same text items (docs/adr, "extraction on
 * pdf.js's modern build"). The modern build needs, before it is evaluated, what Node 20 lacks:
 *  - `Promise.withResolvers` and `ArrayBuffer.prototype.transferToFixedLength` (both in Node 22), each
 *    installed only when missing;
 *  - the globals `DOMMatrix`, `Path2D` and `ImageData`, taken where the legacy build takes them:
 *    `@napi-rs/canvas`, pdfjs-dist's optional dependency. They serve drawing only, never text, so
 *    they are installed as getters that load it on first use: the native module and its fonts cost a
 *    corpus thread about 20 MB. pdf.js's own files build a `DOMMatrix` as they load (and so load it);
 *    the patched copies build it when they first draw (pdfjs-patches.ts).
 * It also warns at import that Node should use the legacy build; that one message is dropped, and the
 * console is given back as it was once the module has loaded.
 *
 * The modules loaded are rge's patched copies of pdfjs-dist's two files, with speed edits that leave
 * every text item as it was (pdfjs-patches.ts, docs/adr/0024), or pdfjs-dist's own when the copies
 * cannot be made.
 *
 * Imported only from the worker side (pdf.ts): loading it costs a 2 MB module and sets globals.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { errorMessage, RgeError } from '../util/errors.ts';
import { patchedPdfjs, sayPdfjsFallback } from './pdfjs-patches.ts';

export type PdfJs = typeof import('pdfjs-dist');

/** What the modern build prints at import under Node, through `console.warn`. */
const LEGACY_BUILD_WARNING = 'Warning: Please use the `legacy` build in Node.js environments.';

function define(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
}

/** ES2024's `Promise.withResolvers`: a promise with its resolve and reject functions. */
export function withResolvers<T>(this: PromiseConstructor) {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new this<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * ES2024's `ArrayBuffer.prototype.transferToFixedLength`: a new buffer holding this one's bytes (cut
 * or zero-filled to `length`), this one detached. pdf.js uses it to trim a buffer it has filled.
 */
export function transferToFixedLength(this: ArrayBuffer, length?: number): ArrayBuffer {
  const size = length === undefined ? this.byteLength : Math.trunc(Number(length));
  if (!(size >= 0) || size > Number.MAX_SAFE_INTEGER)
    throw new RangeError(`invalid array buffer length ${length}`);
  // moving the bytes by transfer detaches this buffer without copying them
  const moved = structuredClone(this, { transfer: [this] });
  if (size === moved.byteLength) return moved;
  const out = new ArrayBuffer(size);
  new Uint8Array(out).set(new Uint8Array(moved, 0, Math.min(size, moved.byteLength)));
  return out;
}

function installPolyfills(): void {
  if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
    define(Promise, 'withResolvers', withResolvers);
  }
  if (
    typeof (ArrayBuffer.prototype as { transferToFixedLength?: unknown }).transferToFixedLength !== 'function'
  ) {
    define(ArrayBuffer.prototype, 'transferToFixedLength', transferToFixedLength);
  }
  const missing = CANVAS_GLOBALS.filter(
    (name) => (globalThis as Record<string, unknown>)[name] === undefined,
  );
  if (missing.length === 0) return;
  // each a getter that loads @napi-rs/canvas on first use and then becomes the plain value
  for (const name of missing) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      enumerable: false,
      get: () => {
        const canvas = loadCanvas(missing);
        for (const n of missing) define(globalThis, n, canvas[n]);
        return canvas[name];
      },
      set: (value: unknown) => define(globalThis, name, value),
    });
  }
}

/** What pdf.js's API module takes from the browser for drawing, and @napi-rs/canvas gives on Node. */
const CANVAS_GLOBALS = ['DOMMatrix', 'Path2D', 'ImageData'] as const;

/** @napi-rs/canvas, resolved from pdfjs-dist (its optional dependency, as its legacy build loads it). */
function loadCanvas(missing: readonly string[]): Record<string, unknown> {
  try {
    const fromPdfjs = createRequire(createRequire(import.meta.url).resolve('pdfjs-dist'));
    return fromPdfjs('@napi-rs/canvas') as Record<string, unknown>;
  } catch (err) {
    throw new RgeError(
      `pdf.js needs ${missing.join(', ')}, which @napi-rs/canvas provides, and it cannot be loaded; run npm ci`,
      { cause: err },
    );
  }
}

let patched = false;
let fallback: string | null = null;

/** Whether pdf.js runs rge's patched code in this thread (then text styles carry `rgeFontName`). */
export function workerPatched(): boolean {
  return patched;
}

/**
 * Why pdf.js runs pdfjs-dist's own files in this thread although rge's patched copies were wanted (the
 * edit whose text is not found, the cache that cannot be written), or null.
 */
export function pdfjsFallback(): string | null {
  return fallback;
}

/** `RGE_PDFJS_PATCHES=0` runs pdfjs-dist's own files (to compare, or should a patch be in doubt). */
export const PATCHES_ENV = 'RGE_PDFJS_PATCHES';

/**
 * pdf.js's API module: rge's patched copy (pdfjs-patches.ts), its worker code put where pdf.js looks
 * for the module it runs in this thread, unless a module is there already (an embedding application's
 * choice is kept, and then pdfjs-dist's own files are used) or RGE_PDFJS_PATCHES is 0. When the copies
 * cannot be made, pdfjs-dist's own files: the same text, slower, and said once on stderr with the reason
 * (by the main thread; a corpus thread passes it on with its replies, pdf-worker.ts).
 */
async function importPdfJs(): Promise<PdfJs> {
  const globals = globalThis as Record<string, unknown>;
  if (globals.pdfjsWorker === undefined && process.env[PATCHES_ENV] !== '0') {
    let paths: { main: string; worker: string } | null = null;
    try {
      paths = await patchedPdfjs();
    } catch (err) {
      // pdfjs-dist's own files
      fallback = errorMessage(err);
      if (isMainThread) sayPdfjsFallback(fallback);
    }
    if (paths) {
      globals.pdfjsWorker = await import(pathToFileURL(paths.worker).href);
      const main: PdfJs = await import(pathToFileURL(paths.main).href);
      patched = true;
      return main;
    }
  }
  return import('pdfjs-dist');
}

async function loadPdfJs(): Promise<PdfJs> {
  installPolyfills();
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (args.length === 1 && args[0] === LEGACY_BUILD_WARNING) return;
    warn.apply(console, args);
  };
  try {
    return await importPdfJs();
  } finally {
    console.warn = warn;
  }
}

/** pdfjs-dist's modern build, loaded once per thread. */
export const pdfjs: PdfJs = await loadPdfJs();
