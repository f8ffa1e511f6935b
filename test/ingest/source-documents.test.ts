/**
 * A user's folder of documents read and ingested (src/ingest/source-documents.ts, source-folder.ts): the
 * Ledgerly docs of fixtures/documents copied beside a real PDF and bad inputs made here (an empty file,
 * a corrupt PDF, a PDF with no text layer, a .docx, a folder and a file that are hidden).
 */
import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkDocument } from '../../src/corpus/chunk.ts';
import { extractMany } from '../../src/corpus/workers.ts';
import { ingest } from '../../src/ingest/ingest.ts';
import {
  companySlugs,
  NO_TEXT_LAYER,
  readSourceDocuments,
  type SourceDocuments,
} from '../../src/ingest/source-documents.ts';
import { ingestSourceFolder } from '../../src/ingest/source-folder.ts';
import { RgeError } from '../../src/util/errors.ts';
import { makeTextPdf } from '../helpers/make-pdf.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/documents');
const scratch = scratchDirs('rge-source-documents-');

const REPORT = [
  'Acme Limited Annual Report FY2023-24\nRevenue from operations rose 12% to Rs 4,210 crore in FY24, driven by the retail segment.',
  'Dividend\nThe board recommends a final dividend of Rs 8 per share for the year ended 31 March 2024.',
];

/** The fixture documents, a real PDF, and the bad inputs, in one folder. */
async function mixedFolder(): Promise<string> {
  const dir = scratch();
  await cp(FIXTURES, dir, { recursive: true });
  await mkdir(join(dir, 'reports'));
  await writeFile(join(dir, 'reports', 'acme-FY24.pdf'), await makeTextPdf(REPORT));
  await writeFile(join(dir, 'reports', 'scanned.pdf'), await makeTextPdf(['', '']));
  await writeFile(join(dir, 'reports', 'broken.pdf'), '%PDF-1.7\nthis is not really a PDF');
  await writeFile(join(dir, 'empty.md'), '');
  await writeFile(join(dir, 'contract.docx'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]));
  await writeFile(join(dir, '.notes.md'), '# Hidden\n\nNot a document of the folder.');
  await mkdir(join(dir, 'node_modules'));
  await writeFile(join(dir, 'node_modules', 'x.md'), '# Not read');
  return dir;
}

