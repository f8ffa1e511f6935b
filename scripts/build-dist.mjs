#!/usr/bin/env node
/**
 * `npm run build` (also the `prepare` script, so `npm ci` runs it): bundles the CLI, src/cli/main.ts
 * and everything of ours it imports, into dist/ with esbuild (the one tsx runs on), packages left as
 * imports. Each `await import()` of a command's implementation becomes its own chunk, so `rge --version`
 * reads only the small entry. dist/manifest.json records the sha1 of every source file in the bundle;
 * bin/rge.mjs runs the bundle only while they all match and falls back to the sources through tsx
 * otherwise (docs/adr/0012-cli-start-up.md).
 *
 * In the bundle, `import.meta.url` of each source file is that file's own URL (src/...), so the paths
 * our modules resolve beside themselves (prompts, page assets, the PDF worker, package.json) are the
 * same as under tsx.
 *
 * Usage: node scripts/build-dist.mjs [OUT_DIR]   (default dist/)
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { esbuildFromTsx, ownImportMetaUrl } from '../src/util/esbuild.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const ENTRY = 'src/cli/main.ts';
/** Files that change what esbuild emits without being bundled. */
const EXTRA_INPUTS = ['tsconfig.json'];

const sha1 = (file) =>
  createHash('sha1')
    .update(readFileSync(resolve(root, file)))
    .digest('hex');

/** Builds the bundle into `outdir`; returns the manifest written beside it. */
export async function buildDist(outdir = resolve(root, 'dist')) {
  const esbuild = esbuildFromTsx();
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  // every output file is directly in outdir (no chunk folders), so one relative path fits all
  const ownUrl = ownImportMetaUrl((path) => {
    const fromOut = relative(outdir, path).split('\\').join('/');
    return `new URL(${JSON.stringify(fromOut)}, import.meta.url).href`;
  });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: ENTRY },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    metafile: true,
    logLevel: 'warning',
    plugins: [ownUrl],
  });
  const sources = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/'));
  const inputs = Object.fromEntries([...sources, ...EXTRA_INPUTS].sort().map((f) => [f, sha1(f)]));
  const manifest = { entry: 'main.mjs', builtFrom: ENTRY, inputs };
  writeFileSync(resolve(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const outdir = process.argv[2] ? resolve(process.argv[2]) : undefined;
  try {
    const manifest = await buildDist(outdir);
    const where = relative(process.cwd(), outdir ?? resolve(root, 'dist')) || '.';
    process.stderr.write(`rge: built ${where} from ${Object.keys(manifest.inputs).length} source files\n`);
  } catch (err) {
    // never fail an install over it: without dist/ bin/rge.mjs runs the sources through tsx
    process.stderr.write(
      `rge: no bundle built (${err instanceof Error ? err.message : err}); rge runs through tsx\n`,
    );
    process.exitCode = process.env.RGE_BUILD_STRICT ? 1 : 0;
  }
}
