/** Types of src/util/esbuild.mjs, for src/util/bundle.ts (scripts/build-dist.mjs imports it as plain JavaScript). */
export interface EsbuildPlugin {
  name: string;
  setup(build: unknown): void;
}
export interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles?: { text: string }[] }>;
}
export function esbuildFromTsx(): Esbuild;
export function ownImportMetaUrl(urlOf: (path: string) => string): EsbuildPlugin;
