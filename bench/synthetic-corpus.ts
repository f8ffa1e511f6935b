/**
 * The synthetic corpus of the ingest and extraction benches: 20 seeded report PDFs (pdfkit, fixed dates,
 * no compression) shaped like the published run's 20 annual reports, each page a numbered section
 * heading then about PAGE_TOKENS cl100k tokens of report prose, so about one 800/100-token chunk a page.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import PDFDocument from 'pdfkit';
import seedrandom from 'seedrandom';
import { documentIdentity } from '../src/corpus/naming.ts';
import type { IngestDocument } from '../src/ingest/documents.ts';

export const REPORTS = 20;
/** cl100k tokens of prose a page: about the new text of one 800-token chunk with 100 overlap. */
const PAGE_TOKENS = 700;

const SECTIONS = [
  'MANAGEMENT DISCUSSION AND ANALYSIS',
  "DIRECTORS' REPORT",
  'RISK MANAGEMENT',
  'CORPORATE GOVERNANCE',
  'BUSINESS RESPONSIBILITY AND SUSTAINABILITY',
  'NOTES TO THE FINANCIAL STATEMENTS',
];
const SENTENCES = [
  'Revenue from operations grew {p}% to ₹{n} crore, driven by higher volumes across segments.',
  'The Board recommended a final dividend of ₹{d} per equity share for the financial year.',
  'Gross non-performing assets stood at {d}% of gross advances as of March 31, 2024.',
  'EBITDA margin improved by {d} basis points owing to operating leverage and cost discipline.',
  'The company added {n} employees during the year and attrition declined to {p}%.',
  'Capital expenditure of ₹{n} crore was incurred on new hubs, vehicles and technology.',
  'Key risks include fuel price volatility, regulatory changes and competitive intensity.',
  'CSR spend amounted to ₹{d} crore under programmes for education, health and rural development.',
];

/** Seeded sentences of annual-report prose, figures filled in, until they hold `tokens` cl100k tokens. */
export function reportSentences(rng: () => number, tokens: number): string[] {
  const sentences: string[] = [];
  let n = 0;
  while (n < tokens) {
    const s = (SENTENCES[Math.floor(rng() * SENTENCES.length)] as string)
      .replace('{p}', (rng() * 40).toFixed(1))
      .replace('{d}', (rng() * 100).toFixed(2))
      .replace('{n}', Math.floor(rng() * 99_999).toLocaleString('en-IN'));
    sentences.push(s);
    n += encode(s).length;
  }
  return sentences;
}

/** One page of seeded report prose (PAGE_TOKENS cl100k tokens), in paragraphs of six sentences. */
function pageProse(rng: () => number): string[] {
  const sentences = reportSentences(rng, PAGE_TOKENS);
  const paragraphs: string[] = [];
  for (let i = 0; i < sentences.length; i += 6) paragraphs.push(sentences.slice(i, i + 6).join(' '));
  return paragraphs;
}

/** A report of `pages` pages, each a numbered section heading then prose; fixed dates, no compression. */
function syntheticReport(seed: string, pages: number): Promise<Buffer> {
  const rng = seedrandom(seed);
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: false,
    info: { Title: seed, Producer: 'rge bench', CreationDate: new Date(Date.UTC(2024, 3, 1)) },
  });
  const parts: Buffer[] = [];
  doc.on('data', (c: Buffer) => parts.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
  });
  for (let p = 0; p < pages; p++) {
    doc.addPage({ size: 'A4', margin: 56 });
    const heading = `${p + 1}. ${SECTIONS[p % SECTIONS.length]}`;
    doc.font('Helvetica-Bold').fontSize(13).text(heading, { width: 483 });
    doc.moveDown(0.3);
    for (const para of pageProse(rng)) {
      doc.font('Helvetica').fontSize(10).text(para, { width: 483 });
      doc.moveDown(0.5);
    }
  }
  doc.end();
  return done;
}

/** The synthetic corpus: REPORTS PDFs with about `chunks` chunks in all. */
export async function syntheticCorpus(dir: string, chunks: number): Promise<IngestDocument[]> {
  await mkdir(dir, { recursive: true });
  const pages = Math.max(1, Math.ceil(chunks / REPORTS));
  const docs: IngestDocument[] = [];
  for (let r = 0; r < REPORTS; r++) {
    const fy = r % 2 === 0 ? 'FY2023-24' : 'FY2022-23';
    const path = join(dir, `Synthetic_Company_${String(r + 1).padStart(2, '0')}_Annual_Report_${fy}.pdf`);
    await writeFile(path, await syntheticReport(`rge-ingest-bench-${r}`, pages));
    docs.push({ path, ...documentIdentity(path) });
  }
  return docs;
}
