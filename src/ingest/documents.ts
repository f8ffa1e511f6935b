/**
 * The documents an ingest reads (ingest.ts): a sources.yaml's, whose PDFs were fetched into a folder
 * and are pinned by sha256, or every PDF of a folder, named by a company map or by their file names.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { COMPANIES_FILE, loadCompanyMap } from '../corpus/companies.ts';
import type { DocumentKind } from '../corpus/formats/index.ts';
import { documentIdentity } from '../corpus/naming.ts';
import type { PageText, SourceDocument } from '../corpus/schema.ts';
import { pinnedPdfSha256 } from '../corpus/sources.ts';
import { RgeError, UsageError } from '../util/errors.ts';

export interface IngestDocument {
  path: string;
  company: string;
  /** the company's display name, when a company map gave one */
  companyName?: string;
  fy: string | null;
  source: string;
  /** the pinned sha256, verified before ingest when present */
  sha256?: string | null;
  /** what the file is (default pdf): a Markdown, HTML or text file is read by corpus/formats */
  kind?: DocumentKind;
  /** its pages when they were read already (source-documents.ts), with `sha256` the file's: not read again */
  pages?: PageText[];
}
/** The documents of a sources.yaml whose PDFs sit in `pdfDir`. */
export function documentsFromSources(docs: readonly SourceDocument[], pdfDir: string): IngestDocument[] {
  return docs.map((d) => ({
    path: join(pdfDir, d.file),
    company: d.company,
    fy: d.fy,
    source: d.file,
    // a ZIP download is pinned by its own sha256; the PDF taken out of it by pdf_sha256
    sha256: pinnedPdfSha256(d),
  }));
}

/**
 * Every PDF of a folder (sorted by name). Company and fiscal year from a company map (`companies`, a
 * CSV or YAML file; else the folder's companies.yaml when there is one), and for a file it does not
 * name, company = file name stem, fiscal year from the name. A map entry for a file that is not in the
 * folder is an error naming its line (a misspelt name would otherwise fall back silently).
 */
export async function documentsFromFolder(
  dir: string,
  opts: { companies?: string } = {},
): Promise<IngestDocument[]> {
  if (!existsSync(dir)) throw new UsageError('no such folder', { file: dir });
  const names = (await readdir(dir)).filter((n) => n.toLowerCase().endsWith('.pdf')).sort();
  if (names.length === 0) throw new RgeError(`no PDF files in ${dir}`);
  const mapFile = opts.companies ?? join(dir, COMPANIES_FILE);
  const companies =
    opts.companies !== undefined || existsSync(mapFile) ? await loadCompanyMap(mapFile) : null;
  if (companies) {
    const present = new Set(names);
    for (const [file, entry] of companies)
      if (!present.has(file))
        throw new RgeError(`${file} is not a PDF in ${dir}`, { file: mapFile, line: entry.line });
  }
  return names.map((n) => {
    const identity = documentIdentity(n);
    const entry = companies?.get(n);
    if (!entry) return { path: resolve(dir, n), ...identity };
    return {
      path: resolve(dir, n),
      source: identity.source,
      company: entry.company,
      ...(entry.name ? { companyName: entry.name } : {}),
      fy: entry.fy ?? identity.fy,
    };
  });
}