describe('readSourceDocuments', () => {
  let dir = '';
  let read: SourceDocuments;
  beforeAll(async () => {
    dir = await mixedFolder();
    read = await readSourceDocuments(dir, { concurrency: 1 });
  });

  it('reads every PDF, Markdown, HTML and text file, in order of relative path, hidden ones skipped', () => {
    expect(read.documents.map((d) => [d.source, d.kind, d.company, d.fy])).toEqual([
      ['api-limits.md', 'markdown', 'api-limits', null],
      ['billing-and-plans.md', 'markdown', 'billing-and-plans', null],
      ['fr/guide-de-demarrage.md', 'markdown', 'guide-de-demarrage', null],
      ['getting-started.md', 'markdown', 'getting-started', null],
      ['release-notes.html', 'html', 'release-notes', null],
      ['reports/acme-FY24.pdf', 'pdf', 'acme-fy24', 'FY24'],
      ['security.md', 'markdown', 'security', null],
      ['support-faq.txt', 'text', 'support-faq', null],
    ]);
  });

  it('tells each document its language', () => {
    const languages = Object.fromEntries(read.documents.map((d) => [d.source, d.language]));
    expect(languages['fr/guide-de-demarrage.md']).toBe('fr');
    expect(languages['release-notes.html']).toBe('en');
    expect(languages['reports/acme-FY24.pdf']).toBe('en');
    expect(languages['support-faq.txt']).toBe('en');
  });

  it('names each file it could not use, and why', () => {
    expect(read.problems).toEqual([
      {
        file: 'contract.docx',
        message: expect.stringMatching(/^skipped: not a kind rge reads \(\.pdf, \.md/),
      },
      { file: 'empty.md', message: 'empty file' },
      { file: 'reports/broken.pdf', message: expect.stringMatching(/^not a readable PDF/) },
      { file: 'reports/scanned.pdf', message: NO_TEXT_LAYER },
    ]);
  });

  it('gives the PDF the pages the workers extract, which chunk as before', async () => {
    const pdf = read.documents.find((d) => d.kind === 'pdf');
    const [extracted] = await extractMany([join(dir, 'reports', 'acme-FY24.pdf')], { concurrency: 1 });
    expect(pdf?.pages).toEqual(extracted?.result?.pages);
    expect(pdf?.pages.every((p) => p.headings === undefined)).toBe(true);
  });

  it('is an error naming the folder when no file can be read', async () => {
    const bad = scratch();
    await mkdir(bad, { recursive: true });
    await writeFile(join(bad, 'empty.txt'), '  \n');
    await writeFile(join(bad, 'notes.docx'), 'x');
    const error = await readSourceDocuments(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RgeError);
    expect((error as Error).message).toContain(bad);
    expect((error as Error).message).toMatch(/empty\.txt: empty file; notes\.docx: skipped/);
  });

  it('makes the slugs of files with the same name distinct, the same way each time', () => {
    expect(companySlugs(['a/guide.md', 'b/guide.md', 'guide.html', 'notes.txt'])).toEqual([
      'a-guide-md',
      'b-guide-md',
      'guide-html',
      'notes',
    ]);
  });
});

describe('ingestSourceFolder', () => {
  it('indexes the folder: headings from the documents become chunk headings, table rows stay whole', async () => {
    const dir = await mixedFolder();
    const out = scratch();
    const opts = {
      indexDir: join(out, 'index'),
      cacheDir: join(out, 'cache'),
      embedder: 'bm25' as const,
      concurrency: 1,
    };
    const { report, documents, problems } = await ingestSourceFolder(dir, opts);
    expect(problems.map((p) => p.file)).toEqual([
      'contract.docx',
      'empty.md',
      'reports/broken.pdf',
      'reports/scanned.pdf',
    ]);
    expect(report.failed).toBe(0);
    expect(report.documents.map((d) => d.source)).toEqual(documents.map((d) => d.source));
    expect(report.index?.embedded).toBe(report.chunks);

    const pdf = documents.find((d) => d.kind === 'pdf');
    const billing = documents.find((d) => d.source === 'billing-and-plans.md');
    const html = documents.find((d) => d.kind === 'html');
    if (!pdf || !billing || !html) throw new Error('documents missing');
    const chunk = (d: typeof pdf) =>
      chunkDocument(d.pages, { company: d.company, fy: d.fy, source: d.source });
    const [billingChunk] = chunk(billing);
    expect(billingChunk?.headings).toEqual([
      'Billing and plans',
      'Plans at a glance',
      'Changing plans',
      'Refunds',
    ]);
    expect(billingChunk?.text).toContain('\nBusiness | $32 | $320 | 500 | 5 TB\n');
    expect(chunk(html)[0]?.headings).toContain('Limits changed in this release');
    expect(chunk(pdf)[0]?.id).toMatch(/^acme-fy24-FY24-[0-9a-f]{8}$/);

    const again = await ingestSourceFolder(dir, opts);
    expect(again.report.index?.checksum).toBe(report.index?.checksum);
    // every document's pages in the page cache: the second call extracted and read nothing again
    expect((await readdir(join(out, 'cache', 'pages'))).length).toBe(documents.length);
  });

  it('lets ingest read a text document itself, cached by its sha256 and the readers version', async () => {
    const out = scratch();
    const doc = {
      path: join(FIXTURES, 'security.md'),
      company: 'security',
      fy: null,
      source: 'security.md',
      kind: 'markdown' as const,
    };
    const opts = { indexDir: join(out, 'index'), cacheDir: join(out, 'cache'), embedder: 'bm25' as const };
    const first = await ingest([doc], opts);
    const second = await ingest([doc], opts);
    expect(first.documents[0]).toMatchObject({ status: 'ok', pages: 1, fromCache: false });
    expect(second.documents[0]).toMatchObject({ status: 'ok', pages: 1, fromCache: true });
    expect(second.index?.checksum).toBe(first.index?.checksum);
    const empty = join(out, 'empty.html');
    await writeFile(empty, '<html><body><script>x()</script></body></html>');
    const failed = await ingest([{ ...doc, path: empty, kind: 'html', source: 'empty.html' }], opts);
    expect(failed.documents[0]?.error).toMatch(/empty\.html: no text/);
  });
});
