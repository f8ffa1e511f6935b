/**
 * The evals project's global setup, in Vitest's main process before any slice file starts: builds the
 * generated fixture corpus and index if they are missing (a fresh clone). Workers running slices at once
 * would otherwise each build it into the same folders. A built index costs a config read here.
 */
import { isAbsolute, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadRunConfig } from '../run/config.ts';
import { ensureCorpusIndex } from '../run/corpus-index.ts';

export default async function setup(project: TestProject): Promise<void> {
  const root = project.config.root;
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const overrides = process.env.RGE_SET ? (JSON.parse(process.env.RGE_SET) as string[]) : [];
  const config = await loadRunConfig(at(process.env.RGE_CONFIG ?? 'configs/fixture.yaml'), { overrides });
  // corpus.allow_download: false forbids model downloads (as `rge eval run --offline`), in the workers too
  if (!config.corpus.allow_download) process.env.RGE_OFFLINE = '1';
  await ensureCorpusIndex(config, at, { log: (line) => process.stderr.write(`${line}\n`) });
}
