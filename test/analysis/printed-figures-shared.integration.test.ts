/**
 * The lines test/analysis/printed-figures.test.ts copied from the Indian PDFs of ../shared/corpus/indian
 * (test/analysis/printed-excerpts.ts) are on the pages named, as the project's extractor gives them
 * (src/corpus/pdf.ts, tables 'auto').
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractPdf } from '../../src/corpus/pdf.ts';
import { SHARED_ABSENT, sharedCorpus } from '../helpers/shared.ts';
import { EXCERPTS } from './printed-excerpts.ts';

describe.skipIf(sharedCorpus === null)(
  `the embedded lines are on the pages named (${SHARED_ABSENT} when absent)`,
  () => {
    const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
    const files = [...new Set(EXCERPTS.map((e) => e.file))];
    it.each(files)('%s', async (file) => {
      const doc = await extractPdf(join(sharedCorpus ?? '', 'indian', file));
      for (const excerpt of EXCERPTS.filter((e) => e.file === file)) {
        const page = norm(doc.pages.find((p) => p.page === excerpt.page)?.text ?? '');
        for (const copied of excerpt.text.split('\n'))
          expect(page, `page ${excerpt.page}`).toContain(norm(copied));
      }
    });
  },
);
