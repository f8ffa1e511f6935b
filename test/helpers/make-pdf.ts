/**
 * PDF generators for the corpus tests. Each returns the bytes of a small PDF made with pdfkit; the
 * document dates are fixed and compression is off so that the same call gives the same bytes.
 */
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';

const FIXED_DATE = new Date(Date.UTC(2024, 0, 1, 0, 0, 0));

interface MakeOptions {
  userPassword?: string;
}

function render(draw: (doc: PDFKit.PDFDocument) => void, opts: MakeOptions = {}): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: false,
    info: {
      Title: 'rge test document',
      Producer: 'rge tests',
      CreationDate: FIXED_DATE,
      ModDate: FIXED_DATE,
    },
    ...(opts.userPassword
      ? { userPassword: opts.userPassword, ownerPassword: `${opts.userPassword}-owner` }
      : {}),
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  draw(doc);
  doc.end();
  return done;
}

/** One page per entry of `pages`, each holding that text (an empty string gives a page with no text). */
export function makeTextPdf(pages: readonly string[], opts: MakeOptions = {}): Promise<Buffer> {
  return render((doc) => {
    for (const text of pages) {
      doc.addPage({ size: 'A4', margin: 50 });
      if (text) doc.font('Helvetica').fontSize(11).text(text, { width: 495 });
    }
  }, opts);
}

export interface StatementRow {
  label: string;
  values: readonly string[];
}

/**
 * A financial-statement page drawn the way annual reports are typeset: every label and every number is
 * placed separately at its own x, and the content stream emits the table column by column (all labels,
 * then each year's column), so a reader that follows the stream order scatters a row over many lines.
 */
export function makeStatementPdf(title: string, header: readonly string[], rows: readonly StatementRow[]) {
  return render((doc) => {
    doc.addPage({ size: 'A4', margin: 40 });
    doc.font('Helvetica-Bold').fontSize(12).text(title, 40, 50, { lineBreak: false });
    doc.font('Helvetica').fontSize(9);
    const top = 90;
    const rowHeight = 14;
    const columnRight = (c: number) => 380 + c * 80;
    header.forEach((h, c) => {
      doc.text(h, columnRight(c) - doc.widthOfString(h), top, { lineBreak: false });
    });
    rows.forEach((row, r) => {
      doc.text(row.label, 40, top + (r + 1) * rowHeight, { lineBreak: false });
    });
    for (let c = 0; c < header.length; c++) {
      rows.forEach((row, r) => {
        const v = row.values[c] ?? '';
        if (v)
          doc.text(v, columnRight(c) - doc.widthOfString(v), top + (r + 1) * rowHeight, { lineBreak: false });
      });
    }
    doc.text(
      'The accompanying notes are an integral part of this statement.',
      40,
      top + (rows.length + 3) * rowHeight,
      {
        lineBreak: false,
      },
    );
  });
}

/**
 * One page of `lines` in a TrueType font that pdfkit embeds (pdfjs-dist's Liberation Sans): a composite
 * font (Type0, Identity-H, two bytes a character, with a ToUnicode map), as most real filings' fonts are.
 */
export function makeEmbeddedFontPdf(lines: readonly string[]): Promise<Buffer> {
  const font = createRequire(import.meta.url).resolve('pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf');
  return render((doc) => {
    doc.addPage({ size: 'A4', margin: 50 });
    doc.font(font).fontSize(11);
    for (const line of lines) doc.text(line, { width: 480 });
  });
}

/** Pages with vector drawings only (boxes and lines, no text operators): a stand-in for a scanned PDF. */
export function makeDrawingOnlyPdf(pageCount = 2): Promise<Buffer> {
  return render((doc) => {
    for (let p = 0; p < pageCount; p++) {
      doc.addPage({ size: 'A4', margin: 50 });
      doc.rect(60 + p * 10, 80, 200, 120).fill('#336699');
      doc.moveTo(60, 300).lineTo(500, 320).stroke();
    }
  });
}

