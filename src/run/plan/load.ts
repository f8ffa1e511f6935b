/**
 * What a front door does before a run is planned: read the request's config, build the fixture world's
 * index when the config generates it (a fresh clone), read the question set and the subject prompt, and
 * learn the providers' identities; then `planRun` (plan.ts). Building the index is its own step
 * (`prepareIndex`), so a front door that has built it (the evals' global setup) does not build it again.
 * A run whose subjects are all systems (a user's own RAG app) reads no index of rge's: none is built.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { priceOf, providerIdentity } from '../../models/registry.ts';
import { loadQuestions } from '../../questions/load.ts';
import { readIndexManifest } from '../../retrieval/index.ts';
import { Reruns } from '../../store/reruns.ts';
import { BUILTIN_SUBJECT_PROMPT, loadSubjectPrompt } from '../../subject/prompt.ts';
import { RgeError } from '../../util/errors.ts';
import { sha256 } from '../../util/fs.ts';
import { type CorpusRunConfig, loadRunConfig, type RunConfig, withCorpus } from '../config/config.ts';
import {
  ensureCorpusIndex,
  indexDifferences,
  indexExists,
  refuseOtherSettings,
} from '../config/corpus-index.ts';
import {
  checkRequest,
  chosenModels,
  type ProviderIdentity,
  planRun,
  type RunPlan,
  resolveFrom,
  usesIndex,
} from './plan.ts';
import type { RunRequest } from './request.ts';

export interface LoadContext {
  /** the folder the request's relative paths are resolved against */
  root: string;
  /** where notices go (an index build's progress) */
  log?: (line: string) => void;
  /** an index build's progress: at most one line this often (default 5 s); Infinity: the last only */
  progressEveryMs?: number;
  /** a dry run: an index that is not built stays unbuilt (the estimate bounds its context) */
  dryRun?: boolean;
  /**
   * a dry run's temporary folder: a generated corpus whose index is missing or stale is built there
   * (PDFs, index, caches) instead of in the config's folders, which the dry run leaves as they are
   */
  scratch?: string;
  /** called with the config once it is read, before anything is built (e.g. to forbid downloads) */
  onConfig?: (config: RunConfig) => void;
  /**
   * a dry run's `--rerun`: these subjects are planned as if their rerun were recorded (their next
   * epoch), though nothing is written to the results folder
   */
  assumeReruns?: readonly string[];
}

/** The request's config, read with its overrides; a usage error the config alone shows is thrown here. */
export async function loadRequestConfig(
  request: RunRequest,
  root: string,
): Promise<{ config: RunConfig; configFile: string }> {
  const configFile = resolveFrom(root, request.config);
  const config = await loadRunConfig(configFile, { overrides: request.overrides, root });
  checkRequest(request, config);
  return { config, configFile };
}

/** Where a dry run with a temporary folder builds the index it needs (`LoadContext.scratch`). */
export const scratchIndexDir = (scratch: string): string => join(scratch, 'index');

/**
 * The config's index folder, built first when the config generates its corpus and it is missing or
 * stale; null for a dry run whose index is not built (a fetched corpus is never ingested implicitly).
 * A dry run given a temporary folder builds a generated corpus there instead (`scratchIndexDir`).
 */
