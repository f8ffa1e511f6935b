/**
 * Index identity: an index records what it was built from (embedder, chunk size, overlap, extraction,
 * each document's sha256), and a config that asks for something else never gets it silently. A
 * generated corpus is rebuilt; a fetched one fails with every difference named.
 */
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { CHUNKER_VERSION, EXTRACTOR_VERSION } from '../../src/corpus/version.ts';
import { documentsFromSources } from '../../src/ingest/documents.ts';
import { ingest } from '../../src/ingest/ingest.ts';
import { readIndexManifest } from '../../src/retrieval/index.ts';
import {
  type CorpusRunConfig,
  withCorpus as corpusOf,
  loadRunConfig,
  type RunConfig,
} from '../../src/run/config/config.ts';
import {
  ensureCorpusIndex,
  expectedIndex,
  indexIdentityDifferences,
} from '../../src/run/config/corpus-index.ts';
import { RgeError } from '../../src/util/errors.ts';
import { runRge } from '../helpers/cli.ts';
import { makeTextPdf } from '../helpers/make-pdf.ts';
import { openTestRun } from '../helpers/open-run.ts';

const ROOT = resolve(import.meta.dirname, '../..');

const page = (company: string, n: number) =>
  `${company} annual report\nSegment results\n${Array.from({ length: 40 }, (_, i) => `Line ${n}.${i}: revenue from operations of ${company} rose to Rs ${1000 + i * 7} crore in the year.`).join('\n')}`;

interface FetchedCorpus {
  dir: string;
  config: string;
  at: (p: string) => string;
}

let built: Promise<FetchedCorpus> | null = null;

/**
 * A fetched-corpus config over two small PDFs, with the index built by `ingest` as `rge corpus ingest`
 * does: built once, then each caller gets its own copy (config paths rewritten).
 */
async function fetchedCorpus(): Promise<FetchedCorpus> {
  built ??= buildFetchedCorpus();
  const original = await built;
  const dir = await mkdtemp(join(tmpdir(), 'rge-identity-copy-'));
  await cp(original.dir, dir, { recursive: true });
  const config = (await readFile(join(dir, 'config.yaml'), 'utf8')).replaceAll(original.dir, dir);
  await writeFile(join(dir, 'config.yaml'), config);
  return { dir, config: join(dir, 'config.yaml'), at: original.at };
}

async function buildFetchedCorpus(): Promise<FetchedCorpus> {
  const dir = await mkdtemp(join(tmpdir(), 'rge-identity-'));
  await mkdir(join(dir, 'pdfs'));
  await writeFile(join(dir, 'pdfs', 'acme-FY24.pdf'), await makeTextPdf([page('Acme', 1), page('Acme', 2)]));
  await writeFile(join(dir, 'pdfs', 'zenith-FY24.pdf'), await makeTextPdf([page('Zenith', 1)]));
  await writeFile(
    join(dir, 'sources.yaml'),
    [
      'version: 1',
      'documents:',
      ...['acme', 'zenith'].flatMap((c) => [
        `  - company: ${c}`,
        `    company_name: ${c} Limited`,
        '    fy: FY24',
        '    url: null',
        '    sha256: null',
        '    accessed_on: null',
        `    file: ${c}-FY24.pdf`,
      ]),
      '',
    ].join('\n'),
  );
  const fixture = await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8');
  const corpusBlock = [
    'corpus:',
    `  sources: ${join(dir, 'sources.yaml')}`,
    `  pdfs: ${join(dir, 'pdfs')}`,
    `  index: ${join(dir, 'index')}`,
    '  embedder: bm25',
    '  chunk_tokens: 800',
    '  overlap_tokens: 100',
    '',
  ].join('\n');
  const config = fixture
    .replace(/^corpus:\n(?: {2}.*\n)+/m, corpusBlock)
    .replace(/^name: fixture$/m, 'name: fetched');
  await writeFile(join(dir, 'config.yaml'), config);
  const at = (p: string) => resolve(ROOT, p);
  const loaded = corpusOf(await loadRunConfig(join(dir, 'config.yaml')), 'the test');
  const { loadSources } = await import('../../src/corpus/sources.ts');
  const docs = documentsFromSources(
    (await loadSources(join(dir, 'sources.yaml'))).documents,
    join(dir, 'pdfs'),
  );
  const report = await ingest(docs, {
    indexDir: join(dir, 'index'),
    embedder: 'bm25',
    cacheDir: join(dir, 'cache'),
    chunking: { maxTokens: loaded.corpus.chunk_tokens, overlapTokens: loaded.corpus.overlap_tokens },
  });
  expect(report.failed).toBe(0);
  return { dir, config: join(dir, 'config.yaml'), at };
}

