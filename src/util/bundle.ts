/**
 * A TypeScript entry module (a worker thread, a child process) as one JavaScript file, so that it
 * starts without tsx. A worker started from the sources has to register tsx in its own thread (which
 * starts a loader thread of its own) and transpile and source-map the entry and everything it imports:
 * about 2-3 s of CPU for every worker or child. Instead, esbuild (the one tsx runs on) bundles the
 * entry once per process, about 0.1 s, into node_modules/.cache/rge/<name>-<sha256 of the code>.mjs,
 * packages left as imports (they resolve from node_modules, beside the file). The name is the content's
 * hash, so a changed source gives a new file and a stale one is never run. If esbuild or the write
 * fails, `bundledModule` returns null and the caller starts the sources through tsx.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { esbuildFromTsx, ownImportMetaUrl } from './esbuild.mjs';
import { sha256, writeFileAtomic } from './fs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the bundles are written (gitignored with node_modules; packages resolve from there). */
export const BUNDLE_CACHE = join(ROOT, 'node_modules', '.cache', 'rge');

const built = new Map<string, Promise<string | null>>();

/**
 * The bundle of the TypeScript module at `source` (an absolute path), built on the first call in this
 * process, or null when it could not be built (then run the sources).
 */
export function bundledModule(source: string): Promise<string | null> {
  let file = built.get(source);
  if (!file) {
    file = buildBundle(source).catch(() => null);
    built.set(source, file);
  }
  return file;
}

async function buildBundle(source: string): Promise<string> {
  const esbuild = esbuildFromTsx();
  // each source's `import.meta.url` stays its own file's URL, as under tsx
  const ownUrl = ownImportMetaUrl((path) => JSON.stringify(pathToFileURL(path).href));
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [source],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
    plugins: [ownUrl],
  });
  const code = result.outputFiles?.[0]?.text;
  if (!code) throw new Error('esbuild produced no output');
  const file = join(
    BUNDLE_CACHE,
    `${basename(source).replace(/\.ts$/, '')}-${sha256(code).slice(0, 16)}.mjs`,
  );
  if (!existsSync(file)) await writeFileAtomic(file, code);
  return file;
}
