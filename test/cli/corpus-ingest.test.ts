import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runRge } from '../helpers/cli.ts';
import { makeTextPdf } from '../helpers/make-pdf.ts';

const rge = runRge;

const PAGES = {
  acme: [
    'FINANCIAL HIGHLIGHTS\nRevenue from operations rose to Rs 4,512 crore in FY24 from Rs 3,980 crore in FY23.',
    'DIVIDEND\nThe Board recommended a final dividend of Rs 7.50 per equity share for FY24.',
    'RISK MANAGEMENT\nCurrency risk arises from imports of lithium cells priced in US dollars.',
  ],
  globex: [
    'CHAIRPERSON LETTER\nOur refinery throughput reached 1.4 million barrels per day.',
    'CORPORATE GOVERNANCE\nThe statutory auditor is Deloitte Haskins and Sells LLP.',
  ],
};

describe('rge corpus ingest --pdfs DIR, then rge retrieve', () => {
  let work: string;
  let pdfs: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rge-ingest-'));
    pdfs = join(work, 'pdfs');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(pdfs);
    await writeFile(join(pdfs, 'Acme_FY2023-24.pdf'), await makeTextPdf(PAGES.acme));
    await writeFile(join(pdfs, 'Globex_2023.pdf'), await makeTextPdf(PAGES.globex));
  });

  it('indexes every PDF of a folder, naming companies by file stem and years from the name', async () => {
    const r = await rge(
      work,
      'corpus',
      'ingest',
      '--pdfs',
      'pdfs',
      '--index',
      'idx',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/2\/2 documents ingested/);
    expect(r.out).toMatch(/index checksum [0-9a-f]{64}/);

    const q = await rge(
      work,
      'retrieve',
      'final dividend per equity share',
      '--index',
      'idx',
      '--k',
      '1',
      '--json',
    );
    expect(q.code).toBe(0);
    const hits = JSON.parse(q.out) as Array<Record<string, unknown>>;
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ company: 'acme-fy2023-24', fy: 'FY24', source: 'Acme_FY2023-24.pdf' });
    expect(Object.keys(hits[0] as object).sort()).toEqual([
      'company',
      'fy',
      'heading',
      'id',
      'pages',
      'score',
      'source',
      'text',
    ]);
    expect(hits[0]?.id).toMatch(/^acme-fy2023-24-FY24-[0-9a-f]{8}$/);

    const g = await rge(
      work,
      'retrieve',
      'statutory auditor',
      '--index',
      'idx',
      '--company',
      'globex-2023',
      '--json',
    );
    const gh = JSON.parse(g.out) as Array<{ company: string; fy: string; text: string }>;
    expect(gh.every((h) => h.company === 'globex-2023' && h.fy === 'FY23')).toBe(true);
    expect(gh[0]?.text).toMatch(/Deloitte/);
  });

  it('gives the same chunks and checksum when the same PDFs are ingested again, on 3 threads or 1 (--threads)', async () => {
    const a = await rge(
      work,
      'corpus',
      'ingest',
      '--pdfs',
      'pdfs',
      '--index',
      'idx-a',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache-a',
      '--threads',
      '3',
      '-q',
      '--json',
    );
    const b = await rge(
      work,
      'corpus',
      'ingest',
      '--pdfs',
      'pdfs',
      '--index',
      'idx-b',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache-b',
      '--threads',
      '1',
      '-q',
      '--json',
    );
    const ra = JSON.parse(a.out);
    const rb = JSON.parse(b.out);
    expect([ra.timings.threads, rb.timings.threads]).toEqual([3, 1]);
    expect(ra.index.checksum).toBe(rb.index.checksum);
    const chunks = async (dir: string) => await readFile(join(work, dir, 'chunks.json'), 'utf8');
    expect(await chunks('idx-a')).toBe(await chunks('idx-b'));
  });

  it('names a corrupt, an encrypted and a text-less PDF, ingests the rest, and exits 1 unless --allow-failures', async () => {
    const mixed = join(work, 'mixed');
    const { mkdir, cp } = await import('node:fs/promises');
    await mkdir(mixed);
    await cp(join(pdfs, 'Acme_FY2023-24.pdf'), join(mixed, 'Acme_FY2023-24.pdf'));
    await writeFile(join(mixed, 'Broken_2024.pdf'), '%PDF-1.7\nthis is not really a pdf\n');
    await writeFile(
      join(mixed, 'Locked_2024.pdf'),
      await makeTextPdf(['secret figures'], { userPassword: 'pw' }),
    );
    await writeFile(join(mixed, 'Blank_2024.pdf'), await makeTextPdf(['', '']));

    const r = await rge(
      work,
      'corpus',
      'ingest',
      '--pdfs',
      'mixed',
      '--index',
      'idx-mixed',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /FAILED\s+Broken_2024\.pdf: .*Broken_2024\.pdf.*corrupt|FAILED\s+Broken_2024\.pdf: .*(damaged|not a PDF)/i,
    );
    expect(r.out).toMatch(/FAILED\s+Locked_2024\.pdf: .*encrypted/i);
    expect(r.out).toMatch(/FAILED\s+Blank_2024\.pdf: .*no (extractable )?text/i);
    expect(r.out).toMatch(/1\/4 documents ingested/);

    const ok = await rge(
      work,
      'corpus',
      'ingest',
      '--pdfs',
      'mixed',
      '--index',
      'idx-mixed',
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
      '--allow-failures',
    );
    expect(ok.code).toBe(0);
    const q = await rge(work, 'retrieve', 'lithium cells currency risk', '--index', 'idx-mixed', '--json');
    expect(JSON.parse(q.out)[0].company).toBe('acme-fy2023-24');
  });

  it('rejects an unknown embedder and a missing folder as usage errors', async () => {
    expect((await rge(work, 'corpus', 'ingest', '--pdfs', 'pdfs', '--embedder', 'word2vec', '-q')).code).toBe(
      2,
    );
    const missing = await rge(work, 'corpus', 'ingest', '--pdfs', 'nope', '--embedder', 'bm25', '-q');
    expect(missing.code).toBe(2);
    expect(missing.err).toBe('rge: --pdfs nope: no such folder\n');
    await writeFile(join(work, 'a-file.pdf'), 'not a folder');
    const file = await rge(work, 'corpus', 'ingest', '--pdfs', 'a-file.pdf', '--embedder', 'bm25', '-q');
    expect(file.code).toBe(2);
    expect(file.err).toBe('rge: --pdfs a-file.pdf: not a folder (give a folder)\n');
  });

  it('has help on ingest', async () => {
    const r = await rge(work, 'corpus', 'ingest', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--allow-failures/);
    expect(r.out).toMatch(/--pdfs <dir>/);
  });
});