const withCorpus = (config: RunConfig, patch: Partial<CorpusRunConfig['corpus']>): RunConfig => ({
  ...config,
  corpus: { ...corpusOf(config, 'the test').corpus, ...patch },
});

describe('the index manifest records what the index was built from', () => {
  it('embedder, chunk size, overlap, extraction and each document with its sha256', async () => {
    const { dir } = await fetchedCorpus();
    const manifest = await readIndexManifest(join(dir, 'index'));
    expect(manifest?.formatVersion).toBe(2);
    expect(manifest?.embedder).toMatchObject({ name: 'bm25', revision: null });
    expect(manifest?.corpus?.chunking).toEqual({
      chunkTokens: 800,
      overlapTokens: 100,
      chunker: `rge-chunk@${CHUNKER_VERSION}`,
    });
    expect(manifest?.corpus?.extraction).toEqual({
      extractor: `rge-extract@${EXTRACTOR_VERSION}`,
      tables: 'auto',
    });
    const { sha256File } = await import('../../src/util/fs.ts');
    expect(manifest?.corpus?.documents).toEqual([
      {
        source: 'acme-FY24.pdf',
        company: 'acme',
        fy: 'FY24',
        sha256: await sha256File(join(dir, 'pdfs/acme-FY24.pdf')),
      },
      {
        source: 'zenith-FY24.pdf',
        company: 'zenith',
        fy: 'FY24',
        sha256: await sha256File(join(dir, 'pdfs/zenith-FY24.pdf')),
      },
    ]);
  });
});

