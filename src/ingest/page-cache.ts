/**
 * The page cache of an ingest: a document's pages as rge read them, in `<cacheDir>/pages/`, keyed by the
 * file's sha256 and what read it, so an unchanged document is not read again. A PDF's pages by the
 * extractor's version and the table mode; a Markdown, HTML or text file's by the readers' version
 * (corpus/formats). A damaged entry is read again, never trusted.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DocumentKind } from '../corpus/formats/index.ts';
import { READER_VERSION } from '../corpus/formats/index.ts';
import type { TableMode } from '../corpus/pdf-document.ts';
import { PageText } from '../corpus/schema.ts';
import { EXTRACTOR_VERSION } from '../corpus/version.ts';
import { writeFileAtomic } from '../util/fs.ts';

/** Where the pages of a document of `kind` with this sha256 are cached. */
export function pageCachePath(cacheDir: string, hash: string, kind: DocumentKind, tables: TableMode): string {
  if (kind === 'pdf') return join(cacheDir, 'pages', `${hash}-v${EXTRACTOR_VERSION}-${tables}.json`);
  return join(cacheDir, 'pages', `${hash}-${kind}-r${READER_VERSION}.json`);
}

/** The cached pages at `path`, or null when there are none or they cannot be read. */
export async function readPageCache(path: string): Promise<PageText[] | null> {
  if (!existsSync(path)) return null;
  try {
    return PageText.array().parse(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return null; // a damaged cache entry is re-extracted, not trusted
  }
}

export function writePageCache(path: string, pages: readonly PageText[]): Promise<void> {
  return writeFileAtomic(path, JSON.stringify(pages));
}
