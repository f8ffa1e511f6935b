/**
 * Where the bge-m3 model files come from (the embedder itself is in bge-m3.ts): the folders looked in
 * (an explicit folder, the transformers.js cache, TRANSFORMERS_CACHE, HF_HOME and its hub snapshots),
 * the error that says where rge looked, whether downloads are allowed, the one-time download from the
 * hub into the transformers.js cache (size announced first, staged, moved into place with one rename)
 * and the record of the hub commit the files came from.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { z } from 'zod';
import { RgeError } from '../util/errors.ts';

export const BGE_M3_MODEL = 'Xenova/bge-m3';
/**
 * The hub revision downloaded. The hub does not publish a commit for Xenova/bge-m3 in any document rge
 * can cite, so rge asks for `main` and records the commit the hub resolved it to (its `x-repo-commit`
 * header) in `rge-download.json` beside the files; the embedder's `revision` reports it.
 */
export const BGE_M3_REVISION = 'main';
export const DEFAULT_HUB = 'https://huggingface.co/';
/** written into a folder rge downloaded, last, before the folder is moved into place */
export const DOWNLOAD_RECORD = 'rge-download.json';

const DownloadRecord = z.strictObject({
  model: z.string(),
  /** the revision asked for (a branch, tag or commit) */
  revision: z.string(),
  /** the commit the hub resolved it to; null when the hub did not say */
  commit: z.string().nullable(),
  hub: z.string(),
  dtype: z.enum(['fp32', 'fp16', 'q8']),
  files: z.array(z.object({ path: z.string(), bytes: z.number().int().nonnegative() })),
  downloadedAt: z.string(),
});
type DownloadRecord = z.infer<typeof DownloadRecord>;

/** where the size line and the progress bar go: stderr, or any stream in tests */
export type ProgressStream = Pick<NodeJS.WritableStream, 'write'> & { isTTY?: boolean };

/** the ONNX weights a model folder may hold, by dtype */
export type Dtype = 'fp32' | 'fp16' | 'q8';
export const WEIGHT_FILES: Record<Dtype, string> = {
  fp32: 'onnx/model.onnx',
  q8: 'onnx/model_quantized.onnx',
  fp16: 'onnx/model_fp16.onnx',
};

export interface BgeM3Lookup {
  /** the folder that holds the model, or null */
  found: string | null;
  /** every folder looked at, in order, for the error message */
  searched: string[];
}

/** Where transformers.js keeps its default cache: `<package root>/.cache`. Null when not installed. */
export function defaultTransformersCacheDir(): string | null {
  try {
    const require = createRequire(import.meta.url);
    let dir = dirname(require.resolve('@huggingface/transformers'));
    for (let i = 0; i < 4; i++) {
      if (existsSync(join(dir, 'package.json')) && basename(dir) === 'transformers')
        return join(dir, '.cache');
      dir = dirname(dir);
    }
  } catch {
    // not installed
  }
  return null;
}

/** A folder is usable when it has the config, the tokenizer and at least one ONNX weight file. */
export function isBgeM3Folder(dir: string): boolean {
  return (
    existsSync(join(dir, 'config.json')) &&
    existsSync(join(dir, 'tokenizer.json')) &&
    Object.values(WEIGHT_FILES).some((f) => existsSync(join(dir, f)))
  );
}

/**
 * The folders to look in, in order: the explicit `modelDir` (or env RGE_BGE_M3_DIR), then
 * `<cache>/Xenova/bge-m3` for the transformers.js cache, TRANSFORMERS_CACHE and HF_HOME, then the
 * snapshots of a Hugging Face hub cache under HF_HOME/hub. An explicit folder that is not usable is
 * not silently skipped: it is the only place looked at.
 */
export function resolveBgeM3Dir(opts: {
  modelDir?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cacheDir?: string | null;
}): BgeM3Lookup {
  const env = opts.env ?? process.env;
  const explicit = opts.modelDir ?? env.RGE_BGE_M3_DIR;
  if (explicit) {
    const dir = resolve(explicit);
    return { found: isBgeM3Folder(dir) ? dir : null, searched: [dir] };
  }
  const candidates: string[] = [];
  const cacheDir = opts.cacheDir === undefined ? defaultTransformersCacheDir() : opts.cacheDir;
  if (cacheDir) candidates.push(join(cacheDir, BGE_M3_MODEL));
  if (env.TRANSFORMERS_CACHE) candidates.push(join(env.TRANSFORMERS_CACHE, BGE_M3_MODEL));
  if (env.HF_HOME) {
    candidates.push(join(env.HF_HOME, BGE_M3_MODEL));
    const snapshots = join(env.HF_HOME, 'hub', 'models--Xenova--bge-m3', 'snapshots');
    if (existsSync(snapshots)) {
      for (const rev of readdirSync(snapshots).sort()) candidates.push(join(snapshots, rev));
    } else {
      candidates.push(snapshots);
    }
  }
  const searched = candidates.map((c) => resolve(c));
  return { found: searched.find(isBgeM3Folder) ?? null, searched };
}

