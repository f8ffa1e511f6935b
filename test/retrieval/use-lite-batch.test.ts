import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createUseLiteEmbedder,
  loadUseLiteModel,
  loadUseLiteTokenizer,
  MAX_SEQUENCE_PIECES,
  passageWindows,
  type UseLiteTokenizer,
  useLiteEmbedderId,
  WINDOW_WORDS,
} from '../../src/retrieval/use-lite.ts';
import { l2Normalise } from '../../src/retrieval/vectors.ts';

/**
 * The batched passage path (our tokeniser, windows of many passages sorted by length per model call)
 * against the library's own path, one window per `model.embed` call.
 */
let model: EmbeddingsModel;
let tokenizer: UseLiteTokenizer;
beforeAll(async () => {
  model = await loadUseLiteModel();
  tokenizer = await loadUseLiteTokenizer();
});

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

/** The former path: `model.embed` on all windows of `size` passages a call, rows copied and normalised. */
async function libraryPath(passages: readonly string[], size: number): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let g = 0; g < passages.length; g += size) {
    const windows = passages.slice(g, g + size).map(passageWindows);
    const rows = (await model.embed(windows.flat())).map((r) => l2Normalise(Float32Array.from(r)));
    let at = 0;
    for (const w of windows) {
      const sum = new Float32Array(512);
      for (const v of rows.slice(at, at + w.length))
        for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + (v[i] as number);
      at += w.length;
      out.push(l2Normalise(sum));
    }
  }
  return out;
}

/** The unbatched reference: each window alone through `model.embed`, normalised, averaged, normalised. */
async function unbatched(passage: string): Promise<Float32Array> {
  const sum = new Float32Array(512);
  for (const w of passageWindows(passage)) {
    const [row] = await model.embed([w]);
    const v = l2Normalise(Float32Array.from(row as number[]));
    for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + (v[i] as number);
  }
  return l2Normalise(sum);
}

const words = (n: number, seed: string) => {
  const rng = seedrandom(seed);
  const vocab = [
    'revenue',
    'grew',
    '12.5%',
    'to',
    '₹4,310',
    'crore',
    'EBITDA',
    'margin',
    'Board',
    'dividend',
  ];
  return Array.from({ length: n }, () => vocab[Math.floor(rng() * vocab.length)]).join(' ');
};

const PASSAGES = [
  'a short question-like passage without a header',
  `hdfc bank | FY24 | 2. FINANCIAL HIGHLIGHTS\n${words(40, 'a')}`,
  `vrl logistics | FY24 | Directors' Report\n${words(WINDOW_WORDS * 2 + 17, 'b')}`,
  `infosys | FY24 | Notes\n${words(WINDOW_WORDS * 3, 'c')}`,
  words(WINDOW_WORDS + 60, 'd'),
  `amcor | FY23 | Risk factors\n${words(5, 'e')}`,
];

describe('use-lite tokeniser', () => {
  const rng = seedrandom('rge-use-lite-tokeniser');
  const alphabet = [
    ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:%₹$€()-–—/\'"\n\t',
  ];
  const exotic = ['ﬁnancial', 'Ⅻ', 'é', 'ü', '中文', '😀', '�', '\u00a0', '  ', '\u2581', 'ｆｕｌｌ'];
  const random = Array.from({ length: 200 }, () => {
    const n = Math.floor(rng() * 300);
    let s = '';
    for (let i = 0; i < n; i++) {
      s +=
        rng() < 0.03
          ? exotic[Math.floor(rng() * exotic.length)]
          : alphabet[Math.floor(rng() * alphabet.length)];
    }
    return s;
  });

  it('gives the library tokeniser’s ids on report text, edge cases and random strings', () => {
    const cases = [
      '',
      ' ',
      'hello world',
      ...exotic,
      ...PASSAGES,
      ...PASSAGES.flatMap(passageWindows),
      ...random,
    ];
    for (const text of cases)
      expect(tokenizer.encode(text), JSON.stringify(text)).toEqual(model.tokenizer.encode(text));
  });
});

describe('use-lite batched passages', () => {
  it('gives bit for bit the vectors of the former library path (so index checksums do not move)', async () => {
    for (const batchSize of [16, 4]) {
      const ours = await createUseLiteEmbedder({ batchSize, threads: 1 }).embedPassages(PASSAGES);
      expect(ours).toEqual(await libraryPath(PASSAGES, batchSize));
    }
  });

  it('gives the same vectors on worker threads, whatever their number (a group is one model call on one thread)', async () => {
    // three groups on three threads: each thread's model gives its group's vectors
    const progress: number[] = [];
    const ours = await createUseLiteEmbedder({ batchSize: 2, threads: 3 }).embedPassages(PASSAGES, (d) =>
      progress.push(d),
    );
    expect(ours).toEqual(await libraryPath(PASSAGES, 2));
    expect(progress).toEqual([2, 4, 6]);
  });

  it('gives the unbatched vectors within 1e-5 cosine (one group and many groups)', async () => {
    const reference = await Promise.all(PASSAGES.map(unbatched));
    // a window longer than the model reads is among them, so the truncation is exercised
    const longest = Math.max(...PASSAGES.flatMap(passageWindows).map((w) => tokenizer.encode(w).length));
    expect(longest).toBeGreaterThan(MAX_SEQUENCE_PIECES);

    for (const batchSize of [16, 2]) {
      const progress: number[] = [];
      const batched = await createUseLiteEmbedder({ batchSize, threads: 1 }).embedPassages(PASSAGES, (d) =>
        progress.push(d),
      );
      expect(batched).toHaveLength(PASSAGES.length);
      for (const [i, v] of batched.entries()) {
        expect(v).toHaveLength(512);
        expect(cosine(v, reference[i] as Float32Array)).toBeGreaterThan(1 - 1e-5);
        expect(Math.abs(cosine(v, v) - 1)).toBeLessThan(1e-6);
      }
      expect(progress.at(-1)).toBe(PASSAGES.length);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      if (batchSize === 2) expect(progress).toEqual([2, 4, 6]);
    }
  });

  it('keeps embedQuery: the library call on the question, normalised', async () => {
    const question = 'What was HDFC Bank’s gross NPA ratio at the end of FY24?';
    const [row] = await model.embed([question]);
    const expected = l2Normalise(Float32Array.from(row as number[]));
    expect(await createUseLiteEmbedder().embedQuery(question)).toEqual(expected);
  });

  it('keeps the embedder id (the vectors are unchanged)', () => {
    expect(useLiteEmbedderId()).toMatch(
      /^use-lite:@energetic-ai\/model-embeddings-en@[^:]+:windows-100-mean:l2$/,
    );
  });
});
