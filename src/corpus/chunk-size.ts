/**
 * The chunk size and overlap, in cl100k tokens (docs/adr/0003-chunking.md): their own module, so that
 * a process recording them (ingest's index provenance) need not load the tokenizer with chunk.ts.
 */
export const CHUNK_TOKENS = 800;
export const OVERLAP_TOKENS = 100;