/** What a hand-written page has besides its content stream and its fonts (makeRawPdf). */
export interface RawPageExtras {
  /** fonts written inside the page's resources (`/F3 << ... >>`), not as objects of their own */
  inlineFonts?: Record<string, string>;
  /** form XObjects, each with its content stream and its own fonts (objects of their own) */
  forms?: Record<string, { content: string; fonts: Record<string, string> }>;
  /**
   * Type3 fonts: each glyph's name (a glyph list name, `a`) and its content stream (`100 0 d0 ...`),
   * encoded from character code 97 in the order given; glyph space is 1/100 of text space (a font
   * matrix other than the 1/1000 of most fonts), each glyph 100 units wide
   */
  type3Fonts?: Record<string, Record<string, string>>;
}

/** A Type3 font's dictionary, its glyph procedures written as objects by `add` (makeRawPdf). */
function type3Font(glyphs: Record<string, string>, add: (body: string) => number): string {
  const names = Object.keys(glyphs);
  const procs = Object.entries(glyphs)
    .map(([name, proc]) => `/${name} ${add(stream('', proc))} 0 R`)
    .join(' ');
  return [
    '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 100 100] /FontMatrix [0.01 0 0 0.01 0 0]',
    `/CharProcs << ${procs} >> /Encoding << /Type /Encoding /Differences [97 ${names.map((n) => `/${n}`).join(' ')}] >>`,
    `/FirstChar 97 /LastChar ${96 + names.length} /Widths [${names.map(() => 100).join(' ')}] /Resources << >> >>`,
  ].join(' ');
}

/** A stream object: `entries` of its dictionary, then its length and `content` (Latin-1). */
function stream(entries: string, content: string): string {
  const dict = `${entries ? `${entries} ` : ''}/Length ${Buffer.byteLength(content, 'latin1')}`;
  return `<< ${dict} >>\nstream\n${content}\nendstream`;
}

/**
 * A one-page PDF written by hand (no pdfkit), so that nothing rewrites its content stream: `content`
 * is the page's content stream, `fonts` maps resource names (F1) to font dictionaries.
 */
export function makeRawPdf(
  content: string,
  fonts: Record<string, string>,
  extras: RawPageExtras = {},
): Buffer {
  // objects 1-4: catalog, pages, page, its content; then the page's fonts, then each form and its fonts
  const objects: string[] = [];
  const add = (body: string) => objects.push(body) + 4;
  const fontDict = (named: Record<string, string>) =>
    Object.entries(named)
      .map(([name, body]) => `/${name} ${add(body)} 0 R`)
      .join(' ');
  const type3 = Object.entries(extras.type3Fonts ?? {}).map(
    ([name, glyphs]) => `/${name} ${add(type3Font(glyphs, add))} 0 R`,
  );
  const pageFonts = [fontDict(fonts), ...type3].filter((f) => f !== '').join(' ');
  const inline = Object.entries(extras.inlineFonts ?? {})
    .map(([name, body]) => `/${name} ${body}`)
    .join(' ');
  const forms = Object.entries(extras.forms ?? {})
    .map(([name, form]) => {
      const resources = `/Resources << /Font << ${fontDict(form.fonts)} >> >>`;
      const ref = add(stream(`/Type /XObject /Subtype /Form /BBox [0 0 612 792] ${resources}`, form.content));
      return `/${name} ${ref} 0 R`;
    })
    .join(' ');
  const xobjects = forms ? ` /XObject << ${forms} >>` : '';
  const all = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << ${pageFonts}${inline ? ` ${inline}` : ''} >>${xobjects} >> >>`,
    stream('', content),
    ...objects,
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (const [i, body] of all.entries()) {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${all.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) pdf += `${String(o).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${all.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/**
 * A one-page PDF with two non-embedded fonts: F1 named RupeeForadian (its ₹ on the backtick, as in the
 * Indian reports) and F2 Helvetica, each showing a backtick before a number.
 */
export function makeRupeeFontPdf(): Buffer {
  const content = [
    'BT /F1 12 Tf 72 720 Td (`) Tj ET',
    'BT /F2 12 Tf 80 720 Td (41,599.84 lakhs) Tj ET',
    'BT /F2 12 Tf 72 690 Td (Run `rge fetch` before 12 May) Tj ET',
  ].join('\n');
  return makeRawPdf(content, {
    F1: '<< /Type /Font /Subtype /Type1 /BaseFont /DDQHSC+RupeeForadian /Encoding /WinAnsiEncoding >>',
    F2: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  });
}
