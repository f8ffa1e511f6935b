/**
 * Every ```sh block of README.md and docs/**\/*.md is run on a clean clone, or carries a marker saying
 * why not (docs/README.md, "How the shell blocks are tested"): `live` (a key, the network or a live
 * run's results), `shared` (the real filings in ../shared: run when they are there), `slow` (a
 * measurement of minutes to hours), `suite` (this repository's own tests), `example` (illustrative).
 * Here, in-process: every block is `sh` with known markers, none hides outside a fence, none that runs
 * installs packages, and the guides have blocks that run. Running them is
 * test/docs/shell-blocks.integration.test.ts (sessions of `bash -e` on a clean clone, minutes).
 */
import { describe, expect, it } from 'vitest';
import { MARKERS } from './pages.ts';
import { INSTALLS, pages, runs, SHELLS, sessions } from './shell-sessions.ts';

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
