import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `../shared` beside the repository (the real filings and the human-labelled sets), or null on a user's
 * clone where it is absent. RGE_SHARED=0 makes the tests behave as if it were absent (what `npm test`
 * costs on a user's clone); the tests that use it are the long ones and say so.
 */
function sharedDir(name: string): string | null {
  if (process.env.RGE_SHARED === '0') return null;
  const dir = fileURLToPath(new URL(`../../../shared/${name}`, import.meta.url));
  return existsSync(dir) ? dir : null;
}

/** `../shared/corpus`: the real filings. */
export const sharedCorpus: string | null = sharedDir('corpus');

/** `../shared/labels`: human-labelled sets (AttributionBench, SALAD, FinanceBench answers). */
export const sharedLabels: string | null = sharedDir('labels');

/** `../shared/oracle`: reference vectors computed with other projects' implementations (ppi_py). */
export const sharedOracle: string | null = sharedDir('oracle');

export const SHARED_ABSENT = '../shared/corpus is absent (a user clone, or RGE_SHARED=0): skipped';

/** The repository's own cache folder, so repeated local runs reuse extracted pages and embeddings. */
export const repoCacheDir = fileURLToPath(new URL('../../.cache/rge', import.meta.url));
