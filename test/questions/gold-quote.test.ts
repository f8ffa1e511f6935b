import { describe, expect, it } from 'vitest';
import { findGoldQuote } from '../../src/questions/import-common.ts';
import { figureRenderings, parseErcDataset } from '../../src/questions/import-erc.ts';
import { chunk } from './cli-helpers.ts';

const page = chunk(
  'acme-2022-10k',
  'FY22',
  [48, 48],
  'Consolidated Statement of Income\n(Millions)\nNet sales   $ 34,229\nOperating income 6,539\n' +
    'Operating margin declined in 2022. Higher raw material costs weighed on results in every segment.',
);

describe('findGoldQuote', () => {
  it('takes the whole evidence when it appears whitespace-normalised', () => {
    expect(findGoldQuote('Net sales $\n34,229', [page])).toEqual({
      quote: 'Net sales $ 34,229',
      match: 'verbatim',
    });
  });

  it('else the longest complete sentence that appears (case-sensitive)', () => {
    const evidence =
      'Operating margin declined in 2022. Higher raw material costs weighed on results in every segment. ' +
      'This sentence is not on the page at all.';
    expect(findGoldQuote(evidence, [page])).toEqual({
      quote: 'Higher raw material costs weighed on results in every segment.',
      match: 'sentence',
    });
    expect(findGoldQuote(evidence.toUpperCase(), [page])).toBeNull();
  });

  it('else the longest run of words (a table), and null when fewer than five words match', () => {
    const table = 'Consolidated Statement of Income (Millions) Net sales $ 34,229 Operating income 6,540';
    expect(findGoldQuote(table, [page])).toEqual({
      quote: 'Consolidated Statement of Income (Millions) Net sales $ 34,229 Operating income',
      match: 'fragment',
    });
    expect(findGoldQuote('Net sales were 12 percent higher', [page])).toBeNull();
  });
});

describe('ERC helpers', () => {
  it('renders whole-number figures as reports print them', () => {
    expect(figureRenderings(3770600000)).toEqual(['3,770,600,000', '3,770,600', '3,770.6', '3,770.60']);
    expect(figureRenderings(23410000)).toEqual(['23,410,000', '23,410']);
    expect(figureRenderings(-45.42)).toEqual([]);
  });

  it('reads dataset.csv with quoted company names', () => {
    const csv =
      'sha1,date,name,size\nABC123,2022-10-31,"Anixa Biosciences, Inc.",3996701\ndef456,2023-01-01,Holley Inc.,10\n';
    expect([...parseErcDataset(csv)]).toEqual([
      ['Anixa Biosciences, Inc.', ['abc123']],
      ['Holley Inc.', ['def456']],
    ]);
  });
});
