/**
 * The index a run config names. It is used only when it was built the way the config asks: the same
 * embedder (and its parameters), chunk size, overlap, extraction mode and documents (each PDF's
 * sha256). A generated corpus (the fixture world) is built on first use, and rebuilt in place when it
 * is stale (its documents, extractor or chunker changed), so commands and the eval suite work on a
 * fresh clone and follow the world; but an index built with other SETTINGS (embedder, chunking,
 * tables) is another config's, and a run never replaces it as a side effect: that is an error naming
 * every difference, the remedy being a folder of its own or an explicit `rge corpus ingest --config`
 * (`replace`). A fetched corpus is never ingested implicitly (that is `rge corpus ingest`'s job) and a
 * disagreeing index is an error that names every difference. Builds take a lock, so parallel workers
 * or commands build it once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadSources } from '../../corpus/sources.ts';
import { CHUNKER_VERSION, chunkerId, EXTRACTOR_VERSION } from '../../corpus/version.ts';
import { bgeM3Weights, corpusEmbedderOptions } from '../../retrieval/config.ts';
import {
  bgeM3WeightsOf,
  fusionRecord,
  type IndexManifest,
  readIndexManifest,
} from '../../retrieval/index.ts';
import { RgeError } from '../../util/errors.ts';
import { sha256File } from '../../util/fs.ts';
import { withFileLock } from '../../util/lock.ts';
import type { Progress } from '../../util/progress.ts';
import { type RunConfig, withCorpus } from './config.ts';

export const DEFAULT_CACHE_DIR = '.cache/rge';

export function indexExists(dir: string): boolean {
  return existsSync(join(dir, 'manifest.json'));
}

/** What a config expects of its index. */
export interface ExpectedIndex {
  embedder: string;
  /** the embedder's output-changing parameters the config sets (hybrid fusion), null when none */
  embedderParameters: Readonly<Record<string, string | number | boolean | null>> | null;
  /** bge-m3's weights when bge-m3 runs (alone or as the hybrid's dense half), else null */
  bgeM3Weights: 'fp32' | 'int8' | null;
  chunkTokens: number;
  overlapTokens: number;
  tables: 'auto' | 'always' | 'never';
  extractor: string;
  /** the chunker this rge has (src/corpus/version.ts) */
  chunker: string;
  /** source file name -> the sha256 of the PDF that would be ingested now (null: the PDF is absent) */
  documents: ReadonlyMap<string, string | null> | null;
}

/** The config's expectations; documents are hashed from the PDFs on disk (absent ones are null). */
export async function expectedIndex(
  runConfig: RunConfig,
  at: (path: string) => string,
): Promise<ExpectedIndex> {
  const config = withCorpus(runConfig, "rge's index");
  const pdfDir = at(config.corpus.pdfs);
  let files: string[] | null = null;
  if (config.corpus.sources)
    files = (await loadSources(at(config.corpus.sources))).documents.map((d) => d.file);
  const documents = new Map<string, string | null>();
  for (const file of files ?? []) {
    const path = join(pdfDir, file);
    documents.set(file, existsSync(path) ? await sha256File(path) : null);
  }
  const { hybrid } = corpusEmbedderOptions(config.corpus);
  return {
    embedder: config.corpus.embedder,
    embedderParameters: hybrid ? fusionRecord(hybrid) : null,
    bgeM3Weights: bgeM3Weights(config.corpus),
    chunkTokens: config.corpus.chunk_tokens,
    overlapTokens: config.corpus.overlap_tokens,
    tables: config.corpus.tables,
    extractor: `rge-extract@${EXTRACTOR_VERSION}`,
    chunker: chunkerId(CHUNKER_VERSION),
    documents: files ? documents : null,
  };
}

/**
 * Every way an index differs from what a config expects, as "field: index X, config Y" lines; empty
 * when it may be used. `pdfDir` is where the index's documents are checked when the config lists none
 * (a generated corpus): each must still be there with the same sha256.
 */
