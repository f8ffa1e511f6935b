/**
 * pdf.js's own files and rge's patched copies (src/corpus/pdfjs-patches.ts, docs/adr/0024) give the same
 * text items on real filings of ../shared/corpus: a 10-K and two Indian annual reports. On the
 * repository's own PDFs: test/corpus/pdfjs-patches-compare.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_ABSENT, sharedCorpus } from '../helpers/shared.ts';
import { firstDifference, readAll } from './pdfjs-compare.ts';

describe.skipIf(!sharedCorpus)(
  `pdf.js patches on real filings${sharedCorpus ? '' : ` (${SHARED_ABSENT})`}`,
  () => {
    it('gives the same text items as the original on a 10-K and two Indian annual reports', async () => {
      const corpus = sharedCorpus as string;
      const files = [
        join(corpus, 'financebench/pdfs/3M_2022_10K.pdf'),
        join(corpus, 'indian/Rane_Holdings_Annual_Report_FY2024-25.pdf'),
        join(corpus, 'indian/VRL_Logistics_Annual_Report_FY2023-24.pdf'),
      ];
      const [original, patched] = await Promise.all([readAll('original', files), readAll('patched', files)]);
      expect(patched.split('\n').length).toBeGreaterThan(500);
      expect(firstDifference(original, patched)).toBeNull();
    });
  },
);
