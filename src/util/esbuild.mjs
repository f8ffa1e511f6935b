/**
 * What the dist build (scripts/build-dist.mjs) and the runtime bundles (src/util/bundle.ts) share:
 * esbuild, reached through tsx's own dependency (esbuild is not one of ours), and the plugin that keeps
 * each bundled source's `import.meta.url` its own file's URL, so what a module reads beside itself
 * (prompts, page assets, the PDF worker, package.json) resolves as under tsx.
 *
 * Plain JavaScript (typed by esbuild.d.mts beside it) because scripts/build-dist.mjs runs under bare
 * node at `npm ci` (the `prepare` script), before anything could load TypeScript; it lives in src/ so
 * that src/ imports nothing outside src/ (.dependency-cruiser.cjs, src-imports-nothing-outside-src).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The esbuild tsx depends on. */
export function esbuildFromTsx() {
  const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  return fromTsx('esbuild');
}

/**
 * An esbuild plugin replacing `import.meta.url` in each TypeScript source with the expression
 * `urlOf(path)` returns for that source's absolute path.
 */
export function ownImportMetaUrl(urlOf) {
  return {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        return { contents: source.replaceAll('import.meta.url', urlOf(args.path)), loader: 'ts' };
      });
    },
  };
}