export async function indexIdentityDifferences(
  manifest: IndexManifest,
  expected: ExpectedIndex,
  pdfDir: string,
): Promise<string[]> {
  const out: string[] = [];
  if (manifest.embedder.name !== expected.embedder)
    out.push(`embedder: index ${manifest.embedder.name}, config ${expected.embedder}`);
  else if (expected.embedderParameters) {
    const had = manifest.embedder.parameters ?? {};
    for (const [key, want] of Object.entries(expected.embedderParameters))
      if (had[key] !== want) out.push(`embedder ${key}: index ${had[key] ?? 'unset'}, config ${want}`);
  }
  if (expected.bgeM3Weights) {
    const weights = bgeM3WeightsOf(manifest);
    if (weights !== expected.bgeM3Weights)
      out.push(`bge-m3 weights: index ${weights ?? 'unknown'}, config ${expected.bgeM3Weights}`);
  }
  const corpus = manifest.corpus;
  if (corpus === null) {
    out.push(
      'provenance: the index was built before rge recorded chunking, extraction and documents (format 1)',
    );
    return out;
  }
  if (corpus.chunking.chunkTokens !== expected.chunkTokens)
    out.push(`chunk_tokens: index ${corpus.chunking.chunkTokens}, config ${expected.chunkTokens}`);
  if (corpus.chunking.overlapTokens !== expected.overlapTokens)
    out.push(`overlap_tokens: index ${corpus.chunking.overlapTokens}, config ${expected.overlapTokens}`);
  if (corpus.extraction.tables !== expected.tables)
    out.push(`tables: index ${corpus.extraction.tables}, config ${expected.tables}`);
  if (corpus.extraction.extractor !== expected.extractor)
    out.push(`extractor: index ${corpus.extraction.extractor}, this rge ${expected.extractor}`);
  const chunker = corpus.chunking.chunker ?? chunkerId(1);
  if (chunker !== expected.chunker) out.push(`chunker: index ${chunker}, this rge ${expected.chunker}`);
  const indexed = new Map(corpus.documents.map((d) => [d.source, d.sha256]));
  // the documents as they are now: the config's sources, else the index's own PDFs in pdfDir
  let current = expected.documents;
  if (!current) {
    const onDisk = new Map<string, string | null>();
    for (const source of indexed.keys()) {
      const path = join(pdfDir, source);
      onDisk.set(source, existsSync(path) ? await sha256File(path) : null);
    }
    current = onDisk;
  }
  for (const [source, sha] of current) {
    const had = indexed.get(source);
    if (had === undefined && sha !== null) out.push(`documents: ${source} is present but not in the index`);
    else if (had !== undefined && sha === null)
      out.push(`documents: ${source} is in the index but its PDF is gone`);
    else if (had !== undefined && sha !== null && had !== sha)
      out.push(`documents: ${source} changed (index sha256 ${had.slice(0, 12)}, now ${sha.slice(0, 12)})`);
  }
  for (const source of indexed.keys())
    if (!current.has(source)) out.push(`documents: ${source} is in the index, not in the sources`);
  return out;
}

export interface EnsureCorpusIndexOptions {
  cacheDir?: string;
  /** notices, and the build's progress lines when `progress` is not given */
  log?: (line: string) => void;
  /**
   * one progress per build stage (extract, embed), e.g. a bar on a terminal; without it a build
   * reports through `log` in plain lines with an ETA (at most one every `progressEveryMs`, default
   * 5 s, and the last)
   */
  progress?: (stage: string, total: number) => Progress;
  progressEveryMs?: number;
  /** the config's file, as the user named it: for a message that says what to run first */
  configFile?: string;
  /**
   * rebuild a generated corpus's index built with other settings than the config's (`rge corpus ingest
   * --config`, which is asked to); without it such an index is an error and is left as it is
   */
  replace?: boolean;
}

/** The differences of indexIdentityDifferences that are the config's choice, not staleness. */
const SETTINGS = ['embedder', 'bge-m3 weights', 'chunk_tokens', 'overlap_tokens', 'tables'];
const isSetting = (difference: string) => SETTINGS.some((f) => difference.startsWith(`${f}`));

/**
 * Refuses to rebuild a generated corpus's index that was built with other settings than the config
 * asks (another config's index, e.g. configs/fixture.yaml's bm25 index under a run that asks for
 * use-lite): it names the differences and both remedies, and leaves the index as it is.
 */
export function refuseOtherSettings(
  runConfig: RunConfig,
  differences: readonly string[],
  configFile: string | undefined,
): void {
  const config = withCorpus(runConfig, "rge's index");
  const settings = differences.filter(isSetting);
  if (settings.length === 0) return;
  const index = config.corpus.index.replace(/\/+$/, '');
  throw new RgeError(
    `the index at ${index} was built with other settings than this run asks (${settings.join('; ')}); ` +
      'a run does not replace an index built for another config, so nothing was changed. ' +
      `Give this run an index folder of its own (e.g. --set corpus.index=${index}-${config.corpus.embedder}), ` +
      `or rebuild this one for this config with \`rge corpus ingest --config ${configFile ?? '<this config>'}\``,
  );
}

