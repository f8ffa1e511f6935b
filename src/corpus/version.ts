/**
 * The extractor's version. Bump it when extraction output changes: cached pages are keyed by it, and an
 * index records it, so a config never uses pages or an index made by another extractor. Chunk headings
 * are part of what an index embeds, so a change to heading detection bumps it too.
 *
 * 2: the rupee sign of old rupee fonts and the bullets of symbol fonts read by font (glyphs.ts); table
 *    labels, form fields and codes no longer taken for headings (headings.ts `isTableLabel`).
 */
export const EXTRACTOR_VERSION = 2;
