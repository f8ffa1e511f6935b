/**
 * The ingest stage's section of the run config (composed by src/run/config/config.ts): `corpus`, where the
 * sources, PDFs and index are and how pages are chunked and indexed.
 */
import { z } from 'zod';
import { BgeM3Settings, EMBEDDERS, HybridSettings } from '../retrieval/config.ts';
import { type AddIssue, isRecord, Path } from '../util/config-fields.ts';

/** The methodology's chunk size, in tokens: a corpus section's default. */
export const DEFAULT_CHUNK_TOKENS = 800;

export const CorpusSettings = z.strictObject({
  sources: Path.optional().describe(
    'sources.yaml (url and sha256 per document); absent for a corpus that is not fetched',
  ),
  generated_from: Path.optional().describe(
    'facts file the corpus PDFs are generated from (the fixture world); then the PDFs and the index are built on first use',
  ),
  pdfs: Path.describe('folder of the corpus PDFs'),
  index: Path.describe('folder of the retrieval index'),
  embedder: z.enum(EMBEDDERS),
  hybrid: HybridSettings.optional().describe(
    'embedder hybrid only: the dense model and the fusion parameters (defaults: use-lite, rrf_k 60, depth 50, weights 1 and 1)',
  ),
  bge_m3: BgeM3Settings.optional().describe(
    'bge-m3 (alone or as the hybrid dense half): which ONNX weights; int8 is recorded in the index manifest and changes its checksum',
  ),
  allow_download: z
    .boolean()
    .default(true)
    .describe(
      'may a missing embedding model (bge-m3) be downloaded from the Hugging Face hub on first use; false = offline, like --offline',
    ),
  chunk_tokens: z.number().int().positive().default(DEFAULT_CHUNK_TOKENS),
  overlap_tokens: z.number().int().min(0).default(100),
  tables: z
    .enum(['auto', 'always', 'never'])
    .default('auto')
    .describe('table-aware extraction: auto (per page), always, never'),
});

/** The corpus section's cross-field rule (over unknown data: it runs on partly invalid configs too). */
export function corpusIssues(corpus: unknown, issue: AddIssue): void {
  if (
    isRecord(corpus) &&
    typeof corpus.chunk_tokens === 'number' &&
    typeof corpus.overlap_tokens === 'number'
  )
    if (corpus.overlap_tokens >= corpus.chunk_tokens)
      issue(['corpus', 'overlap_tokens'], `must be less than chunk_tokens (${corpus.chunk_tokens})`);
}
