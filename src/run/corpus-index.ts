/**
 * The index a run config names, built when it is missing and the corpus is generated (the fixture
 * world), so commands and the eval suite work on a fresh clone. A fetched corpus is never ingested
 * implicitly: that is `rge corpus ingest`'s job, and the error says so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RgeError } from '../util/errors.ts';
import { corpusEmbedderOptions, type RunConfig } from './config.ts';

export const DEFAULT_CACHE_DIR = '.cache/rge';

export function indexExists(dir: string): boolean {
  return existsSync(join(dir, 'manifest.json'));
}

/**
 * Makes sure the config's index exists. `at` resolves the config's paths (relative to the folder rge
 * runs in). Returns whether it had to build the index.
 */
export async function ensureCorpusIndex(
  config: RunConfig,
  at: (path: string) => string,
  opts: { cacheDir?: string; log?: (line: string) => void } = {},
): Promise<boolean> {
  const indexDir = at(config.corpus.index);
  if (indexExists(indexDir)) return false;
  if (!config.corpus.generated_from) {
    throw new RgeError(
      `no index at ${indexDir}; build it with \`rge corpus ingest --index ${config.corpus.index} --embedder ${config.corpus.embedder}\``,
    );
  }
  opts.log?.(`building the ${config.name} corpus and index (first use) ...`);
  // PDF generation and the embedders are heavy to load: only a build pays for them.
  const { buildFixtureCorpus, loadFacts } = await import('../fixtures/build.ts');
  await buildFixtureCorpus({
    facts: await loadFacts(at(config.corpus.generated_from)),
    pdfDir: at(config.corpus.pdfs),
    indexDir,
    embedder: config.corpus.embedder,
    embedderOptions: corpusEmbedderOptions(config.corpus),
    cacheDir: at(opts.cacheDir ?? DEFAULT_CACHE_DIR),
    chunking: { maxTokens: config.corpus.chunk_tokens, overlapTokens: config.corpus.overlap_tokens },
  });
  return true;
}
