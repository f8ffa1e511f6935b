/**
 * BGE-M3 (dense head) through transformers.js: CLS pooling, L2-normalised, 1024-d. The model is loaded
 * from a local folder or a transformers.js / Hugging Face cache; when none has it, it is downloaded
 * once from the hub into the transformers.js cache (announcing the size first), unless downloads are
 * off (`--offline`, RGE_OFFLINE=1, HF_HUB_OFFLINE=1, `corpus.allow_download: false`): then the error
 * says where rge looked (finding and downloading the files: hub.ts). transformers.js is imported only
 * here and in hub.ts, and only when the model is needed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { poolSize } from '../util/worker-pool.ts';
import type { DenseEmbedder, EmbedderOptions } from './embedder.ts';
import {
  BGE_M3_MODEL,
  BGE_M3_REVISION,
  bgeM3MissingError,
  bgeM3Revision,
  DEFAULT_HUB,
  type Dtype,
  downloadBgeM3,
  downloadCacheDir,
  downloadsAllowed,
  type ProgressStream,
  resolveBgeM3Dir,
  WEIGHT_FILES,
} from './hub.ts';
import { BGE_M3_WEIGHTS } from './manifest.ts';
import { batches, l2Normalise } from './vectors.ts';

/** the dense head's vector length, used when the model's config.json gives no hidden_size */
export const BGE_M3_DIMENSIONS = 1024;

/** How the weights are named in a config (corpus.bge_m3.weights) and in the index manifest. */
const WEIGHTS_NAME: Record<Dtype, string> = BGE_M3_WEIGHTS;

/**
 * The weights to load: the ones asked for, else fp32. Never another silently: the hub's int8 weights
 * (onnx/model_quantized.onnx, `dtype: 'q8'`) give other vectors and so another index checksum, so a
 * folder holding only those is an error that names the option, not a quiet switch.
 */
function pickDtype(dir: string, wanted: Dtype | undefined): Dtype {
  const dtype = wanted ?? 'fp32';
  if (existsSync(join(dir, WEIGHT_FILES[dtype]))) return dtype;
  const present = (Object.keys(WEIGHT_FILES) as Dtype[]).filter((d) =>
    existsSync(join(dir, WEIGHT_FILES[d])),
  );
  const others = present.map((d) => `${WEIGHTS_NAME[d]} (${WEIGHT_FILES[d]})`).join(', ');
  throw new RgeError(
    `bge-m3: ${join(dir, WEIGHT_FILES[dtype])} is missing (${WEIGHTS_NAME[dtype]} weights${wanted ? ' asked for' : ', the default'})` +
      (others
        ? `; the folder has ${others}: set corpus.bge_m3.weights to use them (they give other vectors, so another index checksum)`
        : ''),
  );
}

// biome-ignore lint/suspicious/noExplicitAny: the transformers.js pipeline type is not worth importing here
type FeatureExtractor = (texts: string[], opts: Record<string, unknown>) => Promise<any>;
const extractors = new Map<string, Promise<FeatureExtractor>>();

async function loadExtractor(dir: string, dtype: Dtype, threads: number): Promise<FeatureExtractor> {
  const key = `${dir}|${dtype}|${threads}`;
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
        // every core for one batch (ONNX Runtime's intra-op threads); the vectors do not depend on it
        session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
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

/**
 * Passage indices, longest first (by characters, a proxy for tokens that needs no tokenizer pass),
 * ties in input order: the order in which `embedPassages` batches them. A passage's vector can move in
 * its last bits with the batch it is padded in, so a batch's members are part of what an index build
 * computes; this order depends only on the passages, so the same passages give the same batches.
 */
export function byLength(texts: readonly string[]): number[] {
  return texts
    .map((_, i) => i)
    .sort((a, b) => (texts[b] as string).length - (texts[a] as string).length || a - b);
}

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
      cacheDir: downloadCacheDir(opts.cacheDir, env),
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
  const threads = poolSize(opts.threads);
  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const extract = await loadExtractor(modelDir, dtype, threads);
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
    parameters: { weights: WEIGHTS_NAME[dtype] },
    dimensions:
      typeof hidden === 'number' && Number.isInteger(hidden) && hidden > 0 ? hidden : BGE_M3_DIMENSIONS,
    async embedPassages(texts, onBatch) {
      // Batches of passages of about the same length: a batch is padded to its longest passage, and
      // report chunks run from a heading line to 800 tokens, so batches in input order pad heavily.
      const order = byLength(texts);
      const out: Float32Array[] = new Array(texts.length);
      let done = 0;
      for (const batch of batches(order, batchSize)) {
        const vectors = await embedBatch(batch.map((i) => texts[i] as string));
        batch.forEach((i, j) => {
          out[i] = vectors[j] as Float32Array;
        });
        done += batch.length;
        onBatch?.(done);
      }
      return out;
    },
    async embedQuery(text) {
      const [v] = await embedBatch([text]);
      return v as Float32Array;
    },
  };
}
