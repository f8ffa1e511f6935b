/**
 * Vitest as a CI machine runs it: `node node_modules/vitest/vitest.mjs ARGS...` as a child process in
 * the repository, with the rge variables of the run (RGE_RESULTS_DIR, RGE_REPORTS_DIR, RGE_QUESTIONS,
 * RGE_RUNS) and none of the parent Vitest's own.
 */
import { fileURLToPath } from 'node:url';
import { spawnNode } from '../helpers/child.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The parent's environment without what its own Vitest worker set. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('VITEST') && !k.startsWith('RGE_') && k !== 'TEST') env[k] = v;
  return { ...env, CI: '1', NO_COLOR: '1', ...extra };
}

export function spawnVitest(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  return spawnNode('node_modules/vitest/vitest.mjs', args, childEnv(env));
}
