import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { z } from 'zod';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import type { DenseEmbedder, EmbedderOptions } from './embedder.ts';
import { batches, l2Normalise } from './vectors.ts';

/**
 * BGE-M3 (dense head) through transformers.js: CLS pooling, L2-normalised, 1024-d. The model is loaded
 * from a local folder or a transformers.js / Hugging Face cache; when none has it, it is downloaded
 * once from the hub into the transformers.js cache (announcing the size first), unless downloads are
 * off (`--offline`, RGE_OFFLINE=1, HF_HUB_OFFLINE=1, `corpus.allow_download: false`): then the error
 * says where rge looked. transformers.js is imported only here, and only when the model is needed.
 */
export const BGE_M3_MODEL = 'Xenova/bge-m3';
export const BGE_M3_DIMENSIONS = 1024;
/**
 * The hub revision downloaded. The hub does not publish a commit for Xenova/bge-m3 in any document rge
 * can cite, so rge asks for `main` and records the commit the hub resolved it to (its `x-repo-commit`
 * header) in `rge-download.json` beside the files; the embedder's `revision` reports it.
 */
export const BGE_M3_REVISION = 'main';
export const DEFAULT_HUB = 'https://huggingface.co/';
/** written into a folder rge downloaded, last, before the folder is moved into place */
export const DOWNLOAD_RECORD = 'rge-download.json';

const DownloadRecord = z
  .object({
    model: z.string(),
    /** the revision asked for (a branch, tag or commit) */
    revision: z.string(),
    /** the commit the hub resolved it to; null when the hub did not say */
    commit: z.string().nullable(),
    hub: z.string(),
    dtype: z.enum(['fp32', 'fp16', 'q8']),
    files: z.array(z.object({ path: z.string(), bytes: z.number().int().nonnegative() })),
    downloadedAt: z.string(),
  })
  .strict();
type DownloadRecord = z.infer<typeof DownloadRecord>;

/** where the size line and the progress bar go: stderr, or any stream in tests */
export type ProgressStream = Pick<NodeJS.WritableStream, 'write'> & { isTTY?: boolean };

