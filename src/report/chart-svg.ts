/**
 * The GFS chart beside summary.md (`gfs.svg`, linked from the GFS section): primary GFS per subject and
 * category with its interval, laid out so that no two texts overlap, readable on a light or a dark page.
 */
import type { GfsTable } from './scores.ts';
import type { HeaderData } from './sections/header.ts';

/**
 * What the chart reads of the summary: the GFS section's field (its `GfsData`, written out here since
 * that section imports the chart's alt text, and a type import back would close a circle).
 */
export type ChartReads = { gfs: GfsTable } & Pick<HeaderData, 'models' | 'categories'>;

/** The width a text takes at `size` px in a sans-serif font, overestimated (0.62 em a character). */
export const textWidth = (text: string, size: number) => text.length * size * 0.62;

/** A category name in lines that fit `width` px, broken after its hyphens ("grounded-" / "multihop"). */
function labelLines(name: string, width: number, size: number): string[] {
  const pieces = name.split(/(?<=-)/);
  const lines: string[] = [];
  for (const piece of pieces) {
    const last = lines.at(-1);
    if (last !== undefined && textWidth(last + piece, size) <= width) lines[lines.length - 1] = last + piece;
    else lines.push(piece);
  }
  return lines;
}

/** Where everything of the GFS chart goes: the plot, the category labels, the legend. */
interface ChartLayout {
  cats: string[];
  models: string[];
  font: number;
  title: string;
  /** a bar's width; a group of bars (one a model) stands over a category, groupGap apart */
  bar: number;
  groupGap: number;
  groupWidth: number;
  left: number;
  top: number;
  plotWidth: number;
  width: number;
  height: number;
  /** the y coordinate of a GFS value */
  y: (v: number) => number;
  labelTop: number;
  xTitleY: number;
  legendY: number;
  legendRows: { m: string; x: number; row: number }[];
}

function chartLayout(summary: ChartReads): ChartLayout {
  const cats = [
    ...summary.categories,
    'all',
    ...(summary.models.some((m) => summary.gfs[m]?.traced) ? ['traced'] : []),
  ];
  const models = summary.models;
  const font = 11;
  const title = 'GFS (primary weighting), mean with BCa 95% interval';
  const bar = 26;
  const groupGap = 18;
  // a group is as wide as its bars or its label's widest piece
  const groupWidth = Math.max(
    models.length * bar,
    ...cats.flatMap((c) => c.split(/(?<=-)/).map((p) => textWidth(p, font) + 4)),
  );
  const left = 64;
  const plotWidth = cats.length * (groupWidth + groupGap);
  const legend = models.map((m) => ({ m, w: 16 + textWidth(m, font) + 14 }));
  const width = Math.ceil(
    Math.max(left + plotWidth + 10, textWidth(title, 13) + 20, ...legend.map((l) => l.w + 20)),
  );
  const maxLines = Math.max(...cats.map((c) => labelLines(c, groupWidth, font).length));
  const top = 44;
  const plotHeight = 180;
  const y = (v: number) => top + plotHeight - v * plotHeight;
  const labelTop = y(0) + 14;
  const xTitleY = labelTop + maxLines * 13 + 6;
  const { rows: legendRows, lastRow } = legendLayout(legend, left, width);
  const legendY = xTitleY + 20;
  const height = legendY + (lastRow + 1) * 16 + 4;
  return {
    cats,
    models,
    font,
    title,
    bar,
    groupGap,
    groupWidth,
    left,
    top,
    plotWidth,
    width,
    height,
    y,
    labelTop,
    xTitleY,
    legendY,
    legendRows,
  };
}

/** The legend's entries from `left`, wrapped to the chart's width. */
function legendLayout(
  legend: readonly { m: string; w: number }[],
  left: number,
  width: number,
): { rows: ChartLayout['legendRows']; lastRow: number } {
  const rows: ChartLayout['legendRows'] = [];
  let lx = left;
  let row = 0;
  for (const l of legend) {
    if (lx + l.w > width - 10 && lx > left) {
      row++;
      lx = left;
    }
    rows.push({ m: l.m, x: lx, row });
    lx += l.w;
  }
  return { rows, lastRow: row };
}

/**
 * The chart draws its own opaque background, so it reads the same on a light or a dark page: dark text
 * and lines on white, and bar colours (Okabe-Ito's, darkened where needed) each at least 3:1 against the
 * background (WCAG 2's contrast for graphics; the text is above 4.5:1). A border sets it off on a
 * white page.
 */
