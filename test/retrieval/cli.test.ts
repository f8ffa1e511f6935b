import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../src/retrieval/index.ts';
import { runRge } from '../helpers/cli.ts';
import { chunkStarting, testChunks } from './chunks.ts';

const rge = runRge;

const chunks = testChunks();
let cwd: string;
let checksums: Record<string, string>;

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'rge-cli-'));
  const cacheDir = join(cwd, '.cache');
  checksums = {
    bm25: (await buildIndex(chunks, { dir: join(cwd, 'data', 'index'), embedder: 'bm25' })).checksum,
    'use-lite': (await buildIndex(chunks, { dir: join(cwd, 'dense'), embedder: 'use-lite', cacheDir }))
      .checksum,
  };
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('rge retrieve', () => {
  it.each([
    ['bm25', []],
    ['use-lite', ['--index', 'dense']],
  ])('prints a JSON array of ranked chunks (%s)', async (_name, indexArgs) => {
    const { code, out, err } = await rge(
      cwd,
      'retrieve',
      'Which share buyback did the Board approve?',
      ...indexArgs,
      '--k',
      '3',
      '--json',
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const rows = JSON.parse(out) as Record<string, unknown>[];
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual([
        'company',
        'fy',
        'heading',
        'id',
        'pages',
        'score',
        'source',
        'text',
      ]);
      expect(row.pages).toEqual([expect.any(Number), expect.any(Number)]);
      expect(typeof row.score).toBe('number');
    }
    const expected = chunkStarting(chunks, 'The Board approved a buyback');
    expect(rows[0]).toMatchObject({
      id: expected.id,
      company: 'infosys',
      fy: 'FY23',
      source: expected.source,
      heading: 'Share buyback',
      pages: [15, 15],
      text: expected.text,
    });
    const scores = rows.map((r) => r.score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('filters by company and fiscal year', async () => {
    const { code, out } = await rge(
      cwd,
      'retrieve',
      'dividend',
      '--company',
      'infosys',
      '--fy',
      'fy24',
      '--json',
    );
    expect(code).toBe(0);
    const rows = JSON.parse(out) as { company: string; fy: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.company === 'infosys' && r.fy === 'FY24')).toBe(true);
  });

  it('prints id, pages, score, company, heading and an excerpt with the question words marked', async () => {
    const { code, out } = await rge(
      cwd,
      'retrieve',
      'How many branches are in the network?',
      '--k',
      '2',
      '--no-color',
    );
    expect(code).toBe(0);
    const first = chunkStarting(chunks, 'We added 913 branches');
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(new RegExp(`^1\\. ${first.id}  p\\. 30  score \\d+\\.\\d{4}$`));
    expect(lines[1]).toBe('   hdfc-bank FY24 · Branch network');
    expect(lines[2]).toBe(
      '   We added 913 **branches** during the year, taking the **network** to 8,738 **branches** in 4,065 cities and towns.',
    );
  });

  it('cuts a long chunk to --width characters around its best match', async () => {
    const { code, out } = await rge(
      cwd,
      'retrieve',
      'branches network',
      '--k',
      '1',
      '--width',
      '40',
      '--no-color',
    );
    expect(code).toBe(0);
    const excerptLine = out.trimEnd().split('\n')[2] ?? '';
    expect(excerptLine).toMatch(/^ {3}.*\*\*network\*\*.*…$/);
    expect(excerptLine.replace(/\*\*|…/g, '').trim().length).toBeLessThanOrEqual(40);
  });

  it('marks in ANSI bold with --color', async () => {
    const { out } = await rge(cwd, 'retrieve', 'branches', '--k', '1', '--color');
    expect(out).toContain('\u001b[1mbranches\u001b[22m');
  });

  it('rejects a bad --k with a usage error (exit 2)', async () => {
    for (const k of ['0', '-1', 'abc', '2.5']) {
      const { code, err } = await rge(cwd, 'retrieve', 'dividend', '--k', k);
      expect(code).toBe(2);
      expect(err).toMatch(/--k must be a positive integer/);
    }
  });

  it('a given --index that does not exist is a usage error naming the flag and the folder', async () => {
    const { code, err } = await rge(cwd, 'retrieve', 'dividend', '--index', 'nowhere');
    expect(code).toBe(2);
    expect(err).toBe('rge: --index nowhere: no such folder\n');
  });
});

describe('rge index checksum', () => {
  it('prints the stored checksum, resolving --index against the working folder', async () => {
    expect(await rge(cwd, 'index', 'checksum')).toEqual({ code: 0, out: `${checksums.bm25}\n`, err: '' });
    const dense = await rge(cwd, 'index', 'checksum', '--index', 'dense');
    expect(dense.out).toBe(`${checksums['use-lite']}\n`);
  });

  it('--verify recomputes and exits 1 on a mismatch', async () => {
    const ok = await rge(cwd, 'index', 'checksum', '--index', 'dense', '--verify');
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('ok');
    const dir = join(cwd, 'tampered');
    await buildIndex(chunks, { dir, embedder: 'use-lite', cacheDir: join(cwd, '.cache') });
    const path = join(dir, 'index.json');
    const data = JSON.parse(await readFile(path, 'utf8')) as { items: { vector: number[] }[] };
    data.items[0]?.vector.reverse();
    await writeFile(path, JSON.stringify(data));
    const bad = await rge(cwd, 'index', 'checksum', '--index', 'tampered', '--verify');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/checksum mismatch/);
  });

  it('has help text', async () => {
    const { code, out } = await rge(cwd, 'retrieve', '--help');
    expect(code).toBe(0);
    expect(out).toMatch(/--company/);
    expect(out).toMatch(/--fy/);
  });
});
