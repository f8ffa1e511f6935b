/**
 * Heading detection on real Indian filings nobody here wrote: every report of ../shared/corpus/indian is
 * extracted and chunked as `rge corpus ingest --pdfs` does, and a sample of the detected headings is
 * printed per report so a reviewer can judge them.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentLines } from '../../src/corpus/chunk.ts';
import { extractPdf } from '../../src/corpus/pdf.ts';
import { documentsFromFolder } from '../../src/ingest/documents.ts';
import { type PreparedCorpus, prepareCorpus } from '../../src/ingest/ingest.ts';
import { repoCacheDir, SHARED_ABSENT, sharedCorpus } from '../helpers/shared.ts';

describe.skipIf(!sharedCorpus)(
  `headings detected in real Indian reports (${SHARED_ABSENT} when absent)`,
  () => {
    let prepared: PreparedCorpus;

    beforeAll(async () => {
      const docs = await documentsFromFolder(join(sharedCorpus ?? '', 'indian'));
      prepared = await prepareCorpus(docs, { cacheDir: repoCacheDir });
      for (const [i, d] of prepared.documents.entries()) {
        const headings = [
          ...new Set((prepared.byDocument[i] ?? []).map((c) => c.heading).filter((h) => h !== null)),
        ];
        const step = Math.max(1, Math.floor(headings.length / 8));
        const sample = headings.filter((_, j) => j % step === 0).slice(0, 8);
        console.log(
          `\n${d.source}: ${d.pages} pages (${d.tablePages} table layout), ${d.chunks} chunks, ${headings.length} distinct headings\n  ${sample.join('\n  ')}`,
        );
      }
    }, 1_800_000);

    it('ingests every report', () => {
      expect(prepared.documents.length).toBe(10);
      expect(prepared.failed).toBe(0);
    });

    it('finds many distinct headings in each full report and labels most chunks', () => {
      for (const [i, d] of prepared.documents.entries()) {
        const chunks = prepared.byDocument[i] ?? [];
        const distinct = new Set(chunks.map((c) => c.heading).filter((h) => h !== null));
        if (d.pages >= 100) expect(distinct.size, d.source).toBeGreaterThanOrEqual(20);
        const labelled = chunks.filter((c) => c.heading !== null).length / chunks.length;
        expect(labelled, d.source).toBeGreaterThan(0.8);
      }
    });

    it("detects the numbered sections of the VRL Logistics Directors' Report", async () => {
      const vrl = await extractPdf(
        join(sharedCorpus ?? '', 'indian', 'VRL_Logistics_Annual_Report_FY2023-24.pdf'),
      );
      const headings = new Set(documentLines(vrl.pages).map((l) => l.heading));
      const expected = [
        '8. DIVIDEND',
        '14. CREDIT RATING',
        '33. AUDITORS and AUDIT REPORTS',
        '17. CORPORATE GOVERNANCE',
      ];
      for (const h of expected) expect(headings.has(h), h).toBe(true);
      // A wrapped capitalised heading is joined with its second line.
      expect(
        [...headings].some(
          (h) => h?.startsWith('32. SECURITIES AND EXCHANGE BOARD OF INDIA') && h.endsWith('2015'),
        ),
      ).toBe(true);
    });

    it('reads the rupee sign of the old rupee fonts as ₹, never as a backtick', () => {
      // VRL Logistics sets ₹ in IndianRupee-Regular and RupeeForadian, Rane Holdings in "Rupee": all
      // three put the glyph on the backtick key. No report here has a real backtick.
      const text = (source: string) =>
        (prepared.byDocument[prepared.documents.findIndex((d) => d.source === source)] ?? [])
          .map((c) => c.text)
          .join('\n');
      const vrl = text('VRL_Logistics_Annual_Report_FY2023-24.pdf');
      const rane = text('Rane_Holdings_Annual_Report_FY2024-25.pdf');
      expect(vrl).toMatch(/₹ ?2,90,971\.85 lakhs/);
      expect(vrl).toMatch(/₹ ?41,454\.01 lakhs/);
      expect(rane).toMatch(/\(₹ in Crores\)/);
      expect(rane).toMatch(/Earnings Per Share \(₹\)/);
      for (const chunks of prepared.byDocument)
        for (const c of chunks) expect(c.text, c.id).not.toContain('`');
    });

    it('never takes a table label, a form field or a code for a heading', () => {
      const bad = new Set([
        'Sciences (4)',
        'NSE Code VRLLOG',
        'Not Applicable',
        'NOT APPLICABLE',
        'Nil Nil',
        'None None None',
        'Not Applicable Not Applicable Not Applicable',
        'ISIN (Equity Shares) in NSDL and CDSL INE366I01010',
        'Director Identification Number (DIN) 00012583',
        'Passenger Cars (PC) (12) (9)',
        'Place : Ahmedabad Partner',
        'Name of the Company : VRL LOGISTICS LIMITED',
      ]);
      const all = new Set(prepared.byDocument.flat().map((c) => c.heading));
      for (const h of bad) expect(all.has(h), h).toBe(false);
      for (const h of all) {
        if (h === null) continue;
        expect(h).not.toMatch(/\s\(\d{1,3}\)$/); // a note reference
        expect(h).not.toMatch(/\((?:DIN|CIN|PAN|ISIN)\)/); // a field naming an identifier (chunker 2)
        expect(h).not.toMatch(/\b[A-Z]{1,3}\d{5}[A-Z]{2}\d{4}[A-Z]{3}\d{6}\b/); // a CIN
        expect(h).not.toMatch(/\bIN(?=[A-Z0-9]*\d)[A-Z0-9]{10}\b/); // an ISIN
      }
      // the real headings around them still label chunks
      for (const h of [
        '2.2 PROPERTY, PLANT AND EQUIPMENT',
        '2.10.5 Impairment',
        'REPORT ON CORPORATE GOVERNANCE',
        'Definition of Default',
        'RISK MANAGEMENT COMMITTEE',
      ])
        expect(all.has(h), h).toBe(true);
    });

    it('never takes a page number, a running footer or a wrapped sentence for a heading', () => {
      for (const chunks of prepared.byDocument) {
        for (const c of chunks) {
          const h = c.heading ?? '';
          expect(h, c.id).not.toMatch(/^\d+$/);
          expect(h, c.id).not.toMatch(/annual report \d{4}-\d{2} \d{1,3}$/i);
          expect(h, c.id).not.toMatch(/\b(?:the|of|and|which are not)$/i);
        }
      }
    });
  },
);
