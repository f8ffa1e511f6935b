/**
 * Run configs whose subjects are systems (module, http, command), on the tests' fixture world: the
 * fixture config's corpus, questions, judges and settings, its subjects replaced, written to a temporary
 * folder. The world's overrides are returned beside it for `--set`/`overrides`.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { worldOverrides } from './fixture-world.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A system subject as a config entry states it. */
export type SystemEntry = Record<string, unknown> & { id: string; provider: 'module' | 'http' | 'command' };

/** Writes a config with these subjects; returns its path and the world's overrides. */
export async function systemConfig(
  subjects: readonly SystemEntry[],
  extra: Record<string, unknown> = {},
): Promise<{ config: string; overrides: string[]; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'rge-system-config-'));
  const doc = parseDocument(await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8'));
  doc.set(
    'subjects',
    subjects.map((s) => ({ model: s.id, family: `test-${s.id}`, ...s })),
  );
  doc.set('subject_prompt', { file: join(ROOT, 'prompts/subject.md') });
  for (const [key, value] of Object.entries(extra)) doc.set(key, value);
  const config = join(dir, 'config.yaml');
  await writeFile(config, doc.toString());
  return { config, overrides: await worldOverrides(), dir };
}
