/**
 * Ingest on every core gives the same index whatever the number of worker threads: the fixture
 * world's 20 report PDFs (test/helpers/fixture-world.ts) ingested cold with one thread and whole
 * documents, and with three threads and two-page ranges (each report spread over the threads, its
 * ranges finishing in any order), give the same pages, chunk ids and index checksum, which are also
 * those of the world's own index (built with the default pool).
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkDocument } from '../../src/corpus/chunk.ts';
import { CorpusWorkers } from '../../src/corpus/workers.ts';
import type { IngestDocument } from '../../src/ingest/documents.ts';
import { type IngestReport, ingest } from '../../src/ingest/ingest.ts';
import { IndexManifest } from '../../src/retrieval/manifest.ts';
import { testRunDir, worldOverrides, worldPaths } from '../helpers/fixture-world.ts';

async function worldManifest(): Promise<IndexManifest> {
  const file = join(worldPaths('bm25').index, 'manifest.json');
  return IndexManifest.parse(JSON.parse(await readFile(file, 'utf8')));
}

/** The world's documents as its index records them (company and year as the fixture build named them). */
async function worldDocuments(): Promise<IngestDocument[]> {
  const documents = (await worldManifest()).corpus?.documents ?? [];
  return documents.map((d) => ({
    path: join(worldPaths('bm25').pdfs, d.source),
    company: d.company,
    fy: d.fy,
    source: d.source,
  }));
}

async function coldIngest(label: string, concurrency: number, rangePages: number) {
  const dir = await mkdtemp(join(testRunDir(), `workers-${label}-`));
  const docs = await worldDocuments();
  const report = await ingest(docs, {
    indexDir: join(dir, 'index'),
    cacheDir: join(dir, 'cache'),
    embedder: 'bm25',
    concurrency,
    rangePages,
  });
  const pageFiles = (await readdir(join(dir, 'cache', 'pages'))).sort();
  const pages = await Promise.all(pageFiles.map((f) => readFile(join(dir, 'cache', 'pages', f), 'utf8')));
  const chunks = JSON.parse(await readFile(join(dir, 'index', 'chunks.json'), 'utf8')) as { id: string }[];
  return { report, pageFiles, pages, ids: chunks.map((c) => c.id) };
}

describe('ingest on worker threads', () => {
  let one: Awaited<ReturnType<typeof coldIngest>>;
  let three: Awaited<ReturnType<typeof coldIngest>>;

  beforeAll(async () => {
    await worldOverrides('bm25');
    one = await coldIngest('one', 1, 1000);
    three = await coldIngest('three', 3, 2);
  });

  it('used the threads it was given', () => {
    expect(one.report.timings.threads).toBe(1);
    expect(three.report.timings.threads).toBe(3);
    expect(three.report.documents.every((d) => d.pages > 2)).toBe(true); // so every report was split
  });

  it('gives the same pages, chunk ids and checksum with 1 and 3 threads', () => {
    const checksum = (r: IngestReport) => r.index?.checksum;
    expect(one.report.failed).toBe(0);
    expect(one.ids.length).toBeGreaterThan(50);
    expect(three.pageFiles).toEqual(one.pageFiles);
    expect(three.pages).toEqual(one.pages);
    expect(three.ids).toEqual(one.ids);
    expect(checksum(three.report)).toBe(checksum(one.report));
    expect(three.report.documents).toEqual(one.report.documents);
  });

  it('and the same checksum as the world index built with the default pool', async () => {
    expect(one.report.index?.checksum).toBe((await worldManifest()).checksum);
  });

  it('reports where the time went', () => {
    const t = three.report.timings;
    expect(t.parseMs).toBeGreaterThan(0);
    expect(t.chunkMs).toBeGreaterThan(0);
    expect(t.extractWallMs).toBeGreaterThan(0);
    expect(t.embedMs).toBeGreaterThan(0);
    expect(t.writeMs).toBeGreaterThan(0);
  });
});

describe('the corpus pool in two phases', () => {
  it('extracts, stops its extraction threads, then chunks pages given or read from a page file', async () => {
    await worldOverrides('bm25');
    const [doc] = await worldDocuments();
    if (!doc) throw new Error('the fixture world has no documents');
    const dir = await mkdtemp(join(testRunDir(), 'phases-'));
    const pool = new CorpusWorkers({ size: 2, rangePages: 2 });
    try {
      const { pages } = await pool.extractDocument(doc.path, 'auto');
      await pool.closeExtraction();
      await expect(pool.extractDocument(doc.path, 'auto')).rejects.toThrow(/closed/);
      const meta = { company: doc.company, fy: doc.fy, source: doc.source };
      const file = join(dir, 'pages.json');
      await writeFile(file, JSON.stringify(pages));
      const inThread = chunkDocument(pages, meta);
      expect(inThread.length).toBeGreaterThan(0);
      expect((await pool.chunkDocument(pages, meta)).chunks).toEqual(inThread);
      expect((await pool.chunkDocument(file, meta)).chunks).toEqual(inThread);
      await expect(pool.chunkDocument(join(dir, 'missing.json'), meta)).rejects.toThrow(
        /corpus chunking thread failed on .*ENOENT/s,
      );
    } finally {
      await pool.close();
    }
  });
});