describe('a fetched corpus: a disagreeing index is an error naming every difference', () => {
  let corpus: Awaited<ReturnType<typeof fetchedCorpus>>;
  let config: RunConfig;
  beforeAll(async () => {
    corpus = await fetchedCorpus();
    config = await loadRunConfig(corpus.config);
  });

  it('uses the index when everything agrees, and never rebuilds it', async () => {
    expect(await ensureCorpusIndex(config, corpus.at)).toBe(false);
  });

  it('names chunk size, overlap, embedder and extraction mode when they differ, and the command that fixes it', async () => {
    const other = withCorpus(config, {
      chunk_tokens: 400,
      overlap_tokens: 50,
      embedder: 'use-lite',
      tables: 'never',
    });
    const err = await ensureCorpusIndex(other, corpus.at).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RgeError);
    const message = (err as Error).message;
    expect(message).toContain(
      `the index at ${join(corpus.dir, 'index')} was not built the way fetched's config asks`,
    );
    expect(message).toContain('chunk_tokens: index 800, config 400');
    expect(message).toContain('overlap_tokens: index 100, config 50');
    expect(message).toContain('embedder: index bm25, config use-lite');
    expect(message).toContain('tables: index auto, config never');
    expect(message).toContain('rge corpus ingest --config');
  });

  it('notices a document whose PDF changed, one that appeared and one that is gone', async () => {
    const c = await fetchedCorpus();
    const conf = await loadRunConfig(c.config);
    await writeFile(join(c.dir, 'pdfs', 'acme-FY24.pdf'), await makeTextPdf([page('Acme', 3)]));
    const expected = await expectedIndex(conf, c.at);
    const manifest = await readIndexManifest(join(c.dir, 'index'));
    if (!manifest) throw new Error('no manifest');
    const diffs = await indexIdentityDifferences(manifest, expected, join(c.dir, 'pdfs'));
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toMatch(
      /^documents: acme-FY24\.pdf changed \(index sha256 [0-9a-f]{12}, now [0-9a-f]{12}\)$/,
    );
    const gone = new Map(expected.documents);
    gone.set('zenith-FY24.pdf', null);
    gone.set('nova-FY24.pdf', 'f'.repeat(64));
    const more = await indexIdentityDifferences(
      manifest,
      { ...expected, documents: gone },
      join(c.dir, 'pdfs'),
    );
    expect(more).toContain('documents: zenith-FY24.pdf is in the index but its PDF is gone');
    expect(more).toContain('documents: nova-FY24.pdf is present but not in the index');
  });

  it('names a hybrid fusion parameter the config changed', async () => {
    const c = await fetchedCorpus();
    const manifest = await readIndexManifest(join(c.dir, 'index'));
    if (!manifest) throw new Error('no manifest');
    const params = {
      fusion: 'rrf',
      dense: 'use-lite',
      rrfK: 60,
      depth: 50,
      lexicalWeight: 1,
      denseWeight: 1,
    };
    const hybridIndex = {
      ...manifest,
      embedder: { ...manifest.embedder, name: 'hybrid', parameters: params },
    };
    const expected = await expectedIndex(
      withCorpus(await loadRunConfig(c.config), { embedder: 'hybrid', hybrid: { rrf_k: 20 } } as Partial<
        CorpusRunConfig['corpus']
      >),
      c.at,
    );
    expect(await indexIdentityDifferences(hybridIndex, expected, join(c.dir, 'pdfs'))).toEqual([
      'embedder rrfK: index 60, config 20',
    ]);
    const same = { ...expected, embedderParameters: params };
    expect(await indexIdentityDifferences(hybridIndex, same, join(c.dir, 'pdfs'))).toEqual([]);
  });

  it('treats an index built before rge recorded its provenance as disagreeing', async () => {
    const c = await fetchedCorpus();
    const path = join(c.dir, 'index', 'manifest.json');
    const legacy = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    delete legacy.corpus;
    legacy.formatVersion = 1;
    const embedder = legacy.embedder as Record<string, unknown>;
    delete embedder.revision;
    delete embedder.parameters;
    await writeFile(path, JSON.stringify(legacy));
    const err = await ensureCorpusIndex(await loadRunConfig(c.config), c.at).catch((e: unknown) => e);
    expect((err as Error).message).toContain('provenance: the index was built before rge recorded');
  });

  it('names an index chunked by an older chunker (one that records none is version 1), and only that', async () => {
    const c = await fetchedCorpus();
    const path = join(c.dir, 'index', 'manifest.json');
    const older = JSON.parse(await readFile(path, 'utf8')) as {
      corpus: { chunking: Record<string, unknown> };
    };
    delete older.corpus.chunking.chunker;
    await writeFile(path, JSON.stringify(older));
    const manifest = await readIndexManifest(join(c.dir, 'index'));
    if (!manifest) throw new Error('no manifest');
    const expected = await expectedIndex(await loadRunConfig(c.config), c.at);
    expect(await indexIdentityDifferences(manifest, expected, join(c.dir, 'pdfs'))).toEqual([
      `chunker: index rge-chunk@1, this rge rge-chunk@${CHUNKER_VERSION}`,
    ]);
  });

  it('eval run refuses the disagreeing index before anything runs (exit 1, the difference named)', async () => {
    const r = await runRge(
      ROOT,
      ...[
        'eval',
        'run',
        '--config',
        corpus.config,
        '--set',
        'corpus.chunk_tokens=600',
        '--questions',
        '1',
        '--runs',
        '1',
      ],
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain('chunk_tokens: index 800, config 600');
  });

  it('rge corpus ingest --config rebuilds it the way the config asks, after which the run uses it', async () => {
    const c = await fetchedCorpus();
    const r = await runRge(
      ROOT,
      ...[
        'corpus',
        'ingest',
        '--config',
        c.config,
        '--chunk-tokens',
        '300',
        '--overlap-tokens',
        '30',
        '-q',
        '--cache-dir',
        join(c.dir, 'cache'),
      ],
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('2/2 documents ingested');
    const manifest = await readIndexManifest(join(c.dir, 'index'));
    expect(manifest?.corpus?.chunking).toEqual({
      chunkTokens: 300,
      overlapTokens: 30,
      chunker: `rge-chunk@${CHUNKER_VERSION}`,
    });
    const conf = await loadRunConfig(c.config);
    expect(await ensureCorpusIndex(withCorpus(conf, { chunk_tokens: 300, overlap_tokens: 30 }), c.at)).toBe(
      false,
    );
  });
});

describe('a generated corpus: built on first use, never replaced by a run of other settings', () => {
  it('a run asking for other chunking or another embedder is refused and leaves the index as it is; corpus ingest --config rebuilds it', async () => {
    const work = await mkdtemp(join(tmpdir(), 'rge-generated-'));
    await copyFile(join(ROOT, 'fixtures/facts.json'), join(work, 'facts.json'));
    const overrides = (chunk: number, embedder = 'bm25') => [
      `corpus.generated_from=${join(work, 'facts.json')}`,
      `corpus.pdfs=${join(work, 'pdfs')}`,
      `corpus.index=${join(work, 'index')}`,
      `corpus.embedder=${embedder}`,
      `corpus.chunk_tokens=${chunk}`,
    ];
    const logs: string[] = [];
    const prepare = (chunk: number, embedder?: string) =>
      openTestRun({
        config: 'configs/fixture.yaml',
        root: ROOT,
        overrides: overrides(chunk, embedder),
        resultsDir: join(work, 'results'),
        reportsDir: join(work, 'reports'),
        dryRun: true,
        log: (line) => logs.push(line),
      });
    const first = await prepare(800);
    const chunksAt800 = first.index?.size ?? 0;
    expect(logs[0]).toMatch(/building the fixture corpus and index \(first use\)/);
    // the build's stages report their progress, each ending with how long it took
    expect(logs.filter((l) => /^ {2}(extract|embed): \d+\/\d+ \(100%\) done in \d/.test(l))).toHaveLength(2);
    expect(logs.slice(1).every((l) => /^ {2}(extract|embed): \d+\/\d+ \(\d+%\)/.test(l))).toBe(true);
    logs.length = 0;
    await prepare(800);
    expect(logs).toEqual([]); // agrees: used as it is
    const manifestFile = join(work, 'index', 'manifest.json');
    const built = await readFile(manifestFile, 'utf8');
    // another config's settings (the loopback command of the README once asked for use-lite here)
    for (const [chunk, embedder, difference] of [
      [400, 'bm25', 'chunk_tokens: index 800, config 400'],
      [800, 'use-lite', 'embedder: index bm25, config use-lite'],
    ] as const) {
      const err = await prepare(chunk, embedder).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RgeError);
      const message = (err as Error).message;
      expect(message).toContain(
        `the index at ${join(work, 'index')} was built with other settings than this run asks (${difference})`,
      );
      expect(message).toContain('nothing was changed');
      expect(message).toContain(`--set corpus.index=${join(work, 'index')}-${embedder}`);
      expect(message).toContain('rge corpus ingest --config');
      expect(logs.filter((l) => l.includes('rebuilding'))).toEqual([]);
      expect(await readFile(manifestFile, 'utf8')).toBe(built);
    }
    // asked to: rge corpus ingest --config rebuilds it the way the config asks
    const config = await writeFixtureConfig(work, overrides(400));
    const ingest = await runRge(
      ROOT,
      'corpus',
      'ingest',
      '--config',
      config,
      '-q',
      '--cache-dir',
      join(work, 'cache'),
    );
    expect(ingest.code, ingest.err).toBe(0);
    expect(ingest.out).toContain(`built ${join(work, 'index')} (bm25, 400/100 tokens`);
    expect((await readIndexManifest(join(work, 'index')))?.corpus?.chunking.chunkTokens).toBe(400);
    const second = await prepare(400);
    expect(second.index?.size ?? 0).toBeGreaterThan(chunksAt800);
  }, 240_000);

  it('a stale index (its documents changed) is still rebuilt in place by a run', async () => {
    const work = await mkdtemp(join(tmpdir(), 'rge-generated-stale-'));
    await copyFile(join(ROOT, 'fixtures/facts.json'), join(work, 'facts.json'));
    const logs: string[] = [];
    const prepare = () =>
      openTestRun({
        config: 'configs/fixture.yaml',
        root: ROOT,
        overrides: [
          `corpus.generated_from=${join(work, 'facts.json')}`,
          `corpus.pdfs=${join(work, 'pdfs')}`,
          `corpus.index=${join(work, 'index')}`,
          'corpus.embedder=bm25',
        ],
        resultsDir: join(work, 'results'),
        reportsDir: join(work, 'reports'),
        dryRun: true,
        log: (line) => logs.push(line),
      });
    await prepare();
    const pdf = (await readdir(join(work, 'pdfs'))).find((f) => f.endsWith('.pdf')) as string;
    await rm(join(work, 'pdfs', pdf));
    logs.length = 0;
    await prepare();
    expect(logs[0]).toContain(`rebuilding the fixture index`);
    expect(logs[0]).toContain(`documents: ${pdf} is in the index but its PDF is gone`);
  }, 240_000);
});

