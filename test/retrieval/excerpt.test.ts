import { describe, expect, it } from 'vitest';
import { ansiBoldMark, excerpt, queryTerms } from '../../src/retrieval/excerpt.ts';

const filler = (n: number, word = 'lorem') => Array.from({ length: n }, () => word).join(' ');

describe('queryTerms', () => {
  it('keeps the content words of the question, lowercase, once each, without function words', () => {
    expect(queryTerms('How many branches are in the network? The NETWORK, 12.5%')).toEqual([
      'many',
      'branches',
      'network',
      '12.5',
    ]);
  });
});

describe('excerpt', () => {
  it('marks the question words, whitespace collapsed, whole text when it is short', () => {
    expect(excerpt('We added 913   branches\n\nduring the year.', 'How many branches were added?')).toBe(
      'We **added** 913 **branches** during the year.',
    );
  });

  it('matches case-insensitively and longer forms of words of four letters or more', () => {
    expect(excerpt('Branches grew; the branch count.', 'branch')).toBe(
      '**Branches** grew; the **branch** count.',
    );
    // a short word does not match as a prefix: "net" is not "network"
    expect(excerpt('net network', 'net')).toBe('**net** network');
  });

  it('shows the window with the most distinct question words, cut at words, with ellipses', () => {
    const text = `${filler(60)} dividend ${filler(80)} final dividend per equity share of Rs 7.50 ${filler(80)}`;
    const out = excerpt(text, 'final dividend per equity share', { width: 120 });
    expect(out.startsWith('…')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
    expect(out).toContain('lorem **final** **dividend** **per** **equity** **share** of Rs 7.50 lorem');
    // about the width asked for, plus the marks and ellipses
    const plain = out.replace(/\*\*/g, '').replace(/…/g, '');
    expect(plain.length).toBeLessThanOrEqual(120);
    expect(plain.length).toBeGreaterThan(100);
    // never a cut word at either end: every word shown is a whole word of the text
    const words = new Set(text.split(' '));
    expect(plain.split(' ').filter((w) => !words.has(w))).toEqual([]);
  });

  it('starts at the beginning when nothing matches', () => {
    const text = filler(100, 'alpha');
    const out = excerpt(text, 'revenue', { width: 50 });
    expect(out.startsWith('alpha alpha')).toBe(true);
    expect(out.endsWith('…')).toBe(true);
    expect(out).not.toContain('**');
  });

  it('can mark in ANSI bold for a terminal', () => {
    expect(excerpt('Net profit rose.', 'profit', { mark: ansiBoldMark })).toBe(
      'Net \u001b[1mprofit\u001b[22m rose.',
    );
  });
});
