import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `../shared/corpus` beside the repository, or null on a user's clone where it is absent. */
export const sharedCorpus: string | null = (() => {
  const dir = fileURLToPath(new URL('../../../shared/corpus', import.meta.url));
  return existsSync(dir) ? dir : null;
})();

export const SHARED_ABSENT = '../shared/corpus is absent (a user clone): skipped';

/** The repository's own cache folder, so repeated local runs reuse extracted pages and embeddings. */
export const repoCacheDir = fileURLToPath(new URL('../../.cache/rge', import.meta.url));
