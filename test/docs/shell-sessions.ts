/**
 * The shell blocks of README.md and docs/ as the docs tests read them: each page's fenced blocks, and the
 * session each page runs (its `sh` blocks with no marker, or only `shared` with ../shared here, in
 * order). test/docs/shell-blocks.test.ts checks the blocks' markers in-process;
 * test/docs/shell-blocks.integration.test.ts runs the sessions on a clean clone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docPages, type Fence, fences, root, sharedDir } from './pages.ts';

/** Pages whose blocks another test runs (with checks of their own). */
export const OWN_TEST: Record<string, string> = {
  'docs/evaluate-your-rag-app.md': 'test/docs/rag-app-guide.integration.test.ts',
};
export const SHELLS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
export const shared = sharedDir();
/** `npm ci` and the like would replace the node_modules the clone links: never run, whatever the marker says. */
export const INSTALLS = /\bnpm (ci|i|install|uninstall|update)\b/;

/** Whether the session runs this block: no marker, or only `shared` with ../shared here. */
export const runs = (f: Fence) => f.markers.every((m) => m === 'shared' && shared !== null);

export const pages = docPages().map((path) => ({
  path,
  blocks: fences(readFileSync(join(root, path), 'utf8')),
}));

/** Each page's session: its blocks that run, in order (pages another test runs left out). */
export const sessions = pages
  .filter((p) => !(p.path in OWN_TEST))
  .map((p) => ({
    path: p.path,
    script: p.blocks.filter((f) => f.lang === 'sh' && runs(f)).map((f) => f.body),
  }))
  .filter((s) => s.script.length > 0);