export interface BgeM3MissingReason {
  /** downloads were off (--offline, RGE_OFFLINE=1 or the config's corpus.allow_download: false) */
  offline?: boolean;
}

export function bgeM3MissingError(lookup: BgeM3Lookup, reason: BgeM3MissingReason = {}): RgeError {
  const why = reason.offline
    ? 'Downloads are off (--offline, RGE_OFFLINE=1, HF_HUB_OFFLINE=1 or corpus.allow_download: false), so rge did not fetch it. '
    : lookup.searched.length === 1 && lookup.searched[0] !== undefined
      ? 'That folder was given explicitly, so rge neither looked elsewhere nor downloaded. '
      : '';
  return new RgeError(
    `the bge-m3 model was not found; looked in: ${lookup.searched.join(', ')}\n${why}` +
      `Run once without --offline on a machine with internet access to download ${BGE_M3_MODEL} into the ` +
      'transformers.js cache, or download its files (config.json, tokenizer.json, tokenizer_config.json and ' +
      'onnx/model.onnx + onnx/model.onnx_data, or onnx/model_quantized.onnx) from ' +
      `https://huggingface.co/${BGE_M3_MODEL}, copy the folder to this machine and point RGE_BGE_M3_DIR ` +
      '(or --model-dir) at it.',
  );
}

/** Whether the environment allows downloads: not when RGE_OFFLINE or HF_HUB_OFFLINE is set to 1/true. */
export function downloadsAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  const on = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
  return !on(env.RGE_OFFLINE) && !on(env.HF_HUB_OFFLINE);
}

/**
 * The hub revision the files of `dir` came from: the commit recorded when rge downloaded them, or the
 * snapshot name of a Hugging Face hub cache (a commit); null when unknown (a folder copied by hand).
 */
export function bgeM3Revision(dir: string): string | null {
  const record = join(dir, DOWNLOAD_RECORD);
  if (existsSync(record)) {
    try {
      const parsed = DownloadRecord.parse(JSON.parse(readFileSync(record, 'utf8')));
      return parsed.commit;
    } catch {
      return null;
    }
  }
  const name = basename(dir);
  return basename(dirname(dir)) === 'snapshots' && /^[0-9a-f]{40}$/.test(name) ? name : null;
}

/**
 * Where a download goes: the cache folder given (`BgeM3Options.cacheDir`), else TRANSFORMERS_CACHE when
 * set, else the transformers.js cache.
 */
export function downloadCacheDir(cacheDir: string | null | undefined, env: NodeJS.ProcessEnv): string {
  const dir =
    typeof cacheDir === 'string' ? cacheDir : (env.TRANSFORMERS_CACHE ?? defaultTransformersCacheDir());
  if (!dir)
    throw new RgeError('bge-m3: no cache folder to download into; set TRANSFORMERS_CACHE', { exitCode: 2 });
  return resolve(dir);
}

function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

interface ByteProgress {
  update(loaded: number): void;
  done(): void;
}

