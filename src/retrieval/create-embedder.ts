import { RgeError } from '../util/errors.ts';
import {
  EMBEDDER_NAMES,
  type Embedder,
  type EmbedderName,
  type EmbedderOptions,
  type FusionParameters,
} from './embedder.ts';

/**
 * The registry. Each embedder lives in its own module, imported on demand, so that choosing bm25 never
 * loads TensorFlow and choosing use-lite never loads transformers.js. A hybrid embedder gets its two
 * halves from here (hybrid.ts builds nothing itself).
 */
export async function createEmbedder(name: EmbedderName, opts: EmbedderOptions = {}): Promise<Embedder> {
  switch (name) {
    case 'use-lite':
    case 'bge-m3':
      return createDense(name, opts);
    case 'bm25':
      return createLexical(opts);
    case 'hybrid': {
      const { createHybridEmbedder, fusionParameters } = await import('./hybrid.ts');
      const fusion = fusionParameters(opts.hybrid);
      const { hybrid: _, ...inner } = opts;
      const lexical = await createLexical();
      const dense = await createDense(fusion.dense, inner);
      return createHybridEmbedder(lexical, dense, fusion);
    }
    default:
      throw new RgeError(`unknown embedder "${String(name)}"; choose one of ${EMBEDDER_NAMES.join(', ')}`, {
        exitCode: 2,
      });
  }
}

// The two helpers' return types (a DenseEmbedder, a LexicalEmbedder) are those of the modules' factories.
async function createDense(name: FusionParameters['dense'], opts: EmbedderOptions) {
  if (name === 'bge-m3') return (await import('./bge-m3.ts')).createBgeM3Embedder(opts);
  return (await import('./use-lite.ts')).createUseLiteEmbedder(opts);
}

async function createLexical(opts: EmbedderOptions = {}) {
  return (await import('./bm25.ts')).createBm25Embedder(opts);
}
