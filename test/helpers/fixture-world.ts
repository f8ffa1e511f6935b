/**
 * The fixture world as the tests use it: the 20 generated report PDFs and their index, built once per
 * test run (on first use, under the index's build lock, so workers and child processes wait for one
 * build) in the run's temporary folder (test/helpers/test-dir-setup.ts), with the page and embedding
 * cache there too. Tests run the repository's configs with `worldOverrides`, which point the corpus at
 * that folder, never at fixtures/generated (the folder `npx vitest run evals` builds for users).
 *
 * Two worlds: `bm25`, the embedder of configs/fixture.yaml and configs/ci.yaml (the default: the tests
 * that assert the fixture run's figures need its retrieval; ADR 0020), and `use-lite`, for the tests of
 * the dense model on the fixture world: same PDFs and chunks.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRunConfig } from '../../src/run/config/config.ts';
import { ensureCorpusIndex } from '../../src/run/config/corpus-index.ts';
import './test-dir-setup.ts';

export type WorldEmbedder = 'use-lite' | 'bm25';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The folder the unit project's global setup provides (`inject`), read once when this module loads in
 * a Vitest worker. Outside Vitest (a bench, a script) vitest is not imported at all, and where VITEST
 * is only inherited (a child process a test started) `inject` throws, having no test run to read from:
 * both give undefined, and `RGE_TEST_DIR` names the folder.
 */
async function injectedTestDir(): Promise<string | undefined> {
  if (!process.env.VITEST) return undefined;
  try {
    return (await import('vitest')).inject('rgeTestDir');
  } catch {
    return undefined;
  }
}
const injected = await injectedTestDir();

/**
 * The run's temporary folder: the unit project's global setup makes it; outside Vitest (a bench, a
 * script) the caller names one in `RGE_TEST_DIR` (`npm run bench` sets it to a folder of its own).
 */
export function testRunDir(): string {
  const outside = process.env.RGE_TEST_DIR;
  if (outside) return outside;
  if (!injected)
    throw new Error(
      'no test folder: run the tests through the unit project (vitest.config.ts), or set RGE_TEST_DIR outside Vitest',
    );
  return injected;
}

/** Where a world lives, and the config overrides (`--set`, RGE_SET) that point a run at it and its questions. */
export function worldPaths(embedder: WorldEmbedder = 'bm25'): {
  dir: string;
  pdfs: string;
  index: string;
  overrides: string[];
} {
  const dir = join(testRunDir(), `world-${embedder}`);
  const pdfs = join(dir, 'pdfs');
  const index = join(dir, 'index');
  return {
    dir,
    pdfs,
    index,
    overrides: [
      'corpus.generated_from=fixtures/facts.json',
      `corpus.pdfs=${pdfs}`,
      `corpus.index=${index}`,
      `corpus.embedder=${embedder}`,
      // the world's own questions: their gold belongs to its index (a config's real set does not)
      'questions.file=fixtures/questions.jsonl',
    ],
  };
}

const built = new Map<WorldEmbedder, Promise<void>>();

/**
 * Builds the world if it is not built yet (once per test run: the first caller builds, under the
 * index's lock, and later callers, in any worker, find it built) and returns its config overrides.
 * Call it before spawning a child that runs on the world, so the child never builds it itself.
 */
export async function worldOverrides(embedder: WorldEmbedder = 'bm25'): Promise<string[]> {
  const world = worldPaths(embedder);
  let done = built.get(embedder);
  if (!done) {
    done = (async () => {
      const at = (p: string) => (isAbsolute(p) ? p : resolve(ROOT, p));
      const config = await loadRunConfig(join(ROOT, 'configs/fixture.yaml'), { overrides: world.overrides });
      // one page and embedding cache for both worlds: the second build reuses the extracted pages
      await ensureCorpusIndex(config, at, { cacheDir: join(testRunDir(), 'cache') });
    })();
    built.set(embedder, done);
    done.catch(() => built.delete(embedder));
  }
  await done;
  return world.overrides;
}

/** `worldOverrides` as `rge` arguments: `--set path=value` for each. */
export async function worldSetArgs(embedder: WorldEmbedder = 'bm25'): Promise<string[]> {
  return (await worldOverrides(embedder)).flatMap((o) => ['--set', o]);
}
