/**
 * Every ```sh block of README.md and docs/**\/*.md is run on a clean clone, or carries a marker saying
 * why not (docs/README.md, "How the shell blocks are tested"): `live` (a key, the network or a live
 * run's results), `shared` (the real filings in ../shared: run when they are there), `slow` (a
 * measurement of minutes to hours), `suite` (this repository's own tests), `example` (illustrative).
 * The blocks of one page run in order in one `bash -e` session; every page runs in the same clone, one
 * after another. docs/evaluate-your-rag-app.md is left to test/docs/rag-app-guide.test.ts.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childOutput } from '../helpers/cli.ts';
import { cleanClone, docPages, type Fence, fences, MARKERS, root, sharedDir } from './clean-clone.ts';

const OWN_TEST: Record<string, string> = {
  'docs/evaluate-your-rag-app.md': 'test/docs/rag-app-guide.test.ts',
};
const SHELLS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
const shared = sharedDir();
/** `npm ci` and the like would replace the node_modules the clone links: never run, whatever the marker says. */
const INSTALLS = /\bnpm (ci|i|install|uninstall|update)\b/;

/** Whether the session runs this block: no marker, or only `shared` with ../shared here. */
const runs = (f: Fence) => f.markers.every((m) => m === 'shared' && shared !== null);

const pages = docPages().map((path) => ({ path, blocks: fences(readFileSync(join(root, path), 'utf8')) }));

const sessions = pages
  .filter((p) => !(p.path in OWN_TEST))
  .map((p) => ({
    path: p.path,
    script: p.blocks.filter((f) => f.lang === 'sh' && runs(f)).map((f) => f.body),
  }))
  .filter((s) => s.script.length > 0);

describe('the shell blocks of the README and docs/: each is run, or marked', () => {
  it('every shell block is `sh`, with no marker or only known ones', () => {
    const bad = pages.flatMap((p) =>
      p.blocks
        .filter((f) => SHELLS.has(f.lang) && (f.lang !== 'sh' || f.markers.some((m) => !(m in MARKERS))))
        .map((f) => `${p.path}:${f.line}: \`\`\`${f.info}`),
    );
    expect(bad, `a shell block is \`\`\`sh, optionally with ${Object.keys(MARKERS).join(', ')}`).toEqual([]);
  });

  it('no unlabelled fence holds commands (it would escape the test)', () => {
    const hidden = pages.flatMap((p) =>
      p.blocks
        .filter((f) => f.lang === '' && /^(npx|npm|node|git|rge) /m.test(f.body))
        .map((f) => `${p.path}:${f.line}`),
    );
    expect(hidden).toEqual([]);
  });

  it("no block that runs installs packages (the clone links this checkout's node_modules)", () => {
    expect(sessions.filter((x) => x.script.some((b) => INSTALLS.test(b))).map((x) => x.path)).toEqual([]);
  });

  it('the README and the guides have blocks that run', () => {
    const run = (path: string) =>
      pages.find((p) => p.path === path)?.blocks.filter((f) => f.lang === 'sh' && runs(f));
    for (const path of ['README.md', 'docs/gate-a-prompt-change.md', 'docs/review-and-label.md'])
      expect(run(path)?.length, path).toBeGreaterThan(0);
  });
});

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

  for (const p of pages.filter((x) => x.path in OWN_TEST))
    it.skip(`${p.path}: run by ${OWN_TEST[p.path]}`, () => {});

  const sharedBlocks = pages.filter((p) =>
    p.blocks.some((f) => f.markers.includes('shared') && f.markers.length === 1),
  );
  if (!shared)
    for (const p of sharedBlocks) it.skip(`${p.path}: its \`shared\` blocks (${MARKERS.shared})`, () => {});
});
