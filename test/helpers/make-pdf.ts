/**
 * PDF generators for the corpus tests. Each returns the bytes of a small PDF made with pdfkit; the
 * document dates are fixed and compression is off so that the same call gives the same bytes.
 */
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
