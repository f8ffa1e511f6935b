/**
 * The markdown pages the docs tests read: README.md and docs/**\/*.md, their fenced blocks, and the
 * markers that say why a shell block is not run (docs/README.md, "How the shell blocks are tested").
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** `../shared` beside the repository (the real filings and labels), unless RGE_SHARED=0 says to act as if absent. */
export function sharedDir(): string | null {
  const dir = join(root, '..', 'shared');
  return process.env.RGE_SHARED !== '0' && existsSync(dir) ? dir : null;
}

/** One fenced block: its info string (`sh live`), its language (`sh`), its words after it, its body, its line. */
export interface Fence {
  info: string;
  lang: string;
  markers: string[];
  body: string;
  line: number;
}

/** The page's fenced blocks (``` fences, indented too, as in a list item), in order; bodies dedented. */
export function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  for (const m of markdown.matchAll(/^( *)```([^\n`]*)\n([\s\S]*?)^\1```$/gm)) {
    const indent = (m[1] as string).length;
    const info = (m[2] as string).trim();
    const [lang = '', ...markers] = info.split(/\s+/).filter(Boolean);
    const line = markdown.slice(0, m.index).split('\n').length;
    const body = (m[3] as string)
      .split('\n')
      .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
      .join('\n');
    out.push({ info, lang, markers, body, line });
  }
  return out;
}

/** The page's blocks of one language with no marker, in order (what a page's session runs). */
export function blocks(markdown: string, lang: string): string[] {
  return fences(markdown)
    .filter((f) => f.lang === lang && f.markers.length === 0)
    .map((f) => f.body);
}

/** Why a marked block is not run (`shared`: only when ../shared is absent). */
export const MARKERS: Record<string, string> = {
  live: 'needs an API key, the network or a live run',
  shared: 'needs ../shared, which is absent (or RGE_SHARED=0)',
  slow: 'reproduces a measurement of minutes to hours',
  suite: "runs this repository's own tests",
  example: 'illustrative only',
};

/** README.md and every markdown page under docs/, as paths from the repository's root. */
export function docPages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
    );
  return [
    'README.md',
    ...walk(join(root, 'docs'))
      .map((p) => relative(root, p))
      .sort(),
  ];
}
