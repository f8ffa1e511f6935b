/**
 * References for rge's extracted text: pdf-parse's own page text, and how many of a statement's rows a
 * text keeps whole (test/corpus/pdf.test.ts on generated PDFs, pdf-shared.integration.test.ts on real filings).
 */
import { readFile } from 'node:fs/promises';
import { PDFParse } from 'pdf-parse';
import type { StatementRow } from '../helpers/make-pdf.ts';

/** Each page's text as pdf-parse's public `getText` gives it: the reference for rge's plain text. */
export async function pdfParseText(path: string): Promise<string[]> {
  const parser = new PDFParse({ data: new Uint8Array(await readFile(path)) });
  try {
    return (await parser.getText()).pages.map((p) => p.text);
  } finally {
    await parser.destroy();
  }
}

/** A row is intact when one line of the text holds its label followed, in order, by all its values. */
function rowIntact(text: string, row: StatementRow): boolean {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const values = row.values.filter((v) => v !== '-' && v !== '—');
  const pattern = new RegExp(
    [esc(row.label), ...values.map((v) => `(?<![\\d,.])${esc(v)}(?![\\d,.])`)].join('.*?'),
  );
  return text.split('\n').some((line) => pattern.test(line));
}

export function rowIntegrity(text: string, rows: readonly StatementRow[]): number {
  return rows.filter((r) => rowIntact(text, r)).length / rows.length;
}
