/** Types of scripts/esbuild.mjs, for src/util/bundle.ts. */
export interface EsbuildPlugin {
  name: string;
  setup(build: unknown): void;
}
export interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles?: { text: string }[] }>;
}
export function esbuildFromTsx(): Esbuild;
export function ownImportMetaUrl(urlOf: (path: string) => string): EsbuildPlugin;
