/**
 * Every relative link of README.md and docs/**\/*.md resolves: the file or folder it names exists, and
 * its anchor (`page.md#heading`, `#heading`) is a heading of that page, slugged as GitHub slugs them.
 * Links in code (fenced blocks, inline code) are not links and are left out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, root } from './pages.ts';

/** The markdown without its fenced blocks and inline code (line count kept). */
function prose(markdown: string): string {
  return markdown
    .replace(/^( *)```[^\n]*\n[\s\S]*?^\1```$/gm, (m) => m.replace(/[^\n]/g, ''))
    .replace(/(`+)[^`\n][\s\S]*?\1/g, (m) => m.replace(/[^\n]/g, ' '));
}

/** A page's anchors: its headings slugged as GitHub does (lower case, punctuation dropped, spaces to -, repeats -1, -2). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(/^( *)```[^\n]*\n[\s\S]*?^\1```$/gm, '');
  for (const m of text.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = (m[1] as string)
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The broken relative links of one page, as `page:line: target (why)`. */
function brokenLinks(page: string): string[] {
  const text = prose(readFileSync(join(root, page), 'utf8'));
  const bad: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    const target = m[1] as string;
    if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
    const line = text.slice(0, m.index).split('\n').length;
    const [path = '', anchor] = target.split('#');
    const file = path === '' ? join(root, page) : join(root, dirname(page), decodeURIComponent(path));
    if (!existsSync(file)) bad.push(`${page}:${line}: ${target} (no ${relative(root, file)})`);
    else if (
      anchor !== undefined &&
      !(file.endsWith('.md') && anchors(readFileSync(file, 'utf8')).has(anchor))
    )
      bad.push(`${page}:${line}: ${target} (no heading #${anchor} in ${relative(root, file)})`);
  }
  return bad;
}

describe('the links of the README and docs/', () => {
  it('slugs headings as GitHub does', () => {
    expect([...anchors('# A `rge` page\n## 1. The prompt is a file\n## Two\n## Two\n')]).toEqual([
      'a-rge-page',
      '1-the-prompt-is-a-file',
      'two',
      'two-1',
    ]);
  });

  it('every relative link and anchor resolves', () => {
    expect(docPages().flatMap(brokenLinks)).toEqual([]);
  });
});
