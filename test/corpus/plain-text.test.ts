import { describe, expect, it } from 'vitest';
import type { PdfTextItem } from '../../src/corpus/layout.ts';
import { plainPageText } from '../../src/corpus/plain-text.ts';

/** A page 800 units tall at scale 1: pdf.js's viewport flips y (page y 790 is viewport y 10). */
const VIEWPORT = [1, 0, 0, -1, 0, 800];

/** A run at page coordinates (x, y), `width` wide, 10 units tall. */
const run = (str: string, x: number, y: number, width = str.length * 5, hasEOL = false): PdfTextItem => ({
  str,
  transform: [10, 0, 0, 10, x, y],
  width,
  height: 10,
  hasEOL,
});

describe('plainPageText', () => {
  it('joins runs of one line, with a tab where the gap is wider than a cell gap', () => {
    const items = [run('Net', 10, 700, 15), run(' sales', 25, 700, 30), run('34,229', 200, 700)];
    expect(plainPageText(items, VIEWPORT)).toBe('Net sales\t34,229');
  });

  it('starts a new line when the baseline moves by more than the line height', () => {
    const items = [run('first', 10, 700), run('second', 10, 680)];
    expect(plainPageText(items, VIEWPORT)).toBe('first\nsecond');
  });

  it('no new line for a baseline move within the tallest run of the line (a superscript)', () => {
    // moved by 8 units (over the 4.6 threshold) but not past the 10-unit run's height plus one
    const items = [run('Revenue', 10, 700, 35), run('1', 45, 708, 5)];
    expect(plainPageText(items, VIEWPORT)).toBe('Revenue1');
  });

  it('one line break for a run that ends its line, none added before a run that brings its own', () => {
    const items = [run('end of line', 10, 700, 55, true), run('next', 10, 680)];
    expect(plainPageText(items, VIEWPORT)).toBe('end of line\nnext');
    const own = [run('a', 10, 700), run('\nb', 10, 680)];
    expect(plainPageText(own, VIEWPORT)).toBe('a\nb');
  });

  it('places runs through the viewport transform (a page rotated by 90 degrees)', () => {
    // rotated: viewport x = page y, viewport y = page x; runs at one page x share a viewport line
    const rotated = [0, 1, 1, 0, 0, 0];
    const items = [run('left', 100, 10, 20), run('right', 100, 200, 25), run('below', 130, 10)];
    expect(plainPageText(items, rotated)).toBe('left\tright\nbelow');
  });

  it('does not change the items it reads', () => {
    const items = [run('Net sales', 10, 700, 45), run('34,229', 200, 700)];
    const before = structuredClone(items);
    plainPageText(items, VIEWPORT);
    expect(items).toEqual(before);
  });

  it('an empty page is empty text', () => {
    expect(plainPageText([], VIEWPORT)).toBe('');
  });
});
