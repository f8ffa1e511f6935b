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
import { batches, l2Normalise } from './vectors.ts';

/** the dense head's vector length, used when the model's config.json gives no hidden_size */
export const BGE_M3_DIMENSIONS = 1024;

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
