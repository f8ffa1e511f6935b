/**
 * A preload (`node --import`) for the tests of the fallback to pdfjs-dist's own files: in this thread
 * and in every worker thread (a bundled corpus thread keeps a preload that is not tsx), the name
 * `pdfjs-dist/build/pdf.worker.mjs` resolves, through `require.resolve` (where pdfjs-patches.ts finds
 * the file it patches), to the file at RGE_TEST_PDFJS_WORKER, as another pdfjs-dist's would. pdf.js
 * itself still imports its own worker module, by a relative URL. Plain JavaScript: a bundled worker
 * thread runs without tsx.
 */
import Module from 'node:module';

const other = process.env.RGE_TEST_PDFJS_WORKER;
if (!other) throw new Error('pdfjs-other-worker.mjs: set RGE_TEST_PDFJS_WORKER to a file');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'pdfjs-dist/build/pdf.worker.mjs' ? other : resolve.call(this, request, ...rest);
};
