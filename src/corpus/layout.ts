/**
 * Layout reconstruction for table pages. A PDF's text layer is a list of positioned runs in the order
 * the producer drew them; financial statements are often drawn column by column, so reading the runs in
 * stream order puts a row's label and its numbers on different lines. Here the runs are put back where
 * they sit on the page: grouped into visual lines by baseline, ordered left to right, and joined with a
 * space, or with ` | ` where the horizontal gap is wide enough to be a column gap. Pure functions only.
 */

/** The fields of a pdf.js text item that the layout needs (`TextItem` in pdfjs-dist). */
export interface PdfTextItem {
  str: string;
  /** [a, b, c, d, e, f]: text space to page space; (e, f) is the start of the baseline */
  transform: number[];
  width: number;
  height: number;
  hasEOL?: boolean;
  /** pdf.js's load id of the run's font ("g_d0_f8"), not the font's PDF name */
  fontName?: string;
}

/** A text run placed on the page in viewport space: x to the right, y downwards, units of 1/72 inch. */
export interface PlacedRun {
  text: string;
  x: number;
  /** baseline */
  y: number;
  width: number;
  fontSize: number;
}

/** A stretch of a line between column gaps, with its horizontal extent. */
export interface LayoutCell {
  text: string;
  x0: number;
  x1: number;
}

export interface LayoutLine {
  y: number;
  /** the line's text split at column gaps, left to right; a line of prose has one cell */
  cells: LayoutCell[];
  /** font size of the line's first run */
  fontSize: number;
}

export interface PageLayout {
  lines: LayoutLine[];
  /** runs that are not upright (margin labels, rotated headers), in stream order */
  rotated: string[];
}

/** A gap wider than this many font sizes separates two columns. */
export const COLUMN_GAP_EM = 1.2;
/** A gap wider than this many font sizes separates two words (narrower gaps join fragments of a word). */
export const WORD_GAP_EM = 0.15;
/** Two baselines closer than this many font sizes (of the larger type) are the same visual line (super/subscripts). */
export const BASELINE_TOLERANCE_EM = 0.45;

export const COLUMN_SEPARATOR = ' | ';

type Matrix = readonly [number, number, number, number, number, number];

function multiply(m: Matrix, t: readonly number[]): Matrix {
  const [t0 = 1, t1 = 0, t2 = 0, t3 = 1, t4 = 0, t5 = 0] = t;
  return [
    m[0] * t0 + m[2] * t1,
    m[1] * t0 + m[3] * t1,
    m[0] * t2 + m[2] * t3,
    m[1] * t2 + m[3] * t3,
    m[0] * t4 + m[2] * t5 + m[4],
    m[1] * t4 + m[3] * t5 + m[5],
  ];
}

const DIRECTIONS: readonly (readonly [number, number])[] = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
];

/** Whitespace that `replace(/\s+/g, ' ')` would change: a run of two, or one that is not a space. */
const UNUSUAL_SPACE = /\s\s|(?! )\s/;

/**
 * `text.replace(/\s+/g, ' ')`, returning `text` itself when that changes nothing (most runs have no
 * whitespace but single spaces), so that laying out a page does not copy every run's string.
 */
export function collapseSpaces(text: string): string {
  return UNUSUAL_SPACE.test(text) ? text.replace(/\s+/g, ' ') : text;
}

/**
 * Places pdf.js text items on the page in the frame of the page's dominant reading direction.
 * `viewportTransform` is the page viewport's transform at scale 1 (crop box and /Rotate). Statement
 * pages are often typeset landscape on a portrait page (the text runs bottom to top); the direction
 * that carries most characters is taken as "upright" and coordinates are rotated so that x runs along
 * the text and y runs down the lines. Runs in any other direction are returned apart, in stream order.
 */
