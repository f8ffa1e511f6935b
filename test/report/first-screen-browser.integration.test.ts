/**
 * The report's first screen as a reader sees it: a real fixture run on a slice (`npx vitest run evals`,
 * 3 questions of each category, 2 runs, both offline subjects, in a child Vitest as a user runs it),
 * its summary.md rendered to HTML (marked, with a GitHub-like stylesheet) beside its gfs.svg, and opened
 * in headless Chromium (Debian's, driven by playwright-core) at 1280x800 on a light and on a dark page.
 * From the DOM: the ranking with its intervals, the probability of ranking first, the pairs' significance
 * and MDD are inside the first 800 px, and the provenance ("What was run", the hashes) starts below
 * them and below the first screen. The chart reads on the dark page: every pixel of it is opaque (its
 * own background, not the page's, is behind its dark text). Screenshots are written to the test's
 * temporary folder (and to RGE_SCREENSHOTS when it names a folder, to look at them).
 * Skipped, with the reason in the test name, when /usr/bin/chromium is absent (`.ci/run` installs it).
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { marked } from 'marked';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnVitest } from '../ci/vitest-child.ts';
import { CHROMIUM, CHROMIUM_ARGS, chromiumTitle, hasChromium } from '../helpers/chromium.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { type LoopbackServer, startLoopbackServer } from '../helpers/http-server.ts';

const SCREEN = { width: 1280, height: 800 };
const CASES = ['gd', 'gm', 'adv', 'ood'].flatMap((c) => [1, 2, 3].map((i) => `${c}-00${i}`));

/** The page's colours: GitHub's light and dark markdown themes. */
const THEMES = {
  light: { background: '#ffffff', text: '#1f2328', border: '#d0d7de' },
  dark: { background: '#0d1117', text: '#e6edf3', border: '#3d444d' },
} as const;

/** summary.md as a markdown viewer shows it: GitHub's markdown-body sizes, at most 1012 px wide. */
function page(body: string, theme: keyof typeof THEMES): string {
  const t = THEMES[theme];
  return `<!doctype html><html><head><meta charset="utf-8"><title>rge report</title><style>
body { margin: 0; background: ${t.background}; color: ${t.text};
  font: 16px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
main { box-sizing: border-box; max-width: 1012px; margin: 0 auto; padding: 32px; }
h1, h2, h3 { margin: 24px 0 16px; line-height: 1.25; font-weight: 600; }
h1 { font-size: 2em; padding-bottom: .3em; border-bottom: 1px solid ${t.border}; }
h2 { font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid ${t.border}; }
p, table, blockquote, ul { margin: 0 0 16px; }
table { border-collapse: collapse; display: block; max-width: 100%; overflow: auto; }
th, td { border: 1px solid ${t.border}; padding: 6px 13px; }
img { max-width: 100%; }
</style></head><body><main>${body}</main></body></html>`;
}

interface Box {
  top: number;
  bottom: number;
  text: string;
}

/** The answer section's parts and where the provenance starts, in page coordinates (evaluated in the page). */
const LAYOUT = `(() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { top: r.top + scrollY, bottom: r.bottom + scrollY, text: e.textContent }; };
  const h2 = [...document.querySelectorAll('h2')];
  const answer = h2.find((h) => h.textContent.startsWith('The answer'));
  const section = [];
  for (let e = answer?.nextElementSibling; e && e.tagName !== 'H2'; e = e.nextElementSibling) section.push(e);
  const tables = section.filter((e) => e.tagName === 'TABLE');
  // the first text on the page that looks like a hash (16 hex digits or more): provenance
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let hash = null;
  while (walker.nextNode()) {
    const at = walker.currentNode.textContent.search(/[0-9a-f]{16,}/);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(walker.currentNode, at);
    range.setEnd(walker.currentNode, at + 16);
    const r = range.getBoundingClientRect();
    hash = { top: r.top + scrollY, bottom: r.bottom + scrollY, text: walker.currentNode.textContent };
    break;
  }
  return {
    headings: h2.map(box),
    headline: section[0] ? box(section[0]) : null,
    ranking: tables[0] ? box(tables[0]) : null,
    pairs: tables[1] ? box(tables[1]) : null,
    rankingRows: tables[0] ? [...tables[0].querySelectorAll('tbody tr')].map((r) => [...r.cells].map((c) => c.textContent)) : [],
    pairHeader: tables[1] ? [...tables[1].querySelectorAll('th')].map((c) => c.textContent) : [],
    pairRows: tables[1] ? [...tables[1].querySelectorAll('tbody tr')].map((r) => [...r.cells].map((c) => c.textContent)) : [],
    hash,
  };
})()`;

interface Layout {
  headings: Box[];
  headline: Box | null;
  ranking: Box | null;
  pairs: Box | null;
  rankingRows: string[][];
  pairHeader: string[];
  pairRows: string[][];
  hash: Box | null;
}

