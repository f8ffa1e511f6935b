import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/corpus/schema.ts';
import {
  buildIndex,
  createEmbedder,
  type DenseEmbedder,
  type Embedder,
  type EmbedderName,
  type Index,
  openIndex,
  passageText,
  verifyIndex,
} from '../../src/retrieval/index.ts';
import { QUERY_CACHE } from '../../src/retrieval/manifest.ts';
import { chunkStarting, makeChunk, testChunks } from './chunks.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rge-retrieval-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let seq = 0;
const fresh = (label: string) => join(root, `${label}-${seq++}`);

describe.each<EmbedderName>(['bm25', 'use-lite'])('index with %s', (name) => {
  const chunks = testChunks();
  let embedder: Embedder;
  let dir: string;
  let cacheDir: string;
  let index: Index;

  beforeAll(async () => {
    embedder = await createEmbedder(name);
    dir = fresh(`${name}-main`);
    cacheDir = fresh(`${name}-cache`);
    await buildIndex(chunks, { dir, embedder, cacheDir });
    index = await openIndex(dir);
  });

  it.each([
    ['How many branches did the bank add to its network?', 'We added 913 branches'],
    ['Which share buyback did the Board approve?', 'The Board approved a buyback'],
    [
      'What safety rating did the passenger vehicles receive in crash tests?',
      'Every passenger vehicle launched',
    ],
    ['How many electric vehicles did Tata Motors sell in FY23?', 'The company sold 50,043 electric vehicles'],
  ])('ranks the obviously right chunk first: %s', async (question, prefix) => {
    const hits = await index.retrieve(question);
    expect(hits[0]?.id).toBe(chunkStarting(chunks, prefix).id);
    const scores = hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('returns whole chunks with a score', async () => {
    const [hit] = await index.retrieve('Which share buyback did the Board approve?', { k: 1 });
    const expected = chunkStarting(chunks, 'The Board approved a buyback');
    expect(hit).toEqual({ ...expected, score: expect.any(Number) });
  });

  it('applies company and fiscal-year filters before top-k', async () => {
    const question = 'Board dividend per share';
    const unfiltered = await index.retrieve(question, { k: 2 });
    expect(unfiltered.every((h) => h.company !== 'tata-motors')).toBe(true);
    const tata = await index.retrieve(question, { k: 2, company: 'tata-motors' });
    expect(tata).toHaveLength(2);
    expect(tata.every((h) => h.company === 'tata-motors')).toBe(true);
    expect(tata[0]?.id).toBe(chunkStarting(chunks, 'The Board did not recommend a dividend').id);
    const fy24 = await index.retrieve(question, { k: 3, fy: 'FY24' });
    expect(fy24.length).toBeGreaterThan(0);
    expect(fy24.every((h) => h.fy === 'FY24')).toBe(true);
    const both = await index.retrieve(question, { k: 5, company: 'infosys', fy: 'fy24' });
    expect(both.length).toBeGreaterThan(0);
    expect(both.every((h) => h.company === 'infosys' && h.fy === 'FY24')).toBe(true);
    expect(await index.retrieve(question, { company: 'no-such-company' })).toEqual([]);
  });

  it('returns k chunks (default 5) and rejects a bad k', async () => {
    const question = 'revenue growth and net profit for the year';
    expect(await index.retrieve(question)).toHaveLength(5);
    expect(await index.retrieve(question, { k: 1 })).toHaveLength(1);
    expect(await index.retrieve(question, { k: 3 })).toHaveLength(3);
    const top3 = await index.retrieve(question, { k: 3 });
    const top5 = await index.retrieve(question, { k: 5 });
    expect(top5.slice(0, 3).map((h) => h.id)).toEqual(top3.map((h) => h.id));
    await expect(index.retrieve(question, { k: 0 })).rejects.toThrow(/positive integer/);
    await expect(index.retrieve(question, { k: 1.5 })).rejects.toThrow(/positive integer/);
  });

  // Dense passages now carry their company in a header, so twin texts of different companies no longer
  // embed equally; dense ties are tested with a seeded embedder under 'top-k over many vectors'.
  it.runIf(name === 'bm25')('breaks ties by chunk id, whatever the input order', async () => {
    const text = 'Cash flow from operating activities was stable compared with the previous year.';
    const twins = ['zeta-co', 'alpha-co', 'mid-co'].map((c) => makeChunk(c, 'FY24', 'Cash flow', 3, text));
    const other = makeChunk(
      'other-co',
      'FY24',
      'Weather',
      1,
      'It rained heavily in the monsoon season this year.',
    );
    const ids = twins.map((c) => c.id).sort();
    for (const order of [[...twins, other], [other, ...twins].reverse()]) {
      const d = fresh(`${name}-ties`);
      await buildIndex(order, { dir: d, embedder, cacheDir });
      const hits = await (await openIndex(d)).retrieve('cash flow from operating activities', { k: 3 });
      expect(hits.map((h) => h.id)).toEqual(ids);
      expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    }
  });

  it('has a checksum that is stable across rebuilds and changes when a chunk changes', async () => {
    const first = await buildIndex(chunks, { dir: fresh(`${name}-a`), embedder, cacheDir });
    const shuffled = [...chunks].reverse();
    const again = await buildIndex(shuffled, { dir: fresh(`${name}-b`), embedder, cacheDir });
    expect(again.checksum).toBe(first.checksum);
    expect(index.checksum).toBe(first.checksum);
    expect(first.checksum).toMatch(/^[0-9a-f]{64}$/);

    const edited = chunks.map((c, i) => (i === 7 ? { ...c, text: `${c.text} Restated.` } : c));
    const changed = await buildIndex(edited, { dir: fresh(`${name}-c`), embedder, cacheDir });
    expect(changed.checksum).not.toBe(first.checksum);
    const fewer = await buildIndex(chunks.slice(1), { dir: fresh(`${name}-d`), embedder, cacheDir });
    expect(fewer.checksum).not.toBe(first.checksum);
  });

  it('verifyIndex passes on a fresh index and detects tampering', async () => {
    const d = fresh(`${name}-tamper`);
    await buildIndex(chunks, { dir: d, embedder, cacheDir });
    expect((await verifyIndex(d)).ok).toBe(true);
    if (embedder.kind === 'dense') {
      const path = join(d, 'index.json');
      const data = JSON.parse(await readFile(path, 'utf8')) as { items: { vector: number[] }[] };
      const item = data.items[3] as { vector: number[] };
      item.vector[0] = (item.vector[0] as number) + 1e-3;
      await writeFile(path, JSON.stringify(data));
    } else {
      const path = join(d, 'bm25.json');
      const data = JSON.parse(await readFile(path, 'utf8')) as { lengths: number[] };
      data.lengths[3] = (data.lengths[3] as number) + 1;
      await writeFile(path, JSON.stringify(data));
    }
    const result = await verifyIndex(d);
    expect(result.ok).toBe(false);
    expect(result.actual).not.toBe(result.stored);
    expect(result.problems.join('\n')).toMatch(/checksum mismatch/);
  });

  it('verifyIndex detects edited chunk text', async () => {
    const d = fresh(`${name}-text`);
    await buildIndex(chunks, { dir: d, embedder, cacheDir });
    const path = join(d, 'chunks.json');
    const data = JSON.parse(await readFile(path, 'utf8')) as Chunk[];
    (data[0] as Chunk).text = 'Something else entirely.';
    await writeFile(path, JSON.stringify(data));
    const result = await verifyIndex(d);
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toMatch(/chunks\.json changed/);
  });

  it('replaces an existing index in place and refuses to overwrite a folder that is not an index', async () => {
    const d = fresh(`${name}-replace`);
    await buildIndex(chunks.slice(0, 5), { dir: d, embedder, cacheDir });
    await buildIndex(chunks, { dir: d, embedder, cacheDir });
    expect((await openIndex(d)).size).toBe(chunks.length);
    const notAnIndex = fresh(`${name}-precious`);
    await buildIndex([], { dir: notAnIndex, embedder, cacheDir });
    await rm(join(notAnIndex, 'manifest.json'));
    await writeFile(join(notAnIndex, 'notes.txt'), 'mine');
    await expect(buildIndex(chunks, { dir: notAnIndex, embedder, cacheDir })).rejects.toThrow(
      /not an rge index/,
    );
    await expect(openIndex(notAnIndex)).rejects.toThrow(/rge corpus ingest/);
  });
});

describe('duplicate ids and missing indexes', () => {
  it('rejects duplicate chunk ids', async () => {
    const [c] = testChunks();
    await expect(
      buildIndex([c as Chunk, c as Chunk], { dir: fresh('dup'), embedder: 'bm25' }),
    ).rejects.toThrow(/duplicate chunk id/);
  });

  it('names the folder and the command when there is no index', async () => {
    const d = fresh('nothing');
    await expect(openIndex(d)).rejects.toThrow(d);
    await expect(openIndex(d)).rejects.toThrow(/rge corpus ingest/);
  });
});

describe('top-k over many vectors', () => {
  const dims = 24;
  const unit = (rng: () => number) => {
    const v = Float32Array.from({ length: dims }, () => rng() * 2 - 1);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  // A seeded embedder: the vector is a function of the text, so equal texts give equal vectors (ties).
  const seeded: DenseEmbedder = {
    kind: 'dense',
    name: 'seeded-test',
    id: 'seeded-test:v1',
    batchSize: 64,
    dimensions: dims,
    async embedPassages(texts) {
      return texts.map((t) => unit(seedrandom(t)));
    },
    async embedQuery(text) {
      return unit(seedrandom(text));
    },
  };

  it('breaks exact score ties by chunk id, whatever the input order', async () => {
    const constant: DenseEmbedder = {
      ...seeded,
      id: 'constant-test:v1',
      async embedPassages(texts) {
        return texts.map(() => unit(seedrandom('same')));
      },
    };
    const chunks = ['zeta-co', 'alpha-co', 'mid-co', 'beta-co'].map((c) =>
      makeChunk(c, 'FY24', 'h', 1, `text of ${c}`),
    );
    const ids = chunks.map((c) => c.id).sort();
    for (const order of [chunks, [...chunks].reverse()]) {
      const dir = fresh('constant');
      await buildIndex(order, { dir, embedder: constant, cacheDir: fresh('constant-cache') });
      const hits = (await openIndex(dir, { embedder: constant })).retrieveByVector(unit(seedrandom('q')), {
        k: 3,
      });
      expect(hits.map((h) => h.id)).toEqual(ids.slice(0, 3));
      expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    }
  });

  it('matches a brute-force ranking (score desc, id asc) for every k and filter', async () => {
    const chunks = Array.from({ length: 300 }, (_, i) =>
      makeChunk(`co-${i % 7}`, i % 2 ? 'FY23' : 'FY24', 'h', 1, `passage ${i % 240}`),
    );
    const dir = fresh('seeded');
    await buildIndex(chunks, { dir, embedder: seeded, cacheDir: fresh('seeded-cache') });
    const index = await openIndex(dir, { embedder: seeded });
    // the index embeds heading + text (passageText), so the reference does too
    const vectors = new Map(chunks.map((c) => [c.id, unit(seedrandom(passageText(c)))]));
    const rng = seedrandom('queries');
    for (let q = 0; q < 20; q++) {
      const query = q % 4 === 0 ? unit(seedrandom(`h\npassage ${q}`)) : unit(rng);
      for (const [k, company] of [
        [1, undefined],
        [5, undefined],
        [17, 'co-3'],
        [300, undefined],
        [400, 'co-1'],
      ] as const) {
        const expected = chunks
          .filter((c) => !company || c.company === company)
          .map((c) => {
            const v = vectors.get(c.id) as Float32Array;
            let dot = 0;
            for (let j = 0; j < dims; j++) dot += (v[j] as number) * (query[j] as number);
            return { id: c.id, score: dot };
          })
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
          .slice(0, k);
        const got = index.retrieveByVector(query, { k, ...(company ? { company } : {}) });
        expect(got.map((h) => h.id)).toEqual(expected.map((e) => e.id));
        got.forEach((h, i) => {
          expect(h.score).toBeCloseTo(expected[i]?.score as number, 5);
        });
      }
    }
    await expect(index.retrieve('passage 3', { k: 1 })).resolves.toHaveLength(1);
  });

  it('embeds a question once per index: later opens read its vector from the query cache', async () => {
    const asked: string[] = [];
    const counting: DenseEmbedder = {
      ...seeded,
      async embedQuery(text) {
        asked.push(text);
        return unit(seedrandom(text));
      },
    };
    const chunks = Array.from({ length: 40 }, (_, i) =>
      makeChunk(`co-${i % 5}`, 'FY24', 'h', 1, `passage ${i}`),
    );
    const dir = fresh('query-cache');
    await buildIndex(chunks, { dir, embedder: seeded, cacheDir: fresh('query-cache-cache') });
    const first = await (await openIndex(dir, { embedder: counting })).retrieve('passage 7', { k: 5 });
    expect(asked).toEqual(['passage 7']);
    // another process (a new open) asking the same question: same hits, no embedding
    const again = await openIndex(dir, { embedder: counting });
    expect(await again.retrieve('passage 7', { k: 5 })).toEqual(first);
    expect(asked).toEqual(['passage 7']);
    // another question is embedded
    await again.retrieve('passage 8', { k: 5 });
    expect(asked).toEqual(['passage 7', 'passage 8']);
    // a cache file that does not hold the question's text (or is damaged) is not used
    const files = (await readdir(join(dir, QUERY_CACHE), { recursive: true })).filter((f) =>
      f.endsWith('.f32'),
    );
    expect(files).toHaveLength(2);
    for (const f of files) await writeFile(join(dir, QUERY_CACHE, f), 'damaged');
    expect(await (await openIndex(dir, { embedder: counting })).retrieve('passage 7', { k: 5 })).toEqual(
      first,
    );
    expect(asked).toEqual(['passage 7', 'passage 8', 'passage 7']);
    // the cache is not part of the index: the checksum still verifies
    expect((await verifyIndex(dir)).ok).toBe(true);
  });
});

describe('concurrent builds of one index', () => {
  it('all succeed, leave one valid index and no leftovers (the suite and a test may race on a fresh clone)', async () => {
    const { mkdtemp, readdir } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const parent = await mkdtemp(join(tmpdir(), 'rge-race-'));
    const dir = join(parent, 'index');
    const chunks = Array.from({ length: 30 }, (_, i) =>
      makeChunk('race-co', 'FY24', 'h', 1, `revenue grew in segment ${i}`),
    );
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () =>
        buildIndex(chunks, { dir, embedder: 'bm25', cacheDir: join(parent, 'cache') }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((await openIndex(dir)).size).toBe(30);
    expect((await readdir(parent)).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});
