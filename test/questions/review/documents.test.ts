/**
 * The documents a review shows gold quotes in: a PDF's pages as rge extracts them (the quote found on
 * its page), a text file as one page, and the documents that cannot be read, each said.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findInDocument, readReviewDocument } from '../../../src/questions/review/index.ts';
import { makeTextPdf } from '../../helpers/make-pdf.ts';

describe('readReviewDocument', () => {
  it('reads a PDF as its pages and finds a quote on its page', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-review-docs-'));
    await writeFile(
      join(dir, 'report.pdf'),
      await makeTextPdf(['Chairman letter. We grew this year.', 'Net profit was Rs 512.3 crore in FY24.']),
    );
    const doc = await readReviewDocument(dir, 'report.pdf');
    if ('error' in doc) throw new Error(doc.error);
    expect(doc.pages.map((p) => p.page)).toEqual([1, 2]);
    const found = findInDocument(doc, 'Net profit was Rs 512.3 crore');
    expect(found?.page).toBe(2);
    const text = doc.pages[1]?.text ?? '';
    expect(text.slice(...(found?.span ?? [0, 0]))).toBe('Net profit was Rs 512.3 crore');
  }, 30_000);

  it('reads a text, Markdown or HTML file as one page of the text the index was built from', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-review-docs-'));
    await writeFile(join(dir, 'a.html'), '<p>Revenue   was\n<b>Rs 10</b></p>');
    await writeFile(join(dir, 'b.md'), '# Plans\n\nThe **Team** plan costs $14.\n');
    expect(await readReviewDocument(dir, 'a.html')).toEqual({
      pages: [{ page: null, text: 'Revenue was Rs 10' }],
    });
    expect(await readReviewDocument(dir, 'b.md')).toEqual({
      pages: [{ page: null, text: 'Plans\nThe Team plan costs $14.' }],
    });
  });

  it('says why a document cannot be read: missing, outside the folder, or not a kind rge reads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-review-docs-'));
    await writeFile(join(dir, 'notes.docx'), 'x');
    expect(await readReviewDocument(dir, 'nope.md')).toEqual({
      error: `no document nope.md in the documents folder ${dir}`,
    });
    expect(await readReviewDocument(dir, '../x.md')).toEqual({
      error: '../x.md is not a file inside the documents folder',
    });
    expect(await readReviewDocument(dir, 'notes.docx')).toMatchObject({
      error: expect.stringContaining('notes.docx is not a PDF or a text file'),
    });
  });
});
