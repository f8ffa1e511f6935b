/**
 * `node --import ./test/cli/record-loads.mjs ...` with RGE_RECORD_LOADS=FILE: appends to FILE every
 * module the process loads, one a line: each URL the ESM loader resolves (through a module hook, so
 * packages imported from ESM are caught wherever they are) and, at exit, every CommonJS file in
 * require's cache (packages that require() each other). test/cli/startup.test.ts reads it.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const out = process.env.RGE_RECORD_LOADS;
if (out) {
  register('./record-loads-hooks.mjs', import.meta.url, { data: { out } });
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    appendFileSync(
      out,
      Object.keys(require.cache)
        .map((file) => `${file}\n`)
        .join(''),
    );
  });
}
