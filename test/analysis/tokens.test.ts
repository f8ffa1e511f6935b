import { describe, expect, it } from 'vitest';
import { contentWords, coverage, overlap } from '../../src/analysis/tokens.ts';

describe('contentWords', () => {
  it('lowercases, drops stop-words and citations, keeps and normalises numbers', () => {
    expect(
      contentWords(
        'Scope 1 and 2 greenhouse gas emissions in FY23 were 5,88,592 tCO2e [hdfc-bank-FY23-fbe66db1].',
      ),
    ).toEqual(['scope', '1', '2', 'greenhouse', 'gas', 'emission', 'fy23', '588592', 'tco2e']);
  });
  it('Indian and western grouping give the same token; trailing zeros fold', () => {
    expect(contentWords('Rs 9,00,122.00 crore')).toEqual(['900122']);
    expect(contentWords('Rs 900,122 crore')).toEqual(['900122']);
    expect(contentWords('Rs 12.50 per equity share')).toEqual(['12.5', 'equity', 'share']);
  });
  it('possessives and plurals fold; "ss", "us", "is" endings stay', () => {
    expect(contentWords("Reliance's statutory auditors business status analysis")).toEqual([
      'reliance',
      'statutory',
      'auditor',
      'business',
      'status',
      'analysis',
    ]);
  });
  it('empty and stop-word-only text', () => {
    expect(contentWords('')).toEqual([]);
    expect(contentWords('it was the one of them')).toEqual(['one']);
  });
});

describe('overlap (token F1)', () => {
  it('identical texts score 1, disjoint 0, empty 0', () => {
    expect(overlap('Varma Iyer & Associates LLP', 'Varma Iyer & Associates LLP')).toBe(1);
    expect(overlap('Varma Iyer', 'Harpreet Gill')).toBe(0);
    expect(overlap('', 'Harpreet Gill')).toBe(0);
    expect(overlap('the of', 'the of')).toBe(0);
  });
  it('hand-computed F1', () => {
    // a: [revenue, 5] ; b: [revenue, operation, 5] -> P = 1, R = 2/3, F1 = 0.8
    expect(overlap('Revenue was Rs 5 crore', 'Revenue from operations was Rs 5 crore')).toBeCloseTo(0.8, 12);
    // multiset: a [profit, profit] b [profit] -> shared 1, P 1/2, R 1, F1 2/3
    expect(overlap('profit profit', 'profit')).toBeCloseTo(2 / 3, 12);
  });
  it('is symmetric', () => {
    const a = 'Harpreet S. Gill chairs the Board';
    const b = 'Harpreet S. Gill is the Chairperson of the Board of Bharti Airtel Limited.';
    expect(overlap(a, b)).toBeCloseTo(overlap(b, a), 12);
  });
});

describe('coverage', () => {
  it('share of the first text’s distinct content words found in the second', () => {
    const chunk = 'The group employed 4,208 people as on 31 March 2023.';
    expect(coverage('The group employed 4,208 people', chunk)).toBe(1);
    expect(coverage('The group employed 9,999 people', chunk)).toBe(0.75);
    expect(coverage('', chunk)).toBe(1);
  });
});
