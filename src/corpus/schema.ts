import { z } from 'zod';

/** A fiscal year label as the methodology writes it: FY23, FY24. */
export const FiscalYear = z.string().regex(/^FY\d{2}$/, 'fiscal year must look like FY24');

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex digits');

const HttpUrl = z.url({ protocol: /^https?$/ });

/**
 * One document of `data/corpus/sources.yaml`. Without sha256 it is "unpinned".
 *
 * `sha256` pins the bytes as downloaded (or copied): the PDF itself, or the ZIP archive that holds it.
 * For a ZIP, `pdf_sha256` pins the PDF taken out of it, which is what lands at `file`.
 */
export const SourceDocument = z.strictObject({
  company: z
    .string()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'company must be a lowercase slug such as hdfc-bank'),
  company_name: z.string().min(1).optional(),
  fy: FiscalYear,
  url: HttpUrl.nullable().default(null),
  /** Other places the same document was seen; tried in order when `url` fails. */
  alt_urls: z.array(HttpUrl).optional(),
  /** A local copy (PDF or ZIP) to use instead of downloading; relative to the sources file's folder. */
  path: z.string().min(1, 'path must not be empty').optional(),
  sha256: Sha256.nullable().default(null),
  pdf_sha256: Sha256.nullable().optional(),
  /** Which entry of a ZIP holding several PDFs is the report. */
  zip_entry: z.string().min(1).optional(),
  accessed_on: z.iso.date().nullable().default(null),
  file: z
    .string()
    .regex(/^[A-Za-z0-9._-]+\.pdf$/, 'file must be a plain file name ending in .pdf (no folders)'),
  note: z.string().optional(),
});
export type SourceDocument = z.infer<typeof SourceDocument>;

export const SourcesFile = z.strictObject({
  version: z.literal(1),
  documents: z.array(SourceDocument).min(1),
});
export type SourcesFile = z.infer<typeof SourcesFile>;

/** How a page's text was obtained: the plain text layer, or the table-aware layout path. */
export const ExtractionMethod = z.enum(['text', 'table']);
export type ExtractionMethod = z.infer<typeof ExtractionMethod>;

/**
 * The text of one page; `page` is 1-indexed. A PDF page has one line per visual line (or table row); a
 * Markdown, HTML or text file is one page with one line per paragraph, list item or table row
 * (corpus/formats/).
 */
export const PageText = z.object({
  page: z.number().int().positive(),
  text: z.string(),
  method: ExtractionMethod,
  /**
   * The lines of `text` (0-based, split at line ends) that are headings, when the document says so
   * (a Markdown `#`, an HTML `<h2>`): the chunker takes these and only these as headings, and strips no
   * page furniture. Absent for a PDF page, whose headings the chunker finds by heuristics (headings.ts).
   */
  headings: z.array(z.number().int().nonnegative()).optional(),
});
export type PageText = z.infer<typeof PageText>;

/** A retrievable passage. `pages` is the 1-indexed, inclusive page range the text came from. */
export const Chunk = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+-(?:FY\d{2}|FYNA)-[0-9a-f]{8}$/),
  company: z.string(),
  fy: FiscalYear.nullable(),
  source: z.string(),
  heading: z.string().nullable(),
  /** every heading the chunk's lines fall under, in order (from `heading`, when not null); absent before chunker 3 */
  headings: z.array(z.string()).optional(),
  pages: z.tuple([z.number().int().positive(), z.number().int().positive()]),
  tokens: z.number().int().positive(),
  text: z.string().min(1),
});
export type Chunk = z.infer<typeof Chunk>;
