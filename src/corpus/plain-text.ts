/**
 * A page's plain text from its pdf.js text items: the text layer in the order the producer drew it,
 * exactly as pdf-parse 2.4.5's `getText` gives a page with its default parameters (a line threshold of
 * 4.6 units, a cell threshold of 7, tab as the cell separator, line breaks enforced), so that the text
 * rge keeps for a page did not change when extraction stopped going through pdf-parse
 * (test/corpus/pdf.test.ts compares the two). Pure: the items are not modified.
 *
 * The rules, item by item, with (x, y) the start of the item's baseline in viewport space:
 *  - a new line is started when the baseline moved by more than the line threshold and by more than
 *    the tallest item since the last line break (plus one unit), unless the text so far already ends
 *    with a line break or the item brings its own;
 *  - on the same baseline (within the threshold), an item that starts more than the cell threshold
 *    away from where the previous one ended is preceded by a tab;
 *  - an item marked as ending its line (`hasEOL`) is followed by a line break.
 */
import type { PdfTextItem } from './layout.ts';

/** Baselines further apart than this (viewport units) are on different lines. */
const LINE_THRESHOLD = 4.6;
/** A horizontal gap wider than this between two items of one line separates two cells. */
const CELL_THRESHOLD = 7;
const CELL_SEPARATOR = '\t';

/**
 * The plain text of a page whose text items are `items`, in stream order; `viewport` is the page's
 * viewport transform at scale 1 (`page.getViewport({ scale: 1 }).transform`).
 */
export function plainPageText(items: readonly PdfTextItem[], viewport: readonly number[]): string {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = viewport;
  const parts: string[] = [];
  let lastX: number | undefined;
  let lastY: number | undefined;
  // the tallest item since the last line break
  let lineHeight = 0;
  for (const item of items) {
    const px = item.transform[4] as number;
    const py = item.transform[5] as number;
    // pdf.js's Util.applyTransform, term for term, so that the floating-point results are the same
    const x = px * a + py * c + e;
    const y = px * b + py * d + f;
    let text = item.str;
    if (lastY !== undefined) {
      const dy = Math.abs(lastY - y);
      if (dy > LINE_THRESHOLD) {
        const brings = text.startsWith('\n') || (text.trim() === '' && Boolean(item.hasEOL));
        const previous = parts[parts.length - 1] as string;
        if (!brings && !previous.endsWith('\n') && dy - 1 > lineHeight) {
          parts.push('\n');
          lineHeight = 0;
        }
      } else if (dy < LINE_THRESHOLD && lastX !== undefined && Math.abs(lastX - x) > CELL_THRESHOLD) {
        text = CELL_SEPARATOR + text;
      }
    }
    parts.push(text);
    lastX = x + item.width;
    lastY = y;
    lineHeight = Math.max(lineHeight, item.height);
    if (item.hasEOL) parts.push('\n');
    if (item.hasEOL || text.endsWith('\n')) lineHeight = 0;
  }
  return parts.join('');
}