/**
 * What builds a config's index, for a message that says what to run first: the fixture world builds
 * its own (`rge fixtures build`, or on first use); a fetched corpus is fetched, then ingested.
 */
export function buildIndexHint(runConfig: RunConfig, configFile = '<this config>'): string {
  const config = withCorpus(runConfig, "rge's index", configFile);
  return config.corpus.generated_from
    ? `\`rge fixtures build\` (or any run of ${configFile}, which builds it on first use)`
    : `\`rge corpus fetch\` (the PDFs ${config.corpus.pdfs} pinned in ${config.corpus.sources ?? 'sources.yaml'}), then \`rge corpus ingest --config ${configFile}\``;
}

/**
 * How the config's index differs from what the config asks (indexIdentityDifferences); null when there
 * is no index. `at` resolves the config's paths (relative to the folder rge runs in).
 */
export async function indexDifferences(
  runConfig: RunConfig,
  at: (path: string) => string,
): Promise<string[] | null> {
  const config = withCorpus(runConfig, "rge's index");
  const manifest = await readIndexManifest(at(config.corpus.index));
  if (!manifest) return null;
  return indexIdentityDifferences(manifest, await expectedIndex(config, at), at(config.corpus.pdfs));
}

/**
 * Makes sure the config's index exists and was built the way the config asks. `at` resolves the
 * config's paths (relative to the folder rge runs in). Returns whether it (re)built the index.
 */
export async function ensureCorpusIndex(
  runConfig: RunConfig,
  at: (path: string) => string,
  opts: EnsureCorpusIndexOptions = {},
): Promise<boolean> {
  const config = withCorpus(runConfig, "rge's index", opts.configFile);
  const indexDir = at(config.corpus.index);
  const differences = () => indexDifferences(config, at);
  const before = await differences();
  if (before !== null && before.length === 0) return false;
  if (!config.corpus.generated_from) {
    const ingestCommand = `rge corpus ingest --config ${opts.configFile ?? '<this config>'}`;
    if (before === null)
      throw new RgeError(
        `no index at ${indexDir}; build it first: ${buildIndexHint(config, opts.configFile)}`,
      );
    throw new RgeError(
      `the index at ${indexDir} was not built the way ${config.name}'s config asks:\n` +
        `${before.map((d) => `  ${d}`).join('\n')}\n` +
        `rebuild it with \`${ingestCommand}\` (or point corpus.index at another folder)`,
    );
  }
  if (before !== null && !opts.replace) refuseOtherSettings(config, before, opts.configFile);
  return withFileLock(
    `${indexDir}.build`,
    async () => {
      // another process may have built it while this one waited for the lock
      const now = await differences();
      if (now !== null && now.length === 0) return false;
      if (now !== null && !opts.replace) refuseOtherSettings(config, now, opts.configFile);
      opts.log?.(
        now === null
          ? `building the ${config.name} corpus and index (first use) ...`
          : `rebuilding the ${config.name} index at ${config.corpus.index}: ${now.join('; ')} ...`,
      );
      // PDF generation and the embedders are heavy to load: only a build pays for them.
      const { buildFixtureCorpus, loadFacts } = await import('../../fixtures/build.ts');
      const { createLineProgress, stageProgress } = await import('../../util/progress.ts');
      const log = opts.log;
      const make =
        opts.progress ??
        (log
          ? (stage: string, total: number) =>
              createLineProgress({
                total,
                label: `  ${stage}`,
                write: log,
                lineEveryMs: opts.progressEveryMs ?? 5000,
              })
          : null);
      await buildFixtureCorpus({
        facts: await loadFacts(at(config.corpus.generated_from as string)),
        pdfDir: at(config.corpus.pdfs),
        indexDir,
        embedder: config.corpus.embedder,
        embedderOptions: corpusEmbedderOptions(config.corpus),
        cacheDir: at(opts.cacheDir ?? DEFAULT_CACHE_DIR),
        chunking: { maxTokens: config.corpus.chunk_tokens, overlapTokens: config.corpus.overlap_tokens },
        tables: config.corpus.tables,
        ...(make ? { onStage: stageProgress(make) } : {}),
      });
      return true;
    },
    { waitMs: 15 * 60_000 },
  );
}
