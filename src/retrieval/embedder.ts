/**
 * An embedder turns passages and questions into what an index compares. Dense embedders give one
 * L2-normalised Float32Array per text (compared by cosine); the lexical embedder gives term counts
 * (scored by BM25 against the document frequencies of the indexed chunks).
 *
 * `id` names the model and its version; it is part of every cache key and of the index checksum, so
 * two ids are equal only when the same text is guaranteed to give the same representation.
 */
export type EmbedderName = 'use-lite' | 'bge-m3' | 'bm25' | 'hybrid';

export const EMBEDDER_NAMES: readonly EmbedderName[] = ['use-lite', 'bge-m3', 'bm25', 'hybrid'];

interface EmbedderBase {
  /** the registry name (or a custom name for embedders built outside the registry) */
  readonly name: string;
  /** model + version + anything else that changes the output */
  readonly id: string;
  /** how many passages go to the model at once */
  readonly batchSize: number;
  /** the model's revision when it came from a model hub (recorded in the index manifest) */
  readonly revision?: string | null;
  /** scalar parameters that change the output, recorded in the index manifest (e.g. fusion settings) */
  readonly parameters?: Readonly<Record<string, string | number | boolean | null>> | null;
}

export interface DenseEmbedder extends EmbedderBase {
  readonly kind: 'dense';
  /** vector length; known once the model has produced a vector, `null` before for some models */
  readonly dimensions: number | null;
  /** embeds in batches of `batchSize`; one unit-length vector per text, in input order */
  embedPassages(texts: readonly string[], onBatch?: (done: number) => void): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
}

/** Term counts of one text, as BM25 needs them: term -> frequency, plus the token count. */
export interface TermCounts {
  readonly terms: ReadonlyMap<string, number>;
  readonly length: number;
}

export interface LexicalEmbedder extends EmbedderBase {
  readonly kind: 'lexical';
  readonly k1: number;
  readonly b: number;
  embedPassages(texts: readonly string[], onBatch?: (done: number) => void): Promise<TermCounts[]>;
  embedQuery(text: string): Promise<TermCounts>;
}

/** How a hybrid embedder fuses its two rankings (defaults and validation in hybrid.ts). */
export interface FusionParameters {
  /** the dense half: use-lite offline, bge-m3 when its model is configured */
  dense: 'use-lite' | 'bge-m3';
  /** the reciprocal-rank-fusion constant k: larger flattens the advantage of the top ranks */
  rrfK: number;
  /** how many chunks each ranking contributes before fusion */
  depth: number;
  /** weight of the BM25 ranking */
  lexicalWeight: number;
  /** weight of the dense ranking */
  denseWeight: number;
}

/**
 * BM25 and a dense model together: the index holds both representations and retrieval fuses the two
 * rankings (see hybrid.ts). Passages and questions are embedded by the two halves.
 */
export interface HybridEmbedder extends EmbedderBase {
  readonly kind: 'hybrid';
  /** the dense half's vector length */
  readonly dimensions: number | null;
  readonly lexical: LexicalEmbedder;
  readonly dense: DenseEmbedder;
  readonly fusion: FusionParameters;
}

export type Embedder = DenseEmbedder | LexicalEmbedder | HybridEmbedder;

export interface EmbedderOptions {
  /** passages per model call */
  batchSize?: number;
  /**
   * threads the passages are embedded on (use-lite: worker threads, each with its own model; bge-m3:
   * ONNX Runtime's intra-op threads); default: the machine's available parallelism. The vectors do
   * not depend on it.
   */
  threads?: number;
  /** bge-m3 only: a folder holding the Xenova/bge-m3 files (config.json, tokenizer.json, onnx/) */
  modelDir?: string;
  /** bge-m3 only: which ONNX weights to load; by default the first of fp32, q8, fp16 present */
  dtype?: 'fp32' | 'fp16' | 'q8';
  /** hybrid only: the dense model and the fusion parameters (defaults in hybrid.ts) */
  hybrid?: Partial<FusionParameters>;
}

export function isEmbedderName(name: string): name is EmbedderName {
  return (EMBEDDER_NAMES as readonly string[]).includes(name);
}
