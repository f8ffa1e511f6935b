/**
 * Retrieval latency at 6,000 chunks of 512-d vectors (seeded random unit vectors): `retrieveByVector`
 * (question embedding excluded) against a plain Float32Array cosine scan with a full sort over the
 * same vectors, and vectra's own `queryItems` against the same scan. Also a filtered query (one
 * company of 20) and the time to open the index.
 */
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { LocalIndex } from 'vectra';
import type { Chunk } from '../src/corpus/schema.ts';
import type { DenseEmbedder } from '../src/retrieval/embedder.ts';
import { buildIndex, openIndex } from '../src/retrieval/index.ts';
import { l2Normalise } from '../src/retrieval/vectors.ts';
import { type Bench, type BenchRow, latencyRow, percentile } from './harness.ts';

const DIMS = 512;

function unitVector(rng: () => number): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = rng() * 2 - 1;
  return l2Normalise(v);
}

/** A dense embedder whose vector is a seeded function of the text: stands in for a model here. */
function randomEmbedder(): DenseEmbedder {
  const embed = (t: string) => unitVector(seedrandom(t));
  return {
    kind: 'dense',
    name: 'random-bench',
    id: 'random-bench:seedrandom-3:512',
    batchSize: 512,
    dimensions: DIMS,
    async embedPassages(texts) {
      return texts.map(embed);
    },
    async embedQuery(text) {
      return embed(text);
    },
  };
}

function hexId(i: number): string {
  return (i * 2654435761 + 1).toString(16).padStart(8, '0').slice(-8);
}

function chunksFor(n: number): Chunk[] {
  return Array.from({ length: n }, (_, i): Chunk => {
    const company = `company-${i % 20}`;
    const fy = i % 2 === 0 ? 'FY24' : 'FY23';
    return {
      id: `${company}-${fy}-${hexId(i)}`,
      company,
      fy,
      source: `${company}.pdf`,
      heading: `Section ${i % 50}`,
      pages: [1 + (i % 300), 1 + (i % 300)],
      tokens: 400,
      text: `passage ${i}`,
    };
  });
}

/** The reference: cosine against every row, scores into an array, full sort, take k. */
function plainScan(
  matrix: Float32Array,
  norms: Float32Array,
  ids: string[],
  q: Float32Array,
  k: number,
): string[] {
  const n = ids.length;
  let qn = 0;
  for (let j = 0; j < DIMS; j++) qn += (q[j] as number) ** 2;
  qn = Math.sqrt(qn);
  const scores = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    let dot = 0;
    for (let j = 0; j < DIMS; j++) dot += (matrix[r * DIMS + j] as number) * (q[j] as number);
    scores[r] = dot / (qn * (norms[r] as number));
  }
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => (scores[b] as number) - (scores[a] as number),
  );
  return order.slice(0, k).map((i) => ids[i] as string);
}

function stats(ms: number[]): { p50: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: percentile(s, 0.5), p95: percentile(s, 0.95) };
}

async function measure(queries: Float32Array[], fn: (q: Float32Array) => unknown): Promise<number[]> {
  for (const q of queries.slice(0, 5)) await fn(q); // warm-up
  const out: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await fn(q);
    out.push(performance.now() - t0);
  }
  return out;
}

const bench: Bench = async (ctx) => {
  // the published corpus's size; --quick checks the path on a sixth of it
  const n = ctx.quick ? 1000 : 6000;
  const k = 5;
  const chunks = chunksFor(n);
  const dir = join(ctx.tmp, 'index');
  let t0 = performance.now();
  await buildIndex(chunks, { dir, embedder: randomEmbedder(), cacheDir: join(ctx.tmp, 'cache') });
  const buildMs = performance.now() - t0;
  t0 = performance.now();
  const index = await openIndex(dir);
  const openMs = performance.now() - t0;
  ctx.log(`built ${n} chunks in ${buildMs.toFixed(0)} ms, opened in ${openMs.toFixed(0)} ms`);

  // the reference reads the same stored vectors
  const items = (await new LocalIndex(dir).listItems()).sort((a, b) => (a.id < b.id ? -1 : 1));
  const ids = items.map((i) => i.id);
  const matrix = new Float32Array(n * DIMS);
  items.forEach((it, r) => {
    matrix.set(it.vector, r * DIMS);
  });
  const norms = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    let s = 0;
    for (let j = 0; j < DIMS; j++) s += (matrix[r * DIMS + j] as number) ** 2;
    norms[r] = Math.sqrt(s);
  }

  const rng = seedrandom('rge-retrieval-bench-queries');
  const queries = Array.from({ length: ctx.quick ? 50 : 300 }, () => unitVector(rng));
  let disagreements = 0;
  for (const q of queries.slice(0, 20)) {
    const ours = index.retrieveByVector(q, { k }).map((h) => h.id);
    if (ours.join() !== plainScan(matrix, norms, ids, q, k).join()) disagreements++;
  }
  if (disagreements > 0)
    ctx.log(`WARNING: ${disagreements}/20 queries ranked differently from the plain scan`);

  const ours = stats(await measure(queries, (q) => index.retrieveByVector(q, { k })));
  const plain = stats(await measure(queries, (q) => plainScan(matrix, norms, ids, q, k)));
  const filtered = stats(
    await measure(queries, (q) => index.retrieveByVector(q, { k, company: 'company-7' })),
  );
  const vectra = new LocalIndex(dir);
  const vq = queries.slice(0, ctx.quick ? 20 : 100);
  const vectraMs = stats(await measure(vq, (q) => vectra.queryItems(Array.from(q), '', k)));
  const plainV = stats(await measure(vq, (q) => plainScan(matrix, norms, ids, q, k)));

  const ref = (name: string, v: number) => ({ name, value: v });
  const rows: BenchRow[] = [
    latencyRow(
      `retrieveByVector p50 (${n} x ${DIMS}, k=${k})`,
      'ms',
      ours.p50,
      ref('plain cosine scan', plain.p50),
    ),
    latencyRow(
      `retrieveByVector p95 (${n} x ${DIMS}, k=${k})`,
      'ms',
      ours.p95,
      ref('plain cosine scan', plain.p95),
    ),
    latencyRow(
      'retrieveByVector p50, company filter (1/20)',
      'ms',
      filtered.p50,
      ref('plain cosine scan, unfiltered', plain.p50),
    ),
    latencyRow(
      'vectra queryItems p50',
      'ms',
      vectraMs.p50,
      ref('plain cosine scan', plainV.p50),
      'not used by rge',
    ),
    latencyRow(
      'vectra queryItems p95',
      'ms',
      vectraMs.p95,
      ref('plain cosine scan', plainV.p95),
      'not used by rge',
    ),
    latencyRow(`openIndex (${n} chunks)`, 'ms', openMs, null, `build ${buildMs.toFixed(0)} ms`),
  ];
  if (disagreements > 0) {
    for (const r of rows)
      r.note = `${r.note ? `${r.note}; ` : ''}${disagreements}/20 rankings differ from the scan`;
  }
  return rows;
};

export default bench;
