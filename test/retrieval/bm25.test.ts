import { describe, expect, it } from 'vitest';
import { bm25EmbedderId, magnitudeToken } from '../../src/retrieval/bm25.ts';
import { BM25_B, BM25_K1, termCounts, tokenize } from '../../src/retrieval/index.ts';

describe('bm25 tokenisation', () => {
  it('keeps numbers with decimals and percent signs as single tokens, grouping separators dropped', () => {
    expect(tokenize('Net profit rose 37.9% to ₹60,812 crore; 34,229 employees and 12.5%.')).toEqual([
      'net',
      'profit',
      'rose',
      '37.9%',
      '60812',
      'crore',
      '6.1e11',
      '34229',
      'employees',
      '12.5%',
    ]);
  });

  it('writes Indian and Western digit grouping the same way', () => {
    expect(tokenize('headcount 2,13,527')).toEqual(['headcount', '213527']);
    expect(tokenize('headcount 213,527')).toEqual(['headcount', '213527']);
    expect(tokenize('revenue 1,23,45,678.50')).toEqual(['revenue', '12345678.50']);
  });

  it('gives an amount with a scale word its value to two significant figures, whatever the writing', () => {
    const value = (text: string) => tokenize(text).filter((t) => /^\d(?:\.\d)?e\d+$/.test(t));
    expect(value('$1,234 million')).toEqual(['1.2e9']);
    expect(value('$1.2 billion')).toEqual(['1.2e9']);
    expect(value('₹1,23,456 crore')).toEqual(['1.2e12']);
    expect(value('₹1.23 lakh crore')).toEqual(['1.2e12']);
    expect(value('5 thousand')).toEqual(['5e3']);
    // no scale word, a percentage, or a scale word without an amount: no value token
    expect(value('34,229 employees, 12.5% million-strong, billion dollars')).toEqual([]);
    expect(magnitudeToken(1_234_000_000)).toBe('1.2e9');
  });

  it('writes a fiscal year one way: FY2022, FY22, FY 2022 and fiscal 2022', () => {
    for (const text of ['FY2022', 'FY22', 'FY 2022', 'fiscal 2022', 'Fiscal 2022'])
      expect(tokenize(text)).toEqual(['fiscal', '2022']);
    expect(tokenize('FY2023Q1')).toEqual(['fiscal', '2023', 'q1']);
    expect(tokenize('Q4FY24')).toEqual(['fiscal', '2024', 'q4']);
    expect(tokenize('FY99')).toEqual(['fiscal', '1999']);
  });

  it('gives a year range its second year too, only for consecutive years', () => {
    expect(tokenize('Annual Report 2023-24')).toEqual(['annual', 'report', '2023', '2024']);
    expect(tokenize('2023–24')).toEqual(['2023', '2024']);
    expect(tokenize('2019-2020')).toEqual(['2019', '2020']);
    expect(tokenize('2020-22')).toEqual(['2020', '22']);
  });

  it('names the tokenizer and query versions in the embedder id', () => {
    expect(bm25EmbedderId()).toBe('bm25:tokenizer-v2:query-v2:k1=1.2:b=0.75');
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
