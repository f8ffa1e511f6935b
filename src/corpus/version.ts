/**
 * The extractor's version. Bump it when extraction output changes: cached pages are keyed by it, and an
 * index records it, so a config never uses pages or an index made by another extractor.
 */
export const EXTRACTOR_VERSION = 2;