/** The chart image's pixels, drawn on a canvas at its own size: how many, how many not fully opaque, how many dark. */
const CHART_PIXELS = `(async () => {
  const img = document.querySelector('img[src="gfs.svg"]');
  if (!img) return null;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let translucent = 0, dark = 0, light = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] < 255) translucent++;
    const y = 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2];
    if (d[i + 3] === 255 && y < 80) dark++;
    if (d[i + 3] === 255 && y > 230) light++;
  }
  return { width: c.width, height: c.height, pixels: d.length / 4, translucent, dark, light };
})()`;

describe('the report in a headless browser at 1280x800', () => {
  let browser: Browser | undefined;
  let server: LoopbackServer | undefined;
  let dir: string;
  let report: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-report-screen-'));
    if (!hasChromium) return;
    const outcome = await spawnVitest(['run', 'evals'], {
      RGE_CASES: CASES.join(','),
      RGE_RUNS: '2',
      RGE_RESULTS_DIR: join(dir, 'results'),
      RGE_REPORTS_DIR: join(dir, 'reports'),
      RGE_SET: JSON.stringify(await worldOverrides()),
    });
    if (outcome.code !== 0) throw new Error(`the fixture run failed:\n${outcome.out}\n${outcome.err}`);
    const [runId] = (await readdir(join(dir, 'reports'))).filter((d) => /^fixture-[0-9a-f]{12}$/.test(d));
    report = join(dir, 'reports', runId as string);
    const html = await marked.parse(readFileSync(join(report, 'summary.md'), 'utf8'));
    server = await startLoopbackServer();
    for (const theme of ['light', 'dark'] as const)
      server.route(`/${theme}.html`, (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(html, theme)),
      );
    const svg = readFileSync(join(report, 'gfs.svg'));
    server.route('/gfs.svg', (_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svg));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(theme: keyof typeof THEMES): Promise<Page> {
    const p = await (browser as Browser).newPage({ viewport: SCREEN });
    await p.goto((server as LoopbackServer).url(`/${theme}.html`));
    await p.waitForFunction('document.querySelector(\'img[src="gfs.svg"]\')?.complete === true');
    const shot = `first-screen-${theme}.png`;
    await p.screenshot({ path: join(dir, shot) });
    if (process.env.RGE_SCREENSHOTS) await copyFile(join(dir, shot), join(process.env.RGE_SCREENSHOTS, shot));
    return p;
  }

  it.skipIf(!hasChromium)(
    chromiumTitle(
      'shows the ranking, its intervals and significance in the first 800 px, the provenance below',
    ),
    async () => {
      const p = await open('light');
      try {
        const l = await p.evaluate<Layout>(LAYOUT);
        // the answer: a headline, the ranking table (both subjects, GFS with interval, P(first)), the pairs
        expect(l.headings[0]?.text).toBe('The answer: who is best, by how much, and is it real');
        expect(l.headline?.text).toMatch(
          /^(extractive|eager) ranks first, GFS \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]/,
        );
        expect(l.rankingRows.map((r) => r[1]).sort()).toEqual(['eager', 'extractive']);
        for (const r of l.rankingRows) {
          expect(r[2]).toMatch(/^\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]$/);
          expect(r[3]).toMatch(/^\d+\.\d%$/);
        }
        expect(l.pairHeader).toEqual(['difference', 'GFS', 'significant', 'p (Bonferroni)', 'MDD']);
        expect(l.pairRows).toHaveLength(1);
        expect(l.pairRows[0]?.[2]).toMatch(/^(yes|no)$/);
        expect(l.pairRows[0]?.[4]).toMatch(/^\d\.\d{3}$/);
        // all of it on the first screen
        for (const part of [l.headline, l.ranking, l.pairs])
          expect(part?.bottom).toBeLessThanOrEqual(SCREEN.height);
        // provenance below it, and below the first screen: "What was run" and the first hash shown
        const provenance = l.headings.find((h) => h.text === 'What was run');
        expect(provenance?.top).toBeGreaterThan(l.pairs?.bottom ?? Number.POSITIVE_INFINITY);
        expect(provenance?.top).toBeGreaterThan(SCREEN.height);
        expect(l.hash?.top, l.hash?.text).toBeGreaterThan(SCREEN.height);
        expect(provenance?.top).toBe(Math.max(...l.headings.map((h) => h.top)));
      } finally {
        await p.close();
      }
    },
  );

  it.skipIf(!hasChromium)(
    chromiumTitle('draws the chart on its own opaque background, so it reads on a dark page'),
    async () => {
      const p = await open('dark');
      try {
        const px = await p.evaluate<{
          width: number;
          height: number;
          pixels: number;
          translucent: number;
          dark: number;
          light: number;
        } | null>(CHART_PIXELS);
        expect(px).not.toBeNull();
        expect(px?.width).toBeGreaterThan(300);
        // not one pixel lets the dark page through
        expect(px?.translucent).toBe(0);
        // mostly light background, with dark text and lines on it
        expect(px?.light ?? 0).toBeGreaterThan((px?.pixels ?? 0) / 2);
        expect(px?.dark ?? 0).toBeGreaterThan(200);
      } finally {
        await p.close();
      }
    },
  );

  it.skipIf(!hasChromium)(chromiumTitle('writes the screenshots it took'), () => {
    for (const theme of ['light', 'dark'])
      expect(
        readFileSync(join(dir, `first-screen-${theme}.png`))
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
  });
});
