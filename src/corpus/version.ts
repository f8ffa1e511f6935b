/**
 * The extractor's version. Bump it when extraction output (the pages' text) changes: cached pages are
 * keyed by it, and an index records it, so a config never uses pages or an index made by another
 * extractor. A change to chunking or heading detection bumps `CHUNKER_VERSION` instead, which leaves
 * the cached pages valid (re-extracting the real filings takes about 20 minutes).
 *
 * 2: the rupee sign of old rupee fonts and the bullets of symbol fonts read by font (glyphs.ts); table
 *    labels, form fields and codes no longer taken for headings (headings.ts `isTableLabel`).
 */
export const EXTRACTOR_VERSION = 2;

/**
 * The chunker's version: chunk boundaries and the heading each chunk keeps (chunk.ts, headings.ts).
 * Bump it when chunks change for the same pages; an index records it, so a config never uses an index
 * chunked by other rules. An index that records none was chunked by version 1.
 *
 * 1: the rules of extractor 2 (table labels, form fields and codes are not headings).
 * 2: a form field naming an identifier ("Director Identification Number (DIN)") is not a heading.
 * 3: a chunk records every heading its lines fall under (`headings`), not only the first; same text and ids.
 */
export const CHUNKER_VERSION = 3;

/** How an index records the chunker. */
export const chunkerId = (version: number = CHUNKER_VERSION): string => `rge-chunk@${version}`;
