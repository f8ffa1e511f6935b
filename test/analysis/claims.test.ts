import { describe, expect, it } from 'vitest';
import { citationMarkers, splitCitedClaims, splitClaims, stripCitations } from '../../src/analysis/claims.ts';

describe('citationMarkers / stripCitations', () => {
  it('ids in order, lists split, repeats kept', () => {
    const text =
      'Revenue was Rs 12,719.67 crore [adani-ports-FY23-5a7a38ca]. Profit was Rs 5,392.75 crore [adani-ports-FY23-c8427064, adani-ports-FY23-5a7a38ca].';
    expect(citationMarkers(text)).toEqual([
      'adani-ports-FY23-5a7a38ca',
      'adani-ports-FY23-c8427064',
      'adani-ports-FY23-5a7a38ca',
    ]);
    expect(stripCitations(text)).toBe('Revenue was Rs 12,719.67 crore. Profit was Rs 5,392.75 crore.');
  });
  it('not citations: [sic], markdown links, empty brackets', () => {
    expect(citationMarkers('the auditor [sic] and [the report](https://x.test/a-1) []')).toEqual([]);
  });
  it('semicolon-separated ids and numeric footnotes', () => {
    expect(citationMarkers('x [a-FY24-1; b-FY23-2] y [3]')).toEqual(['a-FY24-1', 'b-FY23-2', '3']);
  });
  it("a user's system's context ids: page anchors, paths, URIs", () => {
    const text =
      'Auditors: Varma Iyer [hdfc-bank-FY23-annual-report#p10-1]. See [docs/faq.md#3, s3://bucket/k=2] and [chunk_17].';
    expect(citationMarkers(text)).toEqual([
      'hdfc-bank-FY23-annual-report#p10-1',
      'docs/faq.md#3',
      's3://bucket/k=2',
      'chunk_17',
    ]);
    expect(stripCitations(text)).toBe('Auditors: Varma Iyer. See and.');
  });
  it('stripping leaves no dangling space before punctuation', () => {
    expect(stripCitations('It was Rs 2.25 per equity share [adani-ports-FY23-5a7a38ca] , as declared.')).toBe(
      'It was Rs 2.25 per equity share, as declared.',
    );
  });
});

describe('splitClaims', () => {
  it('sentences, with initials and Rs. kept inside', () => {
    expect(
      splitClaims(
        'Harpreet S. Gill is the Chairperson of the Board of Bharti Airtel Limited. EPS was Rs. 14.80 for FY23. Shah Mistry & Co LLP are the statutory auditors.',
      ),
    ).toEqual([
      'Harpreet S. Gill is the Chairperson of the Board of Bharti Airtel Limited.',
      'EPS was Rs. 14.80 for FY23.',
      'Shah Mistry & Co LLP are the statutory auditors.',
    ]);
  });
  it("splits at ';' and at a clause-level 'and' when both sides carry a verb or figure", () => {
    expect(
      splitClaims(
        'During FY23 the Board declared an interim dividend of Rs 2.25 per equity share and recommended a final dividend of Rs 3.25 per equity share; the group employed 4,760 people.',
      ),
    ).toEqual([
      'During FY23 the Board declared an interim dividend of Rs 2.25 per equity share',
      'recommended a final dividend of Rs 3.25 per equity share',
      'the group employed 4,760 people.',
    ]);
    expect(
      splitClaims('Consolidated revenue was Rs 76,840.49 crore, while profit was Rs 20,751.36 crore.'),
    ).toEqual(['Consolidated revenue was Rs 76,840.49 crore', 'profit was Rs 20,751.36 crore.']);
  });
  it("keeps noun-phrase 'and' together", () => {
    for (const s of [
      'Scope 1 and 2 greenhouse gas emissions in FY23 were 8,31,239 tCO2e.',
      'Expenditure on research and development in FY23 was Rs 32.67 crore.',
      'Adani Ports and Special Economic Zone Limited reported revenue of Rs 20,851.91 crore.',
      'The Mobile Services and Digital TV segments grew.',
    ])
      expect(splitClaims(s)).toEqual([s]);
  });
  it('strips citations, drops refusals and empty fragments, and handles bullets', () => {
    expect(
      splitClaims(
        '- Revenue was Rs 9,00,122.00 crore [reliance-FY24-1a2b3c4d].\n- The documents do not state capital expenditure.\n\n; ;\n1. EPS was Rs 102.90.',
      ),
    ).toEqual(['Revenue was Rs 9,00,122.00 crore.', 'EPS was Rs 102.90.']);
    expect(splitClaims("I don't know.")).toEqual([]);
    expect(splitClaims('')).toEqual([]);
  });
  it('inline section numbers are neither claims nor part of one', () => {
    expect(
      splitClaims(
        'Average monthly consolidated revenue from operations in FY23 was Rs 1,737.66 crore. 6. DIVIDENDS During FY23 the Board declared an interim dividend of Rs 2.25 per equity share.',
      ),
    ).toEqual([
      'Average monthly consolidated revenue from operations in FY23 was Rs 1,737.66 crore.',
      'DIVIDENDS During FY23 the Board declared an interim dividend of Rs 2.25 per equity share.',
    ]);
  });
  it('multi-hop answers split inside parentheses', () => {
    expect(
      splitClaims(
        'HDFC Bank Limited, by Rs 2,06,808.53 crore (HDFC Bank Limited: Rs 2,83,649.02 crore; ITC Limited: Rs 76,840.49 crore).',
      ),
    ).toEqual([
      'HDFC Bank Limited, by Rs 2,06,808.53 crore HDFC Bank Limited: Rs 2,83,649.02 crore',
      'ITC Limited: Rs 76,840.49 crore.',
    ]);
  });
});

describe('splitCitedClaims', () => {
  it('a claim keeps its own citations, else its sentence’s, including one after the full stop', () => {
    expect(
      splitCitedClaims(
        'Revenue was Rs 10 crore [a-FY24-1]; profit was Rs 2 crore [a-FY24-2]. The group employed 4,208 people. [b-FY23-3] Auditors are X & Co.',
      ),
    ).toEqual([
      { text: 'Revenue was Rs 10 crore', citations: ['a-FY24-1'] },
      { text: 'profit was Rs 2 crore.', citations: ['a-FY24-2'] },
      { text: 'The group employed 4,208 people.', citations: ['b-FY23-3'] },
      { text: 'Auditors are X & Co.', citations: [] },
    ]);
  });
  it('clauses split at and share the sentence citation', () => {
    expect(splitCitedClaims('Revenue was Rs 10 crore and profit was Rs 2 crore [a-FY24-1].')).toEqual([
      { text: 'Revenue was Rs 10 crore', citations: ['a-FY24-1'] },
      { text: 'profit was Rs 2 crore.', citations: ['a-FY24-1'] },
    ]);
  });
});