export function placeRuns(
  items: readonly PdfTextItem[],
  viewportTransform: readonly number[],
): { upright: PlacedRun[]; rotated: string[] } {
  const [v0 = 1, v1 = 0, v2 = 0, v3 = -1, v4 = 0, v5 = 0] = viewportTransform;
  const vt: Matrix = [v0, v1, v2, v3, v4, v5];
  const placed: { text: string; m: Matrix; direction: number; width: number; height: number }[] = [];
  const weight = [0, 0, 0, 0];
  for (const item of items) {
    const text = collapseSpaces(item.str);
    if (text.trim() === '') continue;
    const m = multiply(vt, item.transform);
    const scale = Math.hypot(m[0], m[1]);
    const quarter = Math.round(Math.atan2(m[1], m[0]) / (Math.PI / 2));
    const direction = ((quarter % 4) + 4) % 4;
    const [ux, uy] = DIRECTIONS[direction] as readonly [number, number];
    // skewed or obliquely rotated text is not laid out
    const aligned = scale > 0 && (m[0] * ux + m[1] * uy) / scale > 0.998;
    placed.push({ text, m, direction: aligned ? direction : -1, width: item.width, height: item.height });
    if (aligned) weight[direction] = (weight[direction] ?? 0) + text.length;
  }
  let dominant = 0;
  for (let d = 1; d < 4; d++) if ((weight[d] ?? 0) > (weight[dominant] ?? 0)) dominant = d;
  const [ux, uy] = DIRECTIONS[dominant] as readonly [number, number];
  const upright: PlacedRun[] = [];
  const rotated: string[] = [];
  for (const { text, m, direction, width, height } of placed) {
    if (direction !== dominant) {
      rotated.push(text.trim());
      continue;
    }
    const fontSize = Math.hypot(m[2], m[3]) || height || 10;
    // along the text: u; down the lines: u turned a quarter clockwise (viewport y points down)
    upright.push({ text, x: m[4] * ux + m[5] * uy, y: -m[4] * uy + m[5] * ux, width, fontSize });
  }
  return { upright, rotated };
}

/** Groups runs into visual lines by baseline, orders each line left to right and splits it at column gaps. */
export function buildLines(runs: readonly PlacedRun[]): LayoutLine[] {
  const sorted = [...runs].sort((a, b) => a.y - b.y || a.x - b.x);
  const groups: { y: number; fontSize: number; runs: PlacedRun[] }[] = [];
  for (const run of sorted) {
    const last = groups[groups.length - 1];
    if (last && run.y - last.y <= BASELINE_TOLERANCE_EM * Math.max(run.fontSize, last.fontSize)) {
      last.runs.push(run);
      // The line's baseline is that of its largest type, not of a superscript that happens to come first.
      if (run.fontSize > last.fontSize) {
        last.y = run.y;
        last.fontSize = run.fontSize;
      }
    } else {
      groups.push({ y: run.y, fontSize: run.fontSize, runs: [run] });
    }
  }
  return groups.map((g) => ({
    y: g.y,
    fontSize: g.fontSize,
    cells: joinCells(g.runs.sort((a, b) => a.x - b.x || a.y - b.y)),
  }));
}

const CURRENCY_ONLY = /^[$₹€£¥]$/;

function joinCells(runs: readonly PlacedRun[]): LayoutCell[] {
  const cells: LayoutCell[] = [];
  let cell: LayoutCell | undefined;
  let prev: PlacedRun | undefined;
  for (const run of runs) {
    const end = run.x + run.width;
    if (cell === undefined || prev === undefined) {
      cell = { text: run.text, x0: run.x, x1: end };
      prev = run;
      continue;
    }
    const gap = run.x - (prev.x + prev.width);
    const em = Math.max(prev.fontSize, run.fontSize);
    if (CURRENCY_ONLY.test(cell.text.trim())) {
      // A currency sign set apart from its amount ("$      34,229") belongs to the amount.
      cell.text = `${cell.text.trim()}${run.text.trim()}`;
    } else if (gap > COLUMN_GAP_EM * em || (CURRENCY_ONLY.test(run.text.trim()) && gap > WORD_GAP_EM * em)) {
      cells.push(cell);
      cell = { text: run.text, x0: run.x, x1: end };
    } else if (gap > WORD_GAP_EM * em && !cell.text.endsWith(' ') && !run.text.startsWith(' ')) {
      cell.text += ` ${run.text}`;
    } else {
      cell.text += run.text;
    }
    cell.x1 = Math.max(cell.x1, end);
    prev = run;
  }
  if (cell) cells.push(cell);
  return cells.map((c) => ({ ...c, text: c.text.trim() })).filter((c) => c.text !== '');
}

const LETTER = /^\p{L}$/u;
/** Whether each non-ASCII code point met so far is a letter (category L). */
const isLetterCache = new Map<number, boolean>();

function isLetterCodePoint(cp: number): boolean {
  if (cp < 0x80) return (cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a;
  let known = isLetterCache.get(cp);
  if (known === undefined) {
    known = LETTER.test(String.fromCodePoint(cp));
    isLetterCache.set(cp, known);
  }
  return known;
}

/**
 * The letters (code points of category L) in `text`, counted in one pass without building a string or
 * an array (`text.match(/\p{L}/gu)` and `text.replace(/\P{L}+/gu, '')` give the same count, but their
 * garbage was a tenth of what a synthetic page's extraction allocated). A lone surrogate is not a letter.
 */
export function letters(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = (cp - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        i++;
      }
    }
    if (isLetterCodePoint(cp)) n++;
  }
  return n;
}

