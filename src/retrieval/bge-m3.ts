import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { batches, type DenseEmbedder, type EmbedderOptions, l2Normalise } from './embedder.ts';

/**
 * BGE-M3 (dense head) through transformers.js: CLS pooling, L2-normalised, 1024-d. The model is never
 * downloaded by rge: it is loaded from a local folder or from a transformers.js cache, with remote
 * models disabled. transformers.js is imported only here, and only when a model folder was found.
 */
export const BGE_M3_MODEL = 'Xenova/bge-m3';
export const BGE_M3_DIMENSIONS = 1024;

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

export function bgeM3MissingError(lookup: BgeM3Lookup): RgeError {
  return new RgeError(
    `the bge-m3 model was not found; looked in: ${lookup.searched.join(', ')}\n` +
      `rge never downloads models. On a machine with internet access, download the ${BGE_M3_MODEL} files ` +
      '(config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx + onnx/model.onnx_data, or ' +
      `onnx/model_quantized.onnx) from https://huggingface.co/${BGE_M3_MODEL}, copy the folder to this machine and ` +
      'point RGE_BGE_M3_DIR (or --model-dir) at it.',
  );
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

export function createBgeM3Embedder(opts: EmbedderOptions = {}): DenseEmbedder {
  const lookup = resolveBgeM3Dir({ modelDir: opts.modelDir });
  if (!lookup.found) throw bgeM3MissingError(lookup);
  const dir = lookup.found;
  const dtype = pickDtype(dir, opts.dtype);
  const config = sha256(readFileSync(join(dir, 'config.json'))).slice(0, 12);
  const batchSize = opts.batchSize ?? 8;
  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const extract = await loadExtractor(dir, dtype);
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
    batchSize,
    dimensions: BGE_M3_DIMENSIONS,
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