/** A bar on an interactive terminal; nothing when not a TTY or under CI (the size line is printed anyway). */
function byteProgress(stream: ProgressStream, env: NodeJS.ProcessEnv, total: number): ByteProgress {
  if (!stream.isTTY || env.CI) return { update() {}, done() {} };
  const bar = new cliProgress.SingleBar(
    {
      format: 'bge-m3 [{bar}] {percentage}% {loadedText} / {totalText}',
      stream: stream as NodeJS.WritableStream as NodeJS.WriteStream,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { loadedText: formatBytes(0), totalText: formatBytes(total) });
  return {
    update(loaded) {
      bar.update(Math.min(loaded, total), { loadedText: formatBytes(loaded), totalText: formatBytes(total) });
    },
    done() {
      bar.stop();
    },
  };
}

function hubUrl(hub: string, revision: string, file: string): string {
  return `${hub}${BGE_M3_MODEL}/resolve/${encodeURIComponent(revision)}/${file}`;
}

function describeFailure(err: unknown, failedUrl: string | null): string {
  let code: unknown;
  // undici puts the socket error (ECONNREFUSED, ENOTFOUND...) under `cause`, sometimes in an AggregateError
  for (
    let e = err as { cause?: unknown; code?: unknown; errors?: unknown[] } | undefined, i = 0;
    e && i < 4;
    i++
  ) {
    code = e.code ?? (e.errors?.[0] as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string') break;
    e = e.cause as typeof e;
  }
  const message = err instanceof Error ? err.message : String(err);
  const where = failedUrl && !message.includes(failedUrl) ? ` (${failedUrl})` : '';
  return `${message}${typeof code === 'string' ? ` [${code}]` : ''}${where}`;
}

export interface DownloadOptions {
  /** the transformers.js cache to download into (see `downloadCacheDir`) */
  cacheDir: string;
  /** the hub address, ending in a slash */
  hub: string;
  /** the hub revision (a branch, tag or commit) */
  revision: string;
  dtype: Dtype;
  /** where the size line and the progress bar go */
  stream: ProgressStream;
  /** for CI (no progress bar) */
  env: NodeJS.ProcessEnv;
}

const downloads = new Map<string, Promise<string>>();

/**
 * Downloads Xenova/bge-m3 through transformers.js into `<cacheDir>/Xenova/bge-m3` and returns that
 * folder. The sizes are read first (a one-byte range request per file) and announced; the files are
 * then fetched by loading the pipeline from a staging cache beside the final folder, so the model is
 * known to load before it is moved into place with one rename. An interrupted or failed download
 * leaves only the staging folder's name (`.rge-download-*`), which no lookup ever accepts; it is
 * removed when the failure is caught.
 */
export async function downloadBgeM3(opts: DownloadOptions): Promise<string> {
  const final = join(opts.cacheDir, BGE_M3_MODEL);
  let p = downloads.get(final);
  if (!p) {
    p = runDownload(final, opts).finally(() => downloads.delete(final));
    downloads.set(final, p);
  }
  return p;
}

type Transformers = typeof import('@huggingface/transformers');

/** What the hub told a download: the commit it resolved the revision to, the address a fetch failed on. */
interface HubReplies {
  commit: string | null;
  failedUrl: string | null;
}

async function runDownload(final: string, opts: DownloadOptions): Promise<string> {
  const { hub, revision, dtype } = opts;
  const tf = await import('@huggingface/transformers');
  const staging = join(opts.cacheDir, `.rge-download-${process.pid}-${randomBytes(4).toString('hex')}`);
  const staged = revision === 'main' ? join(staging, BGE_M3_MODEL) : join(staging, BGE_M3_MODEL, revision);
  const seen: HubReplies = { commit: null, failedUrl: null };
  const saved = transformersSettings(tf);
  const fail = downloadFailure(opts, seen);
  pointAtHub(tf, hub, staging, seen);
  try {
    await mkdir(staging, { recursive: true });
    const { files, total } = await hubFiles(tf, opts, staging, fail);
    opts.stream.write(
      `bge-m3: downloading ${BGE_M3_MODEL} (revision ${revision}, ${dtype}) from ${hub}: ${files.length} files, ` +
        `${formatBytes(total)}, into ${final}\n`,
    );
    await fetchIntoStaging(tf, opts, staging, files, total, fail);
    const absent = files.filter((f) => !existsSync(join(staged, f)));
    if (absent.length > 0)
      throw fail(`the download is incomplete: ${absent.join(', ')} did not arrive`, undefined);
    const record: DownloadRecord = {
      model: BGE_M3_MODEL,
      revision,
      commit: seen.commit,
      hub,
      dtype,
      files: files.map((f) => ({ path: f, bytes: statSync(join(staged, f)).size })),
      downloadedAt: new Date().toISOString(),
    };
    await writeFile(join(staged, DOWNLOAD_RECORD), `${JSON.stringify(record, null, 2)}\n`);
    await moveIntoPlace(staged, final);
    opts.stream.write(
      `bge-m3: downloaded ${formatBytes(total)} to ${final}${seen.commit ? ` (commit ${seen.commit})` : ''}\n`,
    );
    return final;
  } finally {
    Object.assign(tf.env, saved);
    await rm(staging, { recursive: true, force: true });
  }
}

/** The transformers.js settings a download changes, to put back after it. */
function transformersSettings(tf: Transformers) {
  return {
    remoteHost: tf.env.remoteHost,
    remotePathTemplate: tf.env.remotePathTemplate,
    allowRemoteModels: tf.env.allowRemoteModels,
    allowLocalModels: tf.env.allowLocalModels,
    useFSCache: tf.env.useFSCache,
    useBrowserCache: tf.env.useBrowserCache,
    useCustomCache: tf.env.useCustomCache,
    cacheDir: tf.env.cacheDir,
    fetch: tf.env.fetch,
  };
}

/** The error of a failed download: what failed and why, and what to do about it. */
function downloadFailure(
  { hub, revision }: DownloadOptions,
  seen: HubReplies,
): (what: string, err: unknown) => RgeError {
  return (what, err) =>
    new RgeError(
      `bge-m3: could not download ${BGE_M3_MODEL} (revision ${revision}) from ${hub}: ${what}${err === undefined ? '' : describeFailure(err, seen.failedUrl)}\n` +
        'Check the network (or HF_ENDPOINT, the hub address) and run again; or download the files on another ' +
        'machine, point RGE_BGE_M3_DIR at the folder and use --offline.',
      err === undefined ? {} : { cause: err },
    );
}

/**
 * Points transformers.js at the hub, with `staging` as its only cache, and notes in `seen` the commit
 * the hub names (`x-repo-commit`) and the address of a fetch that failed.
 */
function pointAtHub(tf: Transformers, hub: string, staging: string, seen: HubReplies): void {
  const baseFetch = tf.env.fetch;
  Object.assign(tf.env, {
    remoteHost: hub,
    remotePathTemplate: '{model}/resolve/{revision}/',
    allowRemoteModels: true,
    allowLocalModels: false,
    useFSCache: true,
    useBrowserCache: false,
    useCustomCache: false,
    // transformers.js reads the config for its file list from env.cacheDir whatever cache_dir says
    cacheDir: staging,
    fetch: async (input: string | URL, init?: unknown) => {
      try {
        const res = await baseFetch(input, init);
        const commit = res.headers.get('x-repo-commit');
        if (commit && !seen.commit) seen.commit = commit;
        return res;
      } catch (err) {
        seen.failedUrl = String(input);
        throw err;
      }
    },
  });
}

/**
 * The files to fetch (the weights' external data too, for fp32, where the hub has it) and their total
 * size, from the hub's metadata (a one-byte range request a file); a wanted file the hub lacks is an error.
 */
async function hubFiles(
  tf: Transformers,
  { hub, revision, dtype }: DownloadOptions,
  staging: string,
  fail: (what: string, err: unknown) => RgeError,
): Promise<{ files: string[]; total: number }> {
  const weights = WEIGHT_FILES[dtype];
  const wanted = ['config.json', 'tokenizer.json', 'tokenizer_config.json', weights];
  const optional = dtype === 'fp32' ? [`${weights}_data`] : [];
  const options = { revision, cache_dir: staging };
  let metadata: { exists: boolean; size?: number }[];
  try {
    metadata = await Promise.all(
      [...wanted, ...optional].map((f) => tf.ModelRegistry.get_file_metadata(BGE_M3_MODEL, f, options)),
    );
  } catch (err) {
    throw fail('', err);
  }
  const missing = wanted.filter((_, i) => !metadata[i]?.exists);
  if (missing.length > 0) {
    throw fail(
      `not found on the hub (HTTP 404): ${missing.map((f) => hubUrl(hub, revision, f)).join(', ')}`,
      undefined,
    );
  }
  const files = [...wanted, ...optional.filter((_, i) => metadata[wanted.length + i]?.exists)];
  const sizes = new Map(files.map((f) => [f, metadata[[...wanted, ...optional].indexOf(f)]?.size ?? 0]));
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  return { files, total };
}

/**
 * Loads the pipeline from the staging cache, which fetches every file into it (so the model is known to
 * load), with a progress bar over all the bytes.
 */
async function fetchIntoStaging(
  tf: Transformers,
  opts: DownloadOptions,
  staging: string,
  files: readonly string[],
  total: number,
  fail: (what: string, err: unknown) => RgeError,
): Promise<void> {
  const { revision, dtype } = opts;
  const loadedByFile = new Map<string, number>();
  const bar = byteProgress(opts.stream, opts.env, total);
  let pipe: { dispose(): Promise<unknown> };
  try {
    pipe = (await tf.pipeline('feature-extraction', BGE_M3_MODEL, {
      dtype,
      revision,
      cache_dir: staging,
      ...(files.includes(`${WEIGHT_FILES[dtype]}_data`) ? { use_external_data_format: true } : {}),
      progress_callback: (info: { status: string; file?: string; loaded?: number }) => {
        if (info.status !== 'progress' || !info.file || typeof info.loaded !== 'number') return;
        loadedByFile.set(info.file, info.loaded);
        bar.update([...loadedByFile.values()].reduce((a, b) => a + b, 0));
      },
    })) as unknown as { dispose(): Promise<unknown> };
  } catch (err) {
    throw fail('', err);
  } finally {
    bar.done();
  }
  await pipe.dispose();
}

/** Renames the staged folder into place; when another process finished first, its copy is used if complete. */
async function moveIntoPlace(staged: string, final: string): Promise<void> {
  await mkdir(dirname(final), { recursive: true });
  try {
    await rename(staged, final);
  } catch (err) {
    // another process finished first: use its copy when it is complete
    if (!isBgeM3Folder(final)) {
      throw new RgeError(
        `bge-m3: ${final} exists but is not a complete model folder (config.json, tokenizer.json and onnx weights); remove it and run again`,
        { cause: err },
      );
    }
  }
}
