import { describe, expect, it } from 'vitest';
import { BM25_B, BM25_K1, termCounts, tokenize } from '../../src/retrieval/index.ts';

describe('bm25 tokenisation', () => {
  it('keeps numbers with separators, decimals and percent signs as single tokens', () => {
    expect(tokenize('Net profit rose 37.9% to ₹60,812 crore; 34,229 employees and 12.5%.')).toEqual([
      'net',
      'profit',
      'rose',
      '37.9%',
      '60,812',
      'crore',
      '34,229',
      'employees',
      '12.5%',
    ]);
    expect(tokenize('headcount 2,13,527 in FY24')).toEqual(['headcount', '2,13,527', 'fy24']);
  });

  it('lowercases and drops only light stop-words', () => {
    expect(tokenize('What was THE Total Income of the Bank?')).toEqual(['total', 'income', 'bank']);
    expect(tokenize('net, total, gross')).toEqual(['net', 'total', 'gross']);
  });

  it('counts terms and the document length', () => {
    const c = termCounts('Dividend of 20 per share; special dividend of 8 per share');
    expect(c.length).toBe(9);
    expect(c.terms.get('dividend')).toBe(2);
    expect(c.terms.get('share')).toBe(2);
    expect(c.terms.get('of')).toBeUndefined();
  });

  it('uses the standard Okapi parameters', () => {
    expect([BM25_K1, BM25_B]).toEqual([1.2, 0.75]);
  });
});
