/**
 * Importing public question sets as rge questions, resolved against a built index:
 * - FinanceBench (0-indexed `evidence_page_num`; documents are PDFs named by `doc_name`, which
 *   `rge corpus ingest --pdfs` turns into company slugs);
 * - Enterprise RAG Challenge round 1 (`questions.json` with `answers.json` and `dataset.csv` beside it;
 *   PDFs are named by sha1, so a document's company slug is its sha1).
 *
 * Only questions whose documents are all in the index are imported. A gold evidence page becomes the
 * chunks of that document whose page range covers it; a gold quote is the evidence text where it
 * appears (whitespace-normalised) in one of those chunks, else its longest sentence that does, else its
 * longest run of words that does (marked in authoring_notes). N/A answers become out-of-domain.
 */
import type { Chunk } from '../corpus/schema.ts';
import type { ImportFormat, ImportResult } from './import-common.ts';
import { importErc } from './import-erc.ts';
import { importFinanceBench } from './import-financebench.ts';

export async function importQuestions(
  format: ImportFormat,
  file: string,
  chunks: readonly Chunk[],
): Promise<ImportResult> {
  return format === 'financebench' ? importFinanceBench(file, chunks) : importErc(file, chunks);
}