/** configs/fixture.yaml with `overrides` (path=value) applied, written to DIR/run.yaml. */
async function writeFixtureConfig(dir: string, overrides: readonly string[]): Promise<string> {
  const config = parseDocument(await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8')).toJS() as Record<
    string,
    Record<string, unknown>
  >;
  for (const o of overrides) {
    const [path, value] = [o.slice(0, o.indexOf('=')), o.slice(o.indexOf('=') + 1)];
    const key = path.split('.')[1] as string;
    (config.corpus as Record<string, unknown>)[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  const file = join(dir, 'run.yaml');
  await writeFile(file, stringify(config));
  return file;
}

describe('documentsFromSources', () => {
  it('verifies the PDF taken out of a ZIP download by pdf_sha256, a plain download by sha256', () => {
    const base = { company: 'acme', company_name: 'Acme', fy: 'FY24', accessed_on: '2026-11-30' };
    const [zipped, plain] = documentsFromSources(
      [
        {
          ...base,
          url: 'https://x/a.zip',
          sha256: 'a'.repeat(64),
          pdf_sha256: 'b'.repeat(64),
          file: 'a.pdf',
        },
        { ...base, url: 'https://x/c.pdf', sha256: 'c'.repeat(64), file: 'c.pdf' },
      ] as Parameters<typeof documentsFromSources>[0],
      '/pdfs',
    );
    expect(zipped?.sha256).toBe('b'.repeat(64));
    expect(plain?.sha256).toBe('c'.repeat(64));
  });
});