type Dtype = 'fp32' | 'fp16' | 'q8';
const WEIGHT_FILES: Record<Dtype, string> = {
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

function pickDtype(dir: string, wanted: Dtype | undefined): Dtype {
  if (wanted) {
    if (!existsSync(join(dir, WEIGHT_FILES[wanted]))) {
      throw new RgeError(`bge-m3: ${join(dir, WEIGHT_FILES[wanted])} is missing (asked for dtype ${wanted})`);
    }
    return wanted;
  }
  const order: Dtype[] = ['fp32', 'q8', 'fp16'];
  return order.find((d) => existsSync(join(dir, WEIGHT_FILES[d]))) ?? 'fp32';
}

// biome-ignore lint/suspicious/noExplicitAny: the transformers.js pipeline type is not worth importing here
type FeatureExtractor = (texts: string[], opts: Record<string, unknown>) => Promise<any>;
const extractors = new Map<string, Promise<FeatureExtractor>>();

async function loadExtractor(dir: string, dtype: Dtype): Promise<FeatureExtractor> {
  const key = `${dir}|${dtype}`;
  let p = extractors.get(key);
  if (!p) {
    p = (async () => {
      const tf = await import('@huggingface/transformers');
      tf.env.allowRemoteModels = false;
      tf.env.allowLocalModels = true;
      tf.env.localModelPath = `${dirname(dir)}/`;
      const external = dtype === 'fp32' && existsSync(join(dir, 'onnx', 'model.onnx_data'));
      const pipe = await tf.pipeline('feature-extraction', basename(dir), {
        dtype,
        local_files_only: true,
        ...(external ? { use_external_data_format: true } : {}),
      });
      return pipe as unknown as FeatureExtractor;
    })().catch((err: unknown) => {
      extractors.delete(key);
      throw new RgeError(`bge-m3: could not load the model from ${dir}`, { cause: err });
    });
    extractors.set(key, p);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// download

/** Where a download goes: TRANSFORMERS_CACHE when set, else the transformers.js cache. */
function downloadCacheDir(opts: BgeM3Options, env: NodeJS.ProcessEnv): string {
  const dir =
    typeof opts.cacheDir === 'string'
      ? opts.cacheDir
      : (env.TRANSFORMERS_CACHE ?? defaultTransformersCacheDir());
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

const downloads = new Map<string, Promise<string>>();

/**
 * Downloads Xenova/bge-m3 through transformers.js into `<cacheDir>/Xenova/bge-m3` and returns that
 * folder. The sizes are read first (a one-byte range request per file) and announced; the files are
 * then fetched by loading the pipeline from a staging cache beside the final folder, so the model is
 * known to load before it is moved into place with one rename. An interrupted or failed download
 * leaves only the staging folder's name (`.rge-download-*`), which no lookup ever accepts; it is
 * removed when the failure is caught.
 */
async function downloadBgeM3(opts: {
  cacheDir: string;
  hub: string;
  revision: string;
  dtype: Dtype;
  stream: ProgressStream;
  env: NodeJS.ProcessEnv;
}): Promise<string> {
  const final = join(opts.cacheDir, BGE_M3_MODEL);
  let p = downloads.get(final);
  if (!p) {
    p = runDownload(final, opts).finally(() => downloads.delete(final));
    downloads.set(final, p);
  }
  return p;
}

async function runDownload(
  final: string,
  opts: {
    cacheDir: string;
    hub: string;
    revision: string;
    dtype: Dtype;
    stream: ProgressStream;
    env: NodeJS.ProcessEnv;
  },
): Promise<string> {
  const { hub, revision, dtype } = opts;
  const tf = await import('@huggingface/transformers');
  const staging = join(opts.cacheDir, `.rge-download-${process.pid}-${randomBytes(4).toString('hex')}`);
  const staged = revision === 'main' ? join(staging, BGE_M3_MODEL) : join(staging, BGE_M3_MODEL, revision);
  const seen: { commit: string | null; failedUrl: string | null } = { commit: null, failedUrl: null };
  const saved = {
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
  const baseFetch = saved.fetch;
  const fail = (what: string, err: unknown) =>
    new RgeError(
      `bge-m3: could not download ${BGE_M3_MODEL} (revision ${revision}) from ${hub}: ${what}${err === undefined ? '' : describeFailure(err, seen.failedUrl)}\n` +
        'Check the network (or HF_ENDPOINT, the hub address) and run again; or download the files on another ' +
        'machine, point RGE_BGE_M3_DIR at the folder and use --offline.',
      err === undefined ? {} : { cause: err },
    );
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
  try {
    await mkdir(staging, { recursive: true });
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
    opts.stream.write(
      `bge-m3: downloading ${BGE_M3_MODEL} (revision ${revision}, ${dtype}) from ${hub}: ${files.length} files, ` +
        `${formatBytes(total)}, into ${final}\n`,
    );
    const loadedByFile = new Map<string, number>();
    const bar = byteProgress(opts.stream, opts.env, total);
    let pipe: { dispose(): Promise<unknown> };
    try {
      pipe = (await tf.pipeline('feature-extraction', BGE_M3_MODEL, {
        dtype,
        revision,
        cache_dir: staging,
        ...(files.includes(`${weights}_data`) ? { use_external_data_format: true } : {}),
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
    opts.stream.write(
      `bge-m3: downloaded ${formatBytes(total)} to ${final}${seen.commit ? ` (commit ${seen.commit})` : ''}\n`,
    );
    return final;
  } finally {
    Object.assign(tf.env, saved);
    await rm(staging, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// the embedder

export interface BgeM3Options extends EmbedderOptions {
  /**
   * May the model be downloaded when no folder has it? Default: yes, unless RGE_OFFLINE=1 or
   * HF_HUB_OFFLINE=1 (`--offline` and `corpus.allow_download: false` set RGE_OFFLINE).
   */
  allowDownload?: boolean;
  /** the hub to download from; default HF_ENDPOINT, else https://huggingface.co/ */
  hub?: string;
  /** the hub revision to download (a branch, tag or commit); default BGE_M3_REVISION */
  revision?: string;
  /** the transformers.js cache to look in first and to download into (default: TRANSFORMERS_CACHE, else the transformers.js cache) */
  cacheDir?: string | null;
  /** the environment (RGE_BGE_M3_DIR, TRANSFORMERS_CACHE, HF_HOME, RGE_OFFLINE, HF_ENDPOINT, CI); for tests */
  env?: NodeJS.ProcessEnv;
  /** where the download's size line and progress bar go (default stderr) */
  progress?: ProgressStream;
}

/** The bge-m3 embedder: a dense embedder that also says which hub revision its files came from. */
export interface BgeM3Embedder extends DenseEmbedder {
  /** the hub commit of the model files when known (downloaded by rge or a hub snapshot), else null */
  readonly revision: string | null;
  /** the folder the model was loaded from */
  readonly modelDir: string;
}

export async function createBgeM3Embedder(opts: BgeM3Options = {}): Promise<BgeM3Embedder> {
  const env = opts.env ?? process.env;
  const lookupCache =
    typeof opts.cacheDir === 'string' ? opts.cacheDir : opts.cacheDir === null ? null : undefined;
  const lookup = resolveBgeM3Dir({
    modelDir: opts.modelDir,
    env,
    ...(lookupCache === undefined ? {} : { cacheDir: lookupCache }),
  });
  let dir = lookup.found;
  if (!dir) {
    const explicit = opts.modelDir ?? env.RGE_BGE_M3_DIR;
    if (explicit) throw bgeM3MissingError(lookup);
    if (!(opts.allowDownload ?? downloadsAllowed(env))) throw bgeM3MissingError(lookup, { offline: true });
    const hub = opts.hub ?? env.HF_ENDPOINT ?? DEFAULT_HUB;
    dir = await downloadBgeM3({
      cacheDir: downloadCacheDir(opts, env),
      hub: hub.endsWith('/') ? hub : `${hub}/`,
      revision: opts.revision ?? BGE_M3_REVISION,
      dtype: opts.dtype ?? 'fp32',
      stream: opts.progress ?? process.stderr,
      env,
    });
  }
  const modelDir = dir;
  const dtype = pickDtype(modelDir, opts.dtype);
  const configBytes = readFileSync(join(modelDir, 'config.json'));
  const config = sha256(configBytes).slice(0, 12);
  const hidden = (JSON.parse(configBytes.toString('utf8')) as { hidden_size?: unknown }).hidden_size;
  const batchSize = opts.batchSize ?? 8;
  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const extract = await loadExtractor(modelDir, dtype);
    const out = await extract([...texts], { pooling: 'cls', normalize: true });
    const data = out.data as Float32Array;
    const [rows, dims] = out.dims as [number, number];
    const vectors: Float32Array[] = [];
    for (let r = 0; r < rows; r++) vectors.push(l2Normalise(data.slice(r * dims, (r + 1) * dims)));
    return vectors;
  };
  return {
    kind: 'dense',
    name: 'bge-m3',
    id: `bge-m3:${BGE_M3_MODEL}:config-${config}:${dtype}:cls:l2`,
    revision: bgeM3Revision(modelDir),
    modelDir,
    batchSize,
    dimensions:
      typeof hidden === 'number' && Number.isInteger(hidden) && hidden > 0 ? hidden : BGE_M3_DIMENSIONS,
    async embedPassages(texts, onBatch) {
      const out: Float32Array[] = [];
      for (const batch of batches(texts, batchSize)) {
        out.push(...(await embedBatch(batch)));
        onBatch?.(out.length);
      }
      return out;
    },
    async embedQuery(text) {
      const [v] = await embedBatch([text]);
      return v as Float32Array;
    },
  };
}
