/**
 * `rge retrieve --explain`: why a chunk ranked (its scope, matched terms and fields, lexical and dense
 * ranks), consistent with what `retrieve` returns, and the same for a chunk that missed the top k.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, type EmbedderName, type Index, openIndex } from '../../src/retrieval/index.ts';
import { runRge } from '../helpers/cli.ts';
import { chunkStarting, testChunks } from './chunks.ts';

const chunks = testChunks();
let cwd: string;
const indexes = new Map<EmbedderName, Index>();

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'rge-explain-'));
  const cacheDir = join(cwd, '.cache');
  for (const embedder of ['bm25', 'use-lite', 'hybrid'] as const) {
    await buildIndex(chunks, { dir: join(cwd, embedder), embedder, cacheDir });
    indexes.set(embedder, await openIndex(join(cwd, embedder)));
  }
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const QUESTION = 'Which share buyback did the Board approve?';

describe('Index.explain', () => {
  it.each(['bm25', 'use-lite', 'hybrid'] as const)(
    'explains exactly the chunks retrieve returns (%s)',
    async (name) => {
      const index = indexes.get(name) as Index;
      const hits = await index.retrieve(QUESTION, { k: 4 });
      const e = await index.explain(QUESTION, { k: 4 });
      expect(e.chunks.map((c) => c.id)).toEqual(hits.map((h) => h.id));
      expect(e.chunks.map((c) => c.rank)).toEqual([1, 2, 3, 4]);
      for (const [i, c] of e.chunks.entries()) expect(c.score).toBeCloseTo(hits[i]?.score as number, 9);
      expect(e.chunks.every((c) => (c.lexical !== null) === (name !== 'use-lite'))).toBe(true);
      expect(e.chunks.every((c) => (c.dense !== null) === (name !== 'bm25'))).toBe(true);
    },
  );

  it("splits a chunk's BM25 score into its matched terms, with where each matched and where it came from", async () => {
    const e = await (indexes.get('bm25') as Index).explain('What capex did HDFC Bank report?', {
      k: 1,
    });
    const [top] = e.chunks;
    const terms = top?.lexical?.terms ?? [];
    expect(terms.length).toBeGreaterThan(0);
    expect(terms.reduce((s, t) => s + t.score, 0)).toBeCloseTo(top?.lexical?.score as number, 9);
    expect(e.query?.question).toEqual(['capex', 'hdfc', 'bank', 'report']);
    expect(e.query?.expansion).toContain('capital');
    const hdfc = terms.find((t) => t.term === 'hdfc');
    if (top?.company === 'hdfc-bank') expect(hdfc?.fields).toContain('header');
    for (const t of terms) expect(t.from).toBe(e.query?.question.includes(t.term) ? 'question' : 'expansion');
  });

  it('explains a chunk that missed the top k, with its ranks', async () => {
    const index = indexes.get('hybrid') as Index;
    const missed = chunkStarting(chunks, 'Gross non-performing assets');
    const e = await index.explain(QUESTION, { k: 2, chunkIds: [missed.id] });
    expect(e.chunks).toHaveLength(3);
    const last = e.chunks[2];
    expect(last?.id).toBe(missed.id);
    expect(last?.rank === null || (last?.rank as number) > 2).toBe(true);
    expect(last?.dense?.rank).toBeGreaterThan(0);
    await expect(index.explain(QUESTION, { chunkIds: ['nope-FY24-00000000'] })).rejects.toThrow(
      /no chunk nope/,
    );
  });
});

describe('rge retrieve --explain', () => {
  it('prints the scope, the query terms and why each chunk ranked', async () => {
    const { code, out, err } = await runRge(
      cwd,
      'retrieve',
      'How many electric vehicles did Tata Motors sell in FY23?',
      '--index',
      'hybrid',
      '--k',
      '2',
      '--explain',
      '--scope',
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(
      /^ranked in: tata-motors \(named by the question\); FY23 \(named by the question\)$/m,
    );
    expect(out).toMatch(/^question terms: many electric vehicles tata motors sell fiscal 2023$/m);
    expect(out).toMatch(/^1\. tata-motors-FY23-/m);
    expect(out).toMatch(/why: lexical rank \d+ \(bm25 [\d.]+\), dense rank \d+ \(cosine [\d.-]+\)/);
    expect(out).toMatch(/matched: .*electric [\d.]+ \(tf \d+, idf [\d.]+, (header\+)?text\)/);
  });

  it('explains the chunks on a page the user names, and prints JSON with --json', async () => {
    const target = chunkStarting(chunks, 'Gross non-performing assets');
    const { code, out } = await runRge(
      cwd,
      'retrieve',
      QUESTION,
      '--index',
      'bm25',
      '--k',
      '1',
      '--company',
      target.company,
      '--explain',
      '--explain-page',
      String(target.pages[0]),
      '--json',
    );
    expect(code).toBe(0);
    const e = JSON.parse(out) as { scope: { companies: string[] }; chunks: { id: string }[] };
    expect(e.scope.companies).toEqual([target.company]);
    expect(e.chunks.map((c) => c.id)).toContain(target.id);
  });

  it('ranks every company unless --scope, saying what the question names; --explain-chunk alone is a usage error', async () => {
    const all = await runRge(cwd, 'retrieve', 'Tata Motors dividend', '--explain', '--index', 'bm25');
    expect(all.out).toMatch(
      /ranked in: every company \(the question names tata-motors; --scope ranks only those\); every fiscal year/,
    );
    const scoped = await runRge(
      cwd,
      'retrieve',
      'Tata Motors dividend',
      '--explain',
      '--scope',
      '--index',
      'bm25',
    );
    expect(scoped.out).toMatch(/ranked in: tata-motors \(named by the question\); every fiscal year/);
    const bad = await runRge(cwd, 'retrieve', QUESTION, '--explain-chunk', 'x', '--index', 'bm25');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--explain-chunk and --explain-page go with --explain/);
  });
});
