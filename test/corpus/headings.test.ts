import { describe, expect, it } from 'vitest';
import {
  detectFurniture,
  isHeading,
  isPageNumber,
  opensSection,
  stripFurniture,
} from '../../src/corpus/headings.ts';

describe('isHeading', () => {
  it.each([
    '1. SUMMARY OF FINANCIAL RESULTS',
    '2.3 Borrowings',
    'Note 12. Long-Term Debt and Short-Term Borrowings',
    'ITEM 7A',
    'IV. Risks and Concerns',
    'CONSOLIDATED BALANCE SHEET',
    'Report on Corporate Governance',
    'Management’s Discussion and Analysis',
    'a) Statutory Auditors and Audit Report',
  ])('accepts %s', (line) => {
    expect(isHeading(line)).toBe(true);
  });

  it.each([
    'The Company has paid an interim dividend of Rs 5 per share.',
    'Revenue from operations | 34,229 | 35,355 | 32,184',
    'Net sales $ 34,229 $ 35,355',
    '12',
    '₹ 1,234 crore',
    'Place: Mumbai',
    'Dr. Vijay Sankeshwar',
    'Total Health Care Business Group',
    'Particulars',
    'during the year the board met six times and reviewed the business plan',
    'A'.repeat(120),
  ])('rejects %s', (line) => {
    expect(isHeading(line)).toBe(false);
  });
});

describe('page furniture', () => {
  it('recognises page numbers in their common forms', () => {
    for (const l of ['12', 'Page 12', 'Page 12 of 300', '- 12 -', 'xiv', '(3)'])
      expect(isPageNumber(l)).toBe(true);
    for (const l of ['2024', 'Revenue 12', '12.5%']) expect(isPageNumber(l), l).toBe(l === '2024');
  });

  it('finds running headers across pages and strips them only at page edges', () => {
    const topics = [
      'revenue',
      'dividends',
      'risks',
      'governance',
      'ESG',
      'segments',
      'R&D',
      'debt',
      'tax',
      'people',
    ];
    const header = 'Acme Industries Limited | Annual Report 2023-24';
    const pages = topics.map((topic, i) => [
      header,
      `This page discusses ${topic} at some length.`,
      `${i + 1}`,
    ]);
    const furniture = detectFurniture(pages);
    expect(furniture.has('acme industries limited | annual report #-#')).toBe(true);
    const body = [
      'First point on governance.',
      'Second point.',
      'Third point.',
      header,
      'Fourth.',
      'Fifth.',
      'Sixth.',
    ];
    expect(stripFurniture([header, ...body, '4'], furniture)).toEqual(body);
  });

  it('treats nothing as a running header in a three-page document', () => {
    expect(
      detectFurniture([
        ['Header', 'a'],
        ['Header', 'b'],
        ['Header', 'c'],
      ]).size,
    ).toBe(0);
  });
});

describe('opensSection', () => {
  it('rejects a heading-like line that is a wrapped sentence', () => {
    expect(opensSection('Financial guarantee contracts which are not', null, 'measured at fair value')).toBe(
      false,
    );
    expect(opensSection('Aggregate Amount of the Group Share of:', null, 'Profit | 4.57')).toBe(false);
    expect(opensSection('General Meeting Resolutions', null, 'were passed by the members')).toBe(false);
    const prose = 'The Board considered the report of the auditors and the recommendations of the';
    expect(opensSection('Audit Committee Members', prose, 'The committee met four times.')).toBe(false);
  });

  it('accepts a heading followed by a list item or a new sentence', () => {
    expect(opensSection('33. AUDITORS and AUDIT REPORTS', 'not applicable.', 'a) Statutory Auditors')).toBe(
      true,
    );
    expect(
      opensSection('Report on Corporate Governance', 'Annexure ends here.', 'The Company believes'),
    ).toBe(true);
    expect(opensSection('RISK MANAGEMENT', null, null)).toBe(true);
  });
});