/** What the chart shows, in words: its `<title>` and the report's alt text for it. */
export const CHART_ALT = 'GFS per model and category';
export const CHART_BACKGROUND = '#ffffff';
export const CHART_TEXT = '#1a1a1a';
export const CHART_GRID = '#c8c8c8';
export const CHART_COLOURS = ['#0072b2', '#d55e00', '#007a5e', '#b0467f', '#6a3d9a', '#6b6b6b'];

/** A category's group: each model's bar with its interval and mean, then the label under the group. */
function categoryGroup(summary: ChartReads, l: ChartLayout, ci: number, c: string): string[] {
  const { bar, y } = l;
  const parts: string[] = [];
  const g = l.left + l.groupGap / 2 + ci * (l.groupWidth + l.groupGap);
  const bars = g + (l.groupWidth - l.models.length * bar) / 2;
  for (const [i, m] of l.models.entries()) {
    const iv = summary.gfs[m]?.[c]?.primary;
    const x = bars + i * bar + 2;
    if (!iv) continue;
    parts.push(
      `<rect x="${x}" y="${y(iv.estimate)}" width="${bar - 4}" height="${y(0) - y(iv.estimate)}" fill="${CHART_COLOURS[i % CHART_COLOURS.length]}"/>`,
      `<line x1="${x + (bar - 4) / 2}" y1="${y(iv.low)}" x2="${x + (bar - 4) / 2}" y2="${y(iv.high)}" stroke="${CHART_TEXT}"/>`,
      `<text x="${x + (bar - 4) / 2}" y="${Math.max(l.top - 2, y(iv.high) - 3)}" font-size="8" text-anchor="middle">${iv.estimate.toFixed(2)}</text>`,
    );
  }
  for (const [li, line] of labelLines(c, l.groupWidth, l.font).entries())
    parts.push(
      `<text x="${g + l.groupWidth / 2}" y="${l.labelTop + li * 13}" text-anchor="middle">${line}</text>`,
    );
  return parts;
}

/**
 * A bar chart of primary GFS per model and category with its 95 % interval as an error bar and the
 * mean above each bar; category labels centred under their group (broken at hyphens to fit), axis
 * titles, and a legend that wraps. Wide enough for its title and every label: no two texts overlap.
 */
export function gfsChartSvg(summary: ChartReads): string {
  const l = chartLayout(summary);
  const { left, plotWidth, y } = l;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height}" font-family="sans-serif" font-size="${l.font}" fill="${CHART_TEXT}">`,
    // its accessible name (a screen reader's, and biome's lint/a11y/noSvgWithoutTitle): the report's alt text
    `<title>${CHART_ALT}</title>`,
    `<rect class="background" x="0" y="0" width="${l.width}" height="${l.height}" fill="${CHART_BACKGROUND}" fill-opacity="1" stroke="${CHART_GRID}"/>`,
    `<text x="10" y="16" font-size="13">${l.title}</text>`,
    `<text x="10" y="31">GFS (0 to 1)</text>`,
  ];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<text x="${left - 8}" y="${y(t) + 4}" text-anchor="end">${t.toFixed(2)}</text>`);
    parts.push(
      `<line x1="${left - 4}" y1="${y(t)}" x2="${left + plotWidth}" y2="${y(t)}" stroke="${CHART_GRID}"/>`,
    );
  }
  parts.push(
    `<line x1="${left - 4}" y1="${y(0)}" x2="${left + plotWidth}" y2="${y(0)}" stroke="${CHART_TEXT}"/>`,
  );
  for (const [ci, c] of l.cats.entries()) parts.push(...categoryGroup(summary, l, ci, c));
  parts.push(
    `<text x="${left + plotWidth / 2}" y="${l.xTitleY}" text-anchor="middle">question category</text>`,
  );
  for (const [i, entry] of l.legendRows.entries()) {
    const ly = l.legendY + entry.row * 16;
    parts.push(
      `<rect x="${entry.x}" y="${ly - 9}" width="10" height="10" fill="${CHART_COLOURS[i % CHART_COLOURS.length]}"/>`,
      `<text x="${entry.x + 14}" y="${ly}">${entry.m}</text>`,
    );
  }
  parts.push('</svg>');
  // coordinates to a tenth of a pixel (no 549.0999999999999)
  return `${parts.join('\n').replace(/="(-?\d+\.\d{2,})"/g, (_, n: string) => `="${Number(Number(n).toFixed(1))}"`)}\n`;
}
