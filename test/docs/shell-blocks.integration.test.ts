/**
 * The ```sh blocks of README.md and docs/**\/*.md that run (no marker, or only `shared` with ../shared
 * here: test/docs/shell-blocks.test.ts checks every block's markers) are run on one clean clone: the
 * blocks of one page in order in one `bash -e` session, every page in the same clone, one after
 * another. docs/evaluate-your-rag-app.md is left to test/docs/rag-app-guide.integration.test.ts.
 * Afterwards the clone is as a user's tree would be: `git status` clean (what the commands wrote is
 * git-ignored, issue 53) and `biome check .`, npm test's lint, passing.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childOutput } from '../helpers/child.ts';
import { cleanClone, treeState } from './clean-clone.ts';
import { MARKERS } from './pages.ts';
import { INSTALLS, OWN_TEST, pages, sessions, shared } from './shell-sessions.ts';

describe('the shell blocks of the README and docs/, on one clean clone', () => {
  const outcome = new Map<string, { code: number; out: string; err: string }>();
  let clone = '';

  beforeAll(async () => {
    clone = await cleanClone('rge-docs-clone-', shared);
    // the parent's environment without what its own Vitest worker and test set-up set (as a user's shell)
    const env: NodeJS.ProcessEnv = { CI: '1' };
    for (const [k, v] of Object.entries(process.env))
      if (!k.startsWith('VITEST') && !k.startsWith('RGE_') && k !== 'TEST') env[k] = v;
    for (const s of sessions) {
      if (s.script.some((b) => INSTALLS.test(b))) continue;
      const script = ['set -e', ...s.script].join('\n');
      const child = spawn('bash', ['-c', script], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
      outcome.set(s.path, await childOutput(child));
    }
  }, 1_800_000);

  afterAll(async () => {
    if (clone) await rm(dirname(clone), { recursive: true, force: true });
  });

  for (const s of sessions)
    it(`${s.path}: ${s.script.length} block(s) run (bash -e exits 0)`, () => {
      const o = outcome.get(s.path);
      expect(o?.code, `${o?.out.slice(-3000)}\n${o?.err.slice(-3000)}`).toBe(0);
    });

  it("leaves the clone as a user's tree: git status clean, biome check . passing", () => {
    const { status, lint } = treeState(clone);
    expect(status).toEqual([]);
    expect(lint.code, lint.output).toBe(0);
  });

  for (const p of pages.filter((x) => x.path in OWN_TEST))
    it.skip(`${p.path}: run by ${OWN_TEST[p.path]}`, () => {});

  const sharedBlocks = pages.filter((p) =>
    p.blocks.some((f) => f.markers.includes('shared') && f.markers.length === 1),
  );
  if (!shared)
    for (const p of sharedBlocks) it.skip(`${p.path}: its \`shared\` blocks (${MARKERS.shared})`, () => {});
});
