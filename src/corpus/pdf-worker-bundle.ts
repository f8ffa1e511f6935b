/**
 * The PDF worker thread's code as one JavaScript file. Started from the TypeScript sources, a worker
 * has to register tsx in its own thread (which starts a loader thread of its own) and transpile and
 * source-map pdf-worker.ts and everything it imports: about 3 s of CPU before the first page, for
 * every worker of every ingest. Instead, esbuild (the one tsx runs on) bundles the worker once per
 * process, about 0.1 s, into node_modules/.cache/rge/pdf-worker-<sha256 of the code>.mjs, packages
 * left as imports (they resolve from node_modules, beside the file). The name is the content's hash,
 * so a changed source gives a new file and a stale one is never run. If esbuild or the write fails,
 * `bundledPdfWorker` returns null and the worker starts from the sources through tsx as before.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sha256, writeFileAtomic } from '../util/fs.ts';

const SOURCE = fileURLToPath(new URL('./pdf-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the bundles are written (gitignored with node_modules; packages resolve from there). */
export const PDF_WORKER_CACHE = join(ROOT, 'node_modules', '.cache', 'rge');

interface EsbuildPlugin {
  name: string;
  setup(build: {
    onLoad(
      o: { filter: RegExp },
      cb: (a: { path: string }) => { contents: string; loader: 'ts' } | undefined,
    ): void;
  }): void;
}
interface Esbuild {
  build(o: Record<string, unknown>): Promise<{ outputFiles: { text: string }[] }>;
}

let built: Promise<string | null> | null = null;

/** The bundled worker's path (built on first call in this process), or null to use the sources. */
export function bundledPdfWorker(): Promise<string | null> {
  built ??= buildWorker().catch(() => null);
  return built;
}

async function buildWorker(): Promise<string> {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  const esbuild = fromTsx('esbuild') as Esbuild;
  // Each source's `import.meta.url` stays its own file's URL, as under tsx (pdf.js assets resolve
  // beside the sources that name them).
  const ownUrl: EsbuildPlugin = {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const own = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: source.replaceAll('import.meta.url', own), loader: 'ts' };
      });
    },
  };
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [SOURCE],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
    plugins: [ownUrl],
  });
  const code = result.outputFiles[0]?.text;
  if (!code) throw new Error('esbuild produced no output');
  const file = join(PDF_WORKER_CACHE, `pdf-worker-${sha256(code).slice(0, 16)}.mjs`);
  if (!existsSync(file)) await writeFileAtomic(file, code);
  return file;
}