export async function prepareIndex(
  config: CorpusRunConfig,
  ctx: LoadContext & { configFile?: string },
): Promise<string | null> {
  const at = (p: string) => resolveFrom(ctx.root, p);
  const dir = at(config.corpus.index);
  if (ctx.dryRun && !indexExists(dir) && !config.corpus.generated_from) return null;
  const build = {
    ...(ctx.configFile ? { configFile: ctx.configFile } : {}),
    ...(ctx.log ? { log: ctx.log } : {}),
    ...(ctx.progressEveryMs === undefined ? {} : { progressEveryMs: ctx.progressEveryMs }),
  };
  if (ctx.dryRun && ctx.scratch && config.corpus.generated_from) {
    const differences = await indexDifferences(config, at);
    if (differences !== null && differences.length === 0) return dir;
    // an index of other settings is refused as a real run refuses it
    if (differences !== null) refuseOtherSettings(config, differences, ctx.configFile);
    const scratch = ctx.scratch;
    ctx.log?.(
      `the ${config.name} index at ${config.corpus.index} is ${differences === null ? 'not built' : 'stale'}: ` +
        'this dry run builds it in a temporary folder and removes it after (nothing is written here); a real run builds it in place',
    );
    const inScratch = {
      ...config,
      corpus: { ...config.corpus, pdfs: join(scratch, 'pdfs'), index: scratchIndexDir(scratch) },
    };
    await ensureCorpusIndex(inScratch, at, { ...build, cacheDir: join(scratch, 'cache') });
    return scratchIndexDir(scratch);
  }
  await ensureCorpusIndex(config, at, build);
  return dir;
}

/**
 * The identities of the providers a request's plan needs (chosen subjects, their panels' judges). A
 * subject whose model was rerun (`rge eval run --rerun`) has its epoch in its version (`+rerun.N`), so its
 * cells are asked again once.
 */
async function identities(
  request: RunRequest,
  config: RunConfig,
  root: string,
  configFile: string,
  assumeReruns: readonly string[] = [],
): Promise<Record<string, ProviderIdentity>> {
  const { subjects, judges } = chosenModels(request, config);
  const reruns = new Reruns(resolveFrom(root, request.resultsDir));
  const out: Record<string, ProviderIdentity> = {};
  for (const [role, entries] of [
    ['subject', subjects],
    ['judge', judges],
  ] as const)
    for (const entry of entries) {
      const identity = await inConfig(configFile, () => providerIdentity(entry, role, { root }));
      const epoch =
        role === 'subject' ? reruns.epochOf(entry) + (assumeReruns.includes(entry.id) ? 1 : 0) : 0;
      out[`${role}:${entry.id}`] =
        epoch > 0 ? { ...identity, version: `${identity.version}+rerun.${epoch}` } : identity;
    }
  return out;
}

/**
 * Runs `make`; an error that names no file (a missing API key, a refused parameter) is given the
 * config's, so the one error line says which run config asked for that model.
 */
export async function inConfig<T>(configFile: string, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (err) {
    if (err instanceof RgeError && err.file === undefined)
      throw new RgeError(err.message, { file: configFile, exitCode: err.exitCode, cause: err });
    throw err;
  }
}

/**
 * The plan of a request: its config read, its index built when the config generates it (unless
 * `indexBuilt`), its questions and subject prompt read, its providers identified, then planned.
 */
export async function planFromRequest(request: RunRequest, ctx: LoadContext): Promise<RunPlan> {
  const { config, configFile } = await loadRequestConfig(request, ctx.root);
  ctx.onConfig?.(config);
  // a run whose subjects are all systems reads no index of rge's: none is built or read
  const indexDir = usesIndex(chosenModels(request, config).subjects)
    ? await prepareIndex(withCorpus(config, 'a model subject', configFile), {
        ...ctx,
        configFile: request.config,
      })
    : null;
  const manifest = indexDir === null ? null : await readIndexManifest(indexDir);
  if (indexDir !== null && manifest === null) throw new RgeError(`no index at ${indexDir}`);
  const questionsFile = resolveFrom(ctx.root, config.questions.file);
  const subjectPrompt =
    config.subject_prompt.file === null
      ? BUILTIN_SUBJECT_PROMPT
      : await loadSubjectPrompt(resolveFrom(ctx.root, config.subject_prompt.file));
  return planRun({
    request,
    root: ctx.root,
    configFile,
    config,
    questionsFile,
    allQuestions: (await loadQuestions(questionsFile)).map((r) => r.value),
    questionsHash: sha256(await readFile(questionsFile)),
    subjectPrompt,
    index: manifest ? { checksum: manifest.checksum } : null,
    identities: await identities(request, config, ctx.root, configFile, ctx.assumeReruns),
    priceOf,
    dryRun: ctx.dryRun === true,
  });
}
