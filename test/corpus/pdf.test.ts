import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLines, isTableHeavy, layoutPage, renderLayout, tableSignal } from '../../src/corpus/layout.ts';
import {
  closeKeptDocument,
  extractPages,
  extractPdf,
  keptDocumentPath,
  releaseBytes,
} from '../../src/corpus/pdf.ts';
import { PdfError } from '../../src/corpus/pdf-document.ts';
import { pdfjs, workerPatched } from '../../src/corpus/pdfjs.ts';
import { PageText } from '../../src/corpus/schema.ts';
import { extractMany } from '../../src/corpus/workers.ts';
import { BUNDLE_CACHE, bundledModule } from '../../src/util/bundle.ts';
import { sha256 } from '../../src/util/fs.ts';
import { makeDrawingOnlyPdf, makeStatementPdf, makeTextPdf, type StatementRow } from '../helpers/make-pdf.ts';

let dir: string;
const file = (name: string) => join(dir, name);

const STATEMENT_ROWS: StatementRow[] = [
  { label: 'Net sales', values: ['34,229', '35,355', '32,184'] },
  { label: 'Cost of sales', values: ['19,232', '18,795', '16,605'] },
  { label: 'Selling, general and administrative expenses', values: ['9,049', '7,197', '6,929'] },
  { label: 'Gain on business divestitures', values: ['(2,724)', '—', '(389)'] },
  { label: 'Operating income', values: ['6,539', '7,369', '7,161'] },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rge-pdf-'));
  const multi = await makeTextPdf(['Alpha page one.', '', 'Gamma page three mentions revenue of 1,234.']);
  await writeFile(file('multi.pdf'), multi);
  await writeFile(
    file('statement.pdf'),
    await makeStatementPdf('Statement of Income', ['2022', '2021', '2020'], STATEMENT_ROWS),
  );
  await writeFile(file('encrypted.pdf'), await makeTextPdf(['secret figures'], { userPassword: 'hunter2' }));
  await writeFile(file('drawing.pdf'), await makeDrawingOnlyPdf());
  await writeFile(file('garbage.pdf'), Buffer.from('this is not a PDF, just some bytes\n'.repeat(40)));
  await writeFile(file('truncated.pdf'), multi.subarray(0, Math.floor(multi.length / 2)));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function expectPdfError(path: string, kind: PdfError['kind'], message: RegExp): Promise<PdfError> {
  const err = await extractPdf(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PdfError);
  const pdfError = err as PdfError;
  expect(pdfError.kind).toBe(kind);
  expect(pdfError.file).toBe(path);
  expect(pdfError.message.startsWith(`${path}: `)).toBe(true);
  expect(pdfError.message).toMatch(message);
  return pdfError;
}

import { pdfParseText, rowIntegrity } from './pdf-reference.ts';

describe('extractPdf', () => {
  it('returns every page, 1-indexed, with empty text for a page without text', async () => {
    const doc = await extractPdf(file('multi.pdf'));
    expect(doc.file).toBe(file('multi.pdf'));
    expect(doc.pageCount).toBe(3);
    expect(doc.pages.map((p) => p.page)).toEqual([1, 2, 3]);
    for (const p of doc.pages) expect(PageText.parse(p)).toEqual(p);
    expect(doc.pages[0]?.text).toContain('Alpha page one.');
    expect(doc.pages[1]?.text).toBe('');
    expect(doc.pages[2]?.text).toContain('Gamma page three mentions revenue of 1,234.');
    expect(doc.pages.every((p) => p.method === 'text')).toBe(true);
  });

  it('gives the plain text exactly as pdf-parse getText does', async () => {
    for (const name of ['statement.pdf', 'multi.pdf']) {
      const reference = await pdfParseText(file(name));
      const doc = await extractPdf(file(name), { tables: 'never' });
      expect(doc.pages.map((p) => p.text)).toEqual(reference);
    }
  });

  it('keeps the rows of a column-by-column statement together on the table path', async () => {
    const plain = await extractPdf(file('statement.pdf'), { tables: 'never' });
    const auto = await extractPdf(file('statement.pdf'));
    const page = auto.pages[0] as PageText;
    expect(page.method).toBe('table');
    expect(page.text).toContain('Net sales | 34,229 | 35,355 | 32,184');
    expect(page.text).toContain('Gain on business divestitures | (2,724) | — | (389)');
    expect(page.text.split('\n')[1]).toBe('2022 | 2021 | 2020');
    expect(rowIntegrity(page.text, STATEMENT_ROWS)).toBe(1);
    expect(rowIntegrity(plain.pages[0]?.text ?? '', STATEMENT_ROWS)).toBe(0);
  });

  it("reads prose through the plain path in 'auto' and through the table path in 'always'", async () => {
    const auto = await extractPdf(file('multi.pdf'));
    expect(auto.pages.map((p) => p.method)).toEqual(['text', 'text', 'text']);
    const always = await extractPdf(file('multi.pdf'), { tables: 'always' });
    expect(always.pages.map((p) => p.method)).toEqual(['table', 'table', 'table']);
    expect(always.pages[0]?.text).toBe('Alpha page one.');
  });

  it('is deterministic: the same file twice gives identical pages', async () => {
    const a = await extractPdf(file('statement.pdf'));
    const b = await extractPdf(file('statement.pdf'));
    expect(b).toEqual(a);
  });

  it('reports an encrypted PDF', async () => {
    await expectPdfError(
      file('encrypted.pdf'),
      'encrypted',
      /: encrypted PDF \(needs a password\); rge cannot extract it$/,
    );
  });

  it('reports a PDF without any text as no-text, saying OCR is not supported', async () => {
    await expectPdfError(
      file('drawing.pdf'),
      'no-text',
      /no extractable text on any of its 2 page\(s\).*OCR is not supported/,
    );
  });

  it('reports garbage bytes and a truncated PDF as corrupt', async () => {
    await expectPdfError(file('garbage.pdf'), 'corrupt', /not a readable PDF/);
    await expectPdfError(file('truncated.pdf'), 'corrupt', /damaged or truncated/);
  });

  it('reports a missing file as not-found', async () => {
    await expectPdfError(file('nope.pdf'), 'not-found', /: PDF not found$/);
  });
});

describe('extractPages, keeping the document open for the next range', () => {
  it('gives the pages of one piece, reopens a file that changed, and closes it when asked or for another file', async () => {
    const path = file('kept.pdf');
    await writeFile(path, await readFile(file('multi.pdf')));
    const whole = await extractPdf(path);
    const first = await extractPages(path, { first: 1, last: 1, keepOpen: true });
    expect(keptDocumentPath()).toBe(path);
    const rest = await extractPages(path, { first: 2, last: 3, keepOpen: true });
    expect([...first.pages, ...rest.pages]).toEqual(whole.pages);
    expect(rest.pageCount).toBe(3);
    // the same path, another file: read afresh, not the kept document
    await writeFile(path, await readFile(file('statement.pdf')));
    const changed = await extractPages(path, { first: 1, last: 1, keepOpen: true });
    expect(changed.pages).toEqual((await extractPdf(file('statement.pdf'))).pages.slice(0, 1));
    expect(changed.pageCount).toBe(1);
    // a call that does not keep its document closes the kept one
    await extractPages(file('multi.pdf'), { first: 1, last: 1 });
    expect(keptDocumentPath()).toBeNull();
    await extractPages(path, { keepOpen: true });
    expect(keptDocumentPath()).toBe(path);
    await closeKeptDocument();
    expect(keptDocumentPath()).toBeNull();
    // a failure keeps nothing
    await expect(extractPages(file('garbage.pdf'), { keepOpen: true })).rejects.toBeInstanceOf(PdfError);
    expect(keptDocumentPath()).toBeNull();
  });
});

describe('layout', () => {
  const item = (str: string, x: number, y: number, size = 9) => ({
    str,
    transform: [size, 0, 0, size, x, y],
    width: str.length * size * 0.5,
    height: size,
  });
  const upright = [1, 0, 0, -1, 0, 800];

  it('joins word fragments, spaces words and separates columns', () => {
    const layout = layoutPage(
      [
        item('T', 40, 700),
        item('otal', 44.5, 700),
        item('assets', 70, 700),
        item('1,000', 300, 700.8),
        item('(20)', 400, 700),
      ],
      upright,
    );
    expect(layout.lines.map((l) => l.cells.map((c) => c.text))).toEqual([['Total assets', '1,000', '(20)']]);
  });

  it('keeps a footnote marker set above the baseline on its row (Infosys p26 geometry)', () => {
    // PDF y grows upwards: the marker sits 3.9pt above the amounts, the label 1.1pt below them
    const layout = layoutPage(
      [
        item('(1)', 335.7, 703.9, 6.6),
        item('7', 726.5, 700, 10),
        item('5', 830.5, 700, 10),
        item('Accrued compensation to employees', 186.5, 698.9, 10),
      ].map((it, i) => (i === 3 ? { ...it, width: 146.6 } : it)),
      upright,
    );
    expect(renderLayout(layout)).toBe('Accrued compensation to employees (1) | 7 | 5');
  });

  it('gives a wrapped row label to the amounts set between its two lines', () => {
    const layout = layoutPage(
      [
        item('Balance at the start of the year', 40, 712),
        item('100', 300, 712),
        item('90', 400, 712),
        item('Acquisition through business combination (refer Note', 40, 700),
        item('13,131', 300, 694),
        item('4,398', 400, 694),
        item('49)', 40, 688),
        item('Operating expenses', 40, 670),
        item('Cost of sales', 40, 658),
        item('19,232', 300, 658),
        item('18,795', 400, 658),
      ].map((it) => ({ ...it, width: it.str.length * 4 })),
      upright,
    );
    expect(renderLayout(layout).split('\n')).toEqual([
      'Balance at the start of the year | 100 | 90',
      'Acquisition through business combination (refer Note 49) | 13,131 | 4,398',
      'Operating expenses',
      'Cost of sales | 19,232 | 18,795',
    ]);
  });

  it('reads a table typeset landscape on a portrait page (text running bottom to top)', () => {
    // rotated 90 degrees: text advances along +y in PDF space; lines progress along +x
    const rot = (str: string, line: number, along: number) => ({
      str,
      transform: [0, 9, -9, 0, 100 + line * 12, 100 + along],
      width: str.length * 4.5,
      height: 9,
    });
    const layout = layoutPage(
      [rot('Additions', 1, 0), rot('1,685', 1, 300), rot('Disposals', 2, 0), rot('(5)', 2, 300)],
      upright,
    );
    expect(layout.lines.map((l) => l.cells.map((c) => c.text))).toEqual([
      ['Additions', '1,685'],
      ['Disposals', '(5)'],
    ]);
  });

  it('reads two columns of prose beside a table column by column, not line by line', () => {
    const left = [
      'The total income for the year under review is',
      'higher than in the previous financial year,',
      'registering an increase of twelve percent.',
    ];
    const right = [
      'The Board recommends a final dividend per',
      'equity share, subject to the approval of the',
      'members at the annual general meeting.',
    ];
    const items = [
      item('Particulars', 40, 700),
      item('2024-25', 300, 700),
      item('2023-24', 400, 700),
      item('Revenue', 40, 688),
      item('1,000', 300, 688),
      item('900', 400, 688),
      ...left.map((t, i) => item(t, 40, 660 - 12 * i)),
      ...right.map((t, i) => item(t, 320, 660 - 12 * i)),
    ].map((it) => ({ ...it, width: it.str.length * 3.5 }));
    const text = renderLayout(layoutPage(items, upright));
    expect(text.split('\n')).toEqual([
      'Particulars | 2024-25 | 2023-24',
      'Revenue | 1,000 | 900',
      ...left,
      ...right,
    ]);
  });

  it('calls a page table-heavy only when enough of its lines are rows of amounts', () => {
    const row = (y: number) => [item('Label', 40, y), item('1,000', 300, y), item('2,000', 400, y)];
    const prose = (y: number) => [item('In 2022 and 2021 sales rose 4% to 34,229', 40, y)];
    const table = layoutPage([...row(700), ...row(688), ...row(676), ...prose(600)], upright);
    expect(isTableHeavy(tableSignal(table))).toBe(true);
    const text = layoutPage(
      [...row(700), ...row(688), ...Array.from({ length: 20 }, (_, i) => prose(600 - 12 * i)).flat()],
      upright,
    );
    expect(isTableHeavy(tableSignal(text))).toBe(false);
    expect(buildLines([])).toEqual([]);
  });
});

describe('extractMany', () => {
  it('extracts on worker threads, in path order, with failures as data', async () => {
    const paths = [
      file('statement.pdf'),
      file('nope.pdf'),
      file('multi.pdf'),
      file('encrypted.pdf'),
      file('garbage.pdf'),
    ];
    const seen: string[] = [];
    const results = await extractMany(paths, { concurrency: 2, onDocument: (r) => seen.push(r.path) });
    expect(results.map((r) => r.path)).toEqual(paths);
    expect([...seen].sort()).toEqual([...paths].sort());
    expect(results.map((r) => r.error?.kind ?? 'ok')).toEqual([
      'ok',
      'not-found',
      'ok',
      'encrypted',
      'corrupt',
    ]);
    for (const r of results) if (r.error) expect(r.error).toBeInstanceOf(PdfError);
    expect(results[1]?.error?.message).toBe(`${file('nope.pdf')}: PDF not found`);
    expect(results[0]?.result).toEqual(await extractPdf(file('statement.pdf')));
    expect(results[2]?.result?.pageCount).toBe(3);
    expect(await extractMany([])).toEqual([]);
  });

  it('runs the worker from one bundled file named by the hash of its code (not the sources through tsx)', async () => {
    const worker = fileURLToPath(new URL('../../src/corpus/pdf-worker.ts', import.meta.url));
    const bundle = await bundledModule(worker);
    expect(bundle).not.toBeNull();
    const path = bundle as string;
    expect(dirname(path)).toBe(BUNDLE_CACHE);
    const code = readFileSync(path, 'utf8');
    expect(basename(path)).toBe(`pdf-worker-${sha256(code).slice(0, 16)}.mjs`);
    // plain JavaScript: no TypeScript left for a loader, packages left as imports
    expect(code).toMatch(/import\("pdfjs-dist"\)/);
    expect(code).not.toMatch(/pdf-parse|legacy\/build/);
    expect(code).not.toMatch(/\bimport type\b|: PagesJob\b/);
    // an extraction thread never loads the tokenizer (the chunking thread's, chunk-worker.ts)
    expect(code).not.toMatch(/gpt-tokenizer/);
    // the same file for the whole process, and the extraction through it is the in-thread one
    expect(await bundledModule(worker)).toBe(path);
    const [r] = await extractMany([file('multi.pdf')]);
    expect(r?.result).toEqual(await extractPdf(file('multi.pdf')));
  });
});

describe("a document's bytes", () => {
  it('stay with the caller while pdf.js reads them (patched copies), and are freed by releaseBytes once it is closed', async () => {
    const pdf = await makeTextPdf(['Revenue grew 12%.', 'Margins held.']);
    const bytes = new Uint8Array(pdf); // a copy in a buffer of its own (pdf.js refuses a Buffer)
    const task = pdfjs.getDocument({ data: bytes });
    const doc = await task.promise;
    expect(doc.numPages).toBe(2);
    // pdf.js's own files transfer the buffer to their parser (the caller's is emptied at once)
    expect(bytes.byteLength).toBe(workerPatched() ? pdf.byteLength : 0);
    await task.destroy();
    releaseBytes(bytes);
    expect(bytes.byteLength).toBe(0);
    expect(bytes.buffer.byteLength).toBe(0);
    expect(() => releaseBytes(bytes)).not.toThrow();
    const shared = new Uint8Array(new SharedArrayBuffer(8));
    releaseBytes(shared);
    expect(shared.byteLength).toBe(8);
  });
});
