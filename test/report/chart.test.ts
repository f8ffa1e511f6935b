/**
 * gfs.svg is legible at every size a run makes: a quick run (one category, two subjects: the narrowest
 * chart) and a full run (four categories, two or three subjects). No two text labels' boxes overlap,
 * every text lies inside the picture, both axes have titles, and each bar carries its mean.
 */
import { describe, expect, it } from 'vitest';
import { CHART_ALT, CHART_BACKGROUND, CHART_COLOURS, gfsChartSvg } from '../../src/report/chart-svg.ts';
import { summarise } from '../../src/report/summary.ts';
import type { CaseRowView } from '../../src/report/views.ts';

const CATEGORIES = ['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain'];

function rows(subjects: readonly string[], categories: readonly string[]): CaseRowView[] {
  const out: CaseRowView[] = [];
  for (const [si, s] of subjects.entries())
    for (let q = 0; q < 8; q++)
      for (let run = 0; run < 2; run++) {
        const score = (q + si + run) % 3;
        out.push({
          question_id: `q-${q}`,
          category: categories[q % categories.length] as string,
          subject_id: s,
          model: s,
          run_index: run,
          subject_prompt_hash: 'sp',
          judge_prompt_hash: 'jp',
          latency_ms: 10,
          cost_usd: 0,
          verdicts: [],
          scores: {
            correctness: score,
            grounding: score,
            calibration: score,
            gfsPrimary: score / 2,
            gfsEqual: score / 2,
            unscored: false,
            contested: false,
            contestedDimensions: [],
          },
          checks: {},
        });
      }
  return out;
}

interface Box {
  text: string;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Each <text>'s box: its width at 0.62 em a character (a little wider than the chart assumes). */
function textBoxes(svg: string): { boxes: Box[]; width: number; height: number } {
  const width = Number(/<svg[^>]* width="(\d+)"/.exec(svg)?.[1]);
  const height = Number(/<svg[^>]* height="(\d+)"/.exec(svg)?.[1]);
  const base = Number(/<svg[^>]* font-size="(\d+)"/.exec(svg)?.[1]);
  const boxes = [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)].map(([, attrs = '', text = '']) => {
    const attr = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(attrs)?.[1];
    const size = Number(attr('font-size') ?? base);
    const x = Number(attr('x'));
    const y = Number(attr('y'));
    const w = text.length * size * 0.62;
    const anchor = attr('text-anchor') ?? 'start';
    const x0 = anchor === 'middle' ? x - w / 2 : anchor === 'end' ? x - w : x;
    return { text, x0, x1: x0 + w, y0: y - size, y1: y };
  });
  return { boxes, width, height };
}

const overlap = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

describe('gfs.svg', () => {
  const run = { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' };
  const cases = {
    'a quick run (one category, two subjects)': rows(['extractive', 'eager'], ['grounded-direct']),
    'the fixture run (four categories, two subjects)': rows(['extractive', 'eager'], CATEGORIES),
    'the published run (four categories, three subjects)': rows(['claude', 'gpt', 'gemini'], CATEGORIES),
  };

  for (const [name, r] of Object.entries(cases))
    it(`has no overlapping labels, axis titles and a mean on each bar: ${name}`, () => {
      const summary = summarise(r, { seed: 's', resamples: 100, run });
      const svg = gfsChartSvg(summary);
      const { boxes, width, height } = textBoxes(svg);
      for (const [i, a] of boxes.entries())
        for (const b of boxes.slice(i + 1))
          expect(overlap(a, b), `"${a.text}" and "${b.text}" overlap`).toBe(false);
      for (const b of boxes) {
        expect(b.x0 >= 0 && b.x1 <= width, `"${b.text}" leaves the picture`).toBe(true);
        expect(b.y0 >= 0 && b.y1 <= height, `"${b.text}" leaves the picture`).toBe(true);
      }
      const texts = boxes.map((b) => b.text);
      expect(texts).toContain('GFS (0 to 1)');
      expect(texts).toContain('question category');
      const bars = (svg.match(/<rect [^>]*fill="#[0-9a-f]{6}"\/>/g) ?? []).length - summary.models.length;
      expect(bars).toBe(summary.models.length * (summary.categories.length + 1));
      // each bar's mean, printed above it
      expect((svg.match(/<text [^>]*font-size="8"[^>]*>\d\.\d\d<\/text>/g) ?? []).length).toBe(bars);
      // every category is named, whole or broken at its hyphens
      for (const c of [...summary.categories, 'all']) expect(texts.join('')).toContain(c);
    });

  it('is named by a <title>, first (what a screen reader says, and what lint/a11y/noSvgWithoutTitle asks)', () => {
    for (const r of Object.values(cases)) {
      const svg = gfsChartSvg(summarise(r, { seed: 's', resamples: 100, run }));
      expect(svg).toMatch(/^<svg [^>]*>\n<title>GFS per model and category<\/title>\n/);
      expect(svg.match(/<title>/g)).toHaveLength(1);
    }
    expect(CHART_ALT).toBe('GFS per model and category');
  });

  it('paints its own opaque background, so it reads on a dark page as on a light one', () => {
    const svg = gfsChartSvg(
      summarise(cases['the fixture run (four categories, two subjects)'], { seed: 's', resamples: 100, run }),
    );
    const width = /<svg[^>]* width="(\d+)"/.exec(svg)?.[1];
    const height = /<svg[^>]* height="(\d+)"/.exec(svg)?.[1];
    // the first thing drawn (after its <title>, which is not drawn): a rect over the whole picture, opaque
    const first = /<svg[^>]*>\n<title>[^<]*<\/title>\n(<[^>]*>)/.exec(svg)?.[1] ?? '';
    const attr = (tag: string, name: string) => new RegExp(` ${name}="([^"]+)"`).exec(tag)?.[1];
    expect(first).toMatch(/^<rect /);
    expect([attr(first, 'x'), attr(first, 'y'), attr(first, 'width'), attr(first, 'height')]).toEqual([
      '0',
      '0',
      width,
      height,
    ]);
    const background = attr(first, 'fill') ?? 'none';
    expect(background).toBe(CHART_BACKGROUND);
    expect(Number(attr(first, 'fill-opacity') ?? 1)).toBe(1);
    // text inherits the root's fill: dark on the background, 4.5:1 at least (WCAG AA for text)
    const rootFill = attr(/<svg[^>]*>/.exec(svg)?.[0] ?? '', 'fill');
    expect(rootFill, 'the text colour is set, not left to the page').toBeDefined();
    expect(contrast(rootFill ?? '', background)).toBeGreaterThanOrEqual(4.5);
    for (const t of svg.match(/<text [^>]*>/g) ?? []) expect(attr(t, 'fill'), t).toBeUndefined();
    // bars, legend keys and error bars: 3:1 at least against the background (WCAG for graphics)
    const colours = new Set([
      ...[...svg.matchAll(/<rect (?!class="background")[^>]* fill="(#[0-9a-f]{6})"/g)].map(
        (m) => m[1] as string,
      ),
      ...[...svg.matchAll(/<line [^>]*y1="([\d.]+)"[^>]*y2="([\d.]+)"[^>]* stroke="(#[0-9a-f]{6})"/g)]
        .filter((m) => m[1] !== m[2])
        .map((m) => m[3] as string),
    ]);
    expect(colours.size).toBeGreaterThanOrEqual(3);
    // and every subject's colour, for runs with more subjects than this one
    for (const c of CHART_COLOURS) colours.add(c);
    for (const c of colours) expect(contrast(c, background), c).toBeGreaterThanOrEqual(3);
  });
});

/** WCAG 2's contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