/** The ASCII digits in `text` (what `\d` matches). */
export function digits(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) n++;
  }
  return n;
}

/** Words rather than figures: a stretch of a text column, a heading, a label. */
function isWords(cell: LayoutCell): boolean {
  const l = letters(cell.text);
  return l >= 4 && l >= digits(cell.text);
}

/** A line that runs across two columns of prose: two cells, each a good stretch of words. */
function isTwoColumnProse(line: LayoutLine): boolean {
  return line.cells.length === 2 && line.cells.every((c) => isWords(c) && letters(c.text) >= 20);
}

/** Which side of a gutter whose right column starts at `split` a line's cells fall on, if they all fit. */
function sides(line: LayoutLine, split: number): { left?: string; right?: string } | null {
  const em = line.fontSize;
  const out: { left?: string; right?: string } = {};
  for (const c of line.cells) {
    if (!isWords(c)) return null;
    if (c.x0 >= split - em) {
      if (out.right !== undefined) return null;
      out.right = c.text;
    } else if (c.x1 <= split - 0.5 * em) {
      if (out.left !== undefined || out.right !== undefined) return null;
      out.left = c.text;
    } else {
      return null;
    }
  }
  return out;
}

/** Two-column prose lines a region needs before it is read column by column. */
export const MIN_PROSE_COLUMN_LINES = 3;

/**
 * Pages that mix a table with two columns of running text would have the columns interleaved line by
 * line ("left sentence | right sentence"). A region of consecutive lines whose cells all sit on either
 * side of one gutter, with at least MIN_PROSE_COLUMN_LINES lines of prose on both sides, is re-read
 * column by column: its left column's lines, then its right column's, each as a one-cell line.
 */
export function readProseColumns(lines: readonly LayoutLine[]): LayoutLine[] {
  const out: LayoutLine[] = [];
  let i = 0;
  while (i < lines.length) {
    const seed = lines[i] as LayoutLine;
    if (!isTwoColumnProse(seed)) {
      out.push(seed);
      i++;
      continue;
    }
    const split = (seed.cells[1] as LayoutCell).x0;
    let start = i;
    while (
      start - 1 >= 0 &&
      out.length > 0 &&
      out[out.length - 1] === lines[start - 1] &&
      sides(lines[start - 1] as LayoutLine, split)
    ) {
      start--;
      out.pop();
    }
    let end = i + 1;
    while (end < lines.length && sides(lines[end] as LayoutLine, split)) end++;
    const region = lines.slice(start, end);
    if (region.filter(isTwoColumnProse).length < MIN_PROSE_COLUMN_LINES) {
      out.push(...region);
      i = end;
      continue;
    }
    const left: LayoutLine[] = [];
    const right: LayoutLine[] = [];
    for (const line of region) {
      const s = sides(line, split) as { left?: string; right?: string };
      if (s.left !== undefined)
        left.push({ y: line.y, fontSize: line.fontSize, cells: [line.cells[0] as LayoutCell] });
      if (s.right !== undefined) {
        right.push({
          y: line.y,
          fontSize: line.fontSize,
          cells: [line.cells[line.cells.length - 1] as LayoutCell],
        });
      }
    }
    out.push(...left, ...right);
    i = end;
  }
  return out;
}

/**
 * A row label too long for its column wraps, and the amounts are set beside the second line or
 * between the two ("Acquisition through business combination (refer Note" / "13,131 | 4,398 | ..."
 * / "49)"). When a line of words only is followed, within a line and a half, by a row of amounts with
 * no label of its own and whose first amount starts right of where the words end, the words are that
 * row's label; so is a last line of words half a line below the amounts (amounts centred between
 * the label's two lines), e.g. "Acquisition through business combination (refer Note 49) | 13,131 | ...".
 */
