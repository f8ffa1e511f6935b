/**
 * An index over a user's own folder of documents in one call (`rge questions generate`, issue 55): the
 * folder read (source-documents.ts: every PDF, Markdown, HTML and text file, with its language), then
 * ingested (ingest.ts) from the pages in hand, so no document is read twice: chunked by the same chunker,
 * with content-addressed chunk ids, embedded and indexed.
 */
import { join } from 'node:path';
import type { IngestDocument } from './documents.ts';
import { type IngestOptions, type IngestReport, ingest } from './ingest.ts';
import {
  type ReadSourceOptions,
  readSourceDocuments,
  type SourceDocumentText,
  type SourceProblem,
} from './source-documents.ts';

export interface SourceFolderIngest {
  report: IngestReport;
  /** the documents read, in order of relative path, each with its language */
  documents: SourceDocumentText[];
  /** the files not used (or used with a reservation), each named */
  problems: SourceProblem[];
}

/** The ingest's documents for documents read already: their pages in hand, pinned to what was read. */
export function ingestDocuments(dir: string, documents: readonly SourceDocumentText[]): IngestDocument[] {
  return documents.map((d) => ({
    path: join(dir, ...d.source.split('/')),
    company: d.company,
    fy: d.fy,
    source: d.source,
    sha256: d.sha256,
    kind: d.kind,
    pages: d.pages,
  }));
}

/**
 * Reads every document of `dir` and builds the index `opts.indexDir` over them. Pages are cached in
 * `opts.cacheDir` (a second call over an unchanged folder extracts nothing); the problems name the files
 * left out. Throws as `readSourceDocuments` does when the folder has no readable document.
 */
export async function ingestSourceFolder(dir: string, opts: IngestOptions): Promise<SourceFolderIngest> {
  const read: ReadSourceOptions = {
    cacheDir: opts.cacheDir,
    ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
    ...(opts.rangePages !== undefined ? { rangePages: opts.rangePages } : {}),
    ...(opts.tables !== undefined ? { tables: opts.tables } : {}),
  };
  const { documents, problems } = await readSourceDocuments(dir, read);
  const report = await ingest(ingestDocuments(dir, documents), opts);
  return { report, documents, problems };
}
