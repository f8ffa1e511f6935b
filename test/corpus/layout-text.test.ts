import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { collapseSpaces, digits, letters, numericTokenCount } from '../../src/corpus/layout.ts';

function randomText(rng: () => number, alphabet: readonly string[], maxLength: number): string {
  let s = '';
  const len = Math.floor(rng() * maxLength);
  for (let i = 0; i < len; i++) s += alphabet[Math.floor(rng() * alphabet.length)];
  return s;
}

describe('counting in a layout cell without building strings', () => {
  it('count as matching every letter and every digit does, astral letters and lone surrogates included', () => {
    const rng = seedrandom('rge-letters-v1');
    const alphabet = [
      'a',
      'Z',
      '7',
      ' ',
      '₹',
      'é',
      'ß',
      '中',
      '𝐀',
      '𐐷',
      '\ud800',
      '\udc00',
      '٣',
      ',',
      '-',
      'Ⅻ',
    ];
    for (let n = 0; n < 2000; n++) {
      const s = randomText(rng, alphabet, 30);
      expect(letters(s)).toBe((s.match(/\p{L}/gu) ?? []).length);
      expect(digits(s)).toBe((s.match(/\d/g) ?? []).length);
    }
    expect(letters('𝐀b𐐷')).toBe(3);
    expect(digits('١٢3')).toBe(1);
  });

  it('collapses whitespace as replace(/\\s+/g, " ") does, and keeps the string when nothing changes', () => {
    const rng = seedrandom('rge-collapse-v1');
    const alphabet = ['a', ' ', ' ', '\t', '\n', '\u00a0', '\u2003', '1', ',', '₹'];
    for (let n = 0; n < 2000; n++) {
      const s = randomText(rng, alphabet, 20);
      expect(collapseSpaces(s)).toBe(s.replace(/\s+/g, ' '));
    }
    expect(collapseSpaces('Revenue from operations 1,234')).toBe('Revenue from operations 1,234');
    expect(collapseSpaces('a\u00a0b')).toBe('a b');
    expect(collapseSpaces('a  b')).toBe('a b');
  });

  it('counts amounts as splitting the cell at whitespace does', () => {
    const rng = seedrandom('rge-amounts-v1');
    const alphabet = [
      '1',
      '9',
      ',',
      '.',
      '(',
      ')',
      '-',
      '–',
      '—',
      '%',
      '$',
      '₹',
      ' ',
      '  ',
      'a',
      'Note',
      '٣',
    ];
    const NUMERIC = /^\(?[-–−]?[$₹€£¥]?\d[\d,]*(?:\.\d+)?\)?%?$/;
    const bySplit = (cell: string) =>
      /^[-–—−]$/.test(cell.trim()) ? 1 : cell.split(/\s+/).filter((t) => NUMERIC.test(t)).length;
    for (let n = 0; n < 3000; n++) {
      const s = randomText(rng, alphabet, 8);
      expect(numericTokenCount(s), JSON.stringify(s)).toBe(bySplit(s));
    }
    expect(numericTokenCount('(2,724) 1,21,219 12.5% Note')).toBe(3);
    expect(numericTokenCount(' – ')).toBe(1);
  });
});