export function attachWrappedLabels(lines: readonly LayoutLine[]): LayoutLine[] {
  const out: LayoutLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const label = lines[i] as LayoutLine;
    const row = lines[i + 1];
    const words = label.cells[0];
    const first = row?.cells[0];
    if (
      row !== undefined &&
      words !== undefined &&
      first !== undefined &&
      label.cells.length === 1 &&
      // the geometry first: it turns away a line of prose (the next starts left of its end) before
      // any of its text is read
      first.x0 > words.x1 &&
      row.y - label.y <= 1.6 * label.fontSize &&
      row.cells.length >= 2 &&
      isWords(words) &&
      numericTokenCount(words.text) === 0 &&
      !isWords(first) &&
      row.cells.filter((c) => numericTokenCount(c.text) > 0).length >= 2
    ) {
      let labelCell = words;
      i++;
      // The label's last line, half a line below the amounts when they were centred between its lines.
      const tail = lines[i + 1];
      const tailCell = tail?.cells[0];
      if (
        tail !== undefined &&
        tailCell !== undefined &&
        tail.cells.length === 1 &&
        tail.y - row.y <= 0.9 * row.fontSize &&
        tailCell.x0 >= words.x0 - label.fontSize &&
        tailCell.x1 < first.x0
      ) {
        labelCell = {
          text: `${words.text} ${tailCell.text}`,
          x0: words.x0,
          x1: Math.max(words.x1, tailCell.x1),
        };
        i++;
      }
      out.push({ y: row.y, fontSize: row.fontSize, cells: [labelCell, ...row.cells] });
      continue;
    }
    out.push(label);
  }
  return out;
}

export function layoutPage(items: readonly PdfTextItem[], viewportTransform: readonly number[]): PageLayout {
  const { upright, rotated } = placeRuns(items, viewportTransform);
  return { lines: attachWrappedLabels(readProseColumns(buildLines(upright))), rotated };
}

/** The table path's text: one line per visual line, cells joined with ` | `, rotated runs at the end. */
export function renderLayout(layout: PageLayout): string {
  const lines = layout.lines.map((l) => l.cells.map((c) => c.text).join(COLUMN_SEPARATOR));
  return [...lines, ...layout.rotated].join('\n');
}

/** An amount as statements print it: 34,229 / (2,724) / 1,21,219 / 12.5% / $5,777 / -0.3. */
const NUMERIC_TOKEN = /^\(?[-–−]?[$₹€£¥]?\d[\d,]*(?:\.\d+)?\)?%?$/;
/** A cell that stands for nil in a statement column. */
const NIL_CELL = /^[-–—−]$/;

export function numericTokenCount(cell: string): number {
  if (NIL_CELL.test(cell.trim())) return 1;
  // every amount has a digit: a cell of words is not split into tokens
  if (digits(cell) === 0) return 0;
  let n = 0;
  for (const token of cell.split(/\s+/)) if (NUMERIC_TOKEN.test(token)) n++;
  return n;
}

export interface TableSignal {
  lines: number;
  /** lines with a column gap and at least two amounts: the rows of a table */
  numericRows: number;
}

export function tableSignal(layout: PageLayout): TableSignal {
  let numericRows = 0;
  for (const line of layout.lines) {
    if (line.cells.length < 2) continue;
    let amounts = 0;
    for (const cell of line.cells) amounts += numericTokenCount(cell.text);
    if (amounts >= 2) numericRows++;
  }
  return { lines: layout.lines.length, numericRows };
}

/** A page needs at least this many table rows ... */
export const MIN_TABLE_ROWS = 3;
/** ... making up at least this share of its visual lines, to be read through the table path in 'auto'. */
export const MIN_TABLE_ROW_SHARE = 0.2;

/**
 * The 'auto' rule: a page is table-heavy when at least MIN_TABLE_ROWS of its visual lines, and at least
 * MIN_TABLE_ROW_SHARE of them, are table rows (a column gap and two or more amounts on the line).
 * Prose rarely has a column gap inside a line, so running text with many years and figures stays plain.
 */
export function isTableHeavy(signal: TableSignal): boolean {
  return signal.numericRows >= MIN_TABLE_ROWS && signal.numericRows >= MIN_TABLE_ROW_SHARE * signal.lines;
}

/** A character every amount holds: a digit, or the dash of a nil cell. */
const AMOUNT_CHARACTER = /[\d\-–—−]/;

/**
 * Whether a page's text items could make a table-heavy layout (`isTableHeavy`), decided before the
 * layout is built: a table row holds at least two amounts, every amount holds a digit or is a nil
 * dash, and a text item belongs to one visual line; so MIN_TABLE_ROWS rows need at least
 * MIN_TABLE_ROWS items holding such a character. A page with fewer (prose without figures, a cover,
 * a blank page) can skip the layout in 'auto' and keep its plain text, as it would have anyway.
 */
export function mayBeTableHeavy(items: readonly PdfTextItem[]): boolean {
  let holding = 0;
  for (const item of items) {
    if (AMOUNT_CHARACTER.test(item.str) && ++holding >= MIN_TABLE_ROWS) return true;
  }
  return false;
}
