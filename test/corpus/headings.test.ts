import { describe, expect, it } from 'vitest';
import { documentLines } from '../../src/corpus/chunk.ts';
import {
  detectFurniture,
  isCode,
  isHeading,
  isPageNumber,
  isTableLabel,
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

describe('table labels, form fields and codes are not headings', () => {
  // One block per rule of isTableLabel; each line was chosen as a heading before the rule (the Infosys,
  // VRL Logistics, Rane Holdings, L&T and Bisil Plast reports), and each "keeps" line is a real heading
  // of those reports that the rule must leave alone.
  it.each([
    ['a "no value" cell', ['Not Applicable', 'NOT APPLICABLE', 'Nil Nil', 'N.A.', 'None None None']],
    ['a note reference', ['Sciences (4)', 'Passenger Cars (PC) (12) (9)', 'Farm Tractors (FT) 6 (8)']],
    [
      'a label waiting for its number',
      ["Firm's Registration No", 'Folio No.', 'WOS of LTIMindtree Limited No'],
    ],
    [
      'a field naming an identifier (chunker 2)',
      [
        'Director Identification Number (DIN)',
        'Permanent Account Number (PAN)',
        'Corporate Identity Number (CIN)',
      ],
    ],
    [
      'a line holding an identifier',
      [
        'ISIN (Equity Shares) in NSDL and CDSL INE366I01010',
        'Director Identification Number (DIN) 00012583',
        '1. Corporate Identity Number (CIN) of the Listed Entity L35999TN1936PLC002202',
        'COMPLIANCE OFFICER M.NO – A16354',
      ],
    ],
    ['an identifier after its label', ['NSE Code VRLLOG', 'BSE Scrip ID VRLLOG', 'FORM NO. MR-3']],
    ['a form field with a spaced colon', ['BANKERS : ICICI Bank Limited', 'Place : Ahmedabad']],
  ])('rejects %s', (_rule, lines) => {
    for (const line of lines) expect(isHeading(line), line).toBe(false);
  });

  it.each([
    '27. CODE OF CONDUCT',
    '1. Philosophy on Code of Governance',
    'Probability of Default (PD)',
    'Exposure at Default (EAD)',
    '2.2 PROPERTY, PLANT AND EQUIPMENT',
    'Segment Results (Profit Before Tax)',
    'Performance Highlights FY2024',
    'Results for Q4FY24',
    'ISO14001 Certification',
    'Securities Dealing Code',
    'NOTICE',
    // the headings of the generated fixture corpus (fixtures/generated), which must not move
    '5. SEGMENT RESULTS',
    '12.1 Basis of preparation',
    'ADANI PORTS AND SPECIAL ECONOMIC ZONE LIMITED',
    '4. CONSOLIDATED STATEMENT OF PROFIT AND LOSS',
    'FSN E-COMMERCE VENTURES LIMITED (NYKAA)',
    'ZOMATO LIMITED (RENAMED ETERNAL LIMITED IN 2025)',
    'ONE97 COMMUNICATIONS LIMITED (PAYTM)',
  ])('keeps %s', (line) => {
    expect(isTableLabel(line)).toBe(false);
    expect(isHeading(line)).toBe(true);
  });

  it('tells identifiers from words, periods and figures', () => {
    for (const t of ['INE366I01010', 'L35999TN1936PLC002202', 'A16354', '00012583', '(DIN:02153989)'])
      expect(isCode(t), t).toBe(true);
    for (const t of [
      'FY2024',
      'Q4FY24',
      'H1FY25',
      'ISO14001',
      '2023',
      'ONE97',
      'COVID-19',
      '1,23,456',
      'VRLLOG',
    ])
      expect(isCode(t), t).toBe(false);
  });
});

describe('a capitalised heading is not continued by a form field', () => {
  it('keeps "LARSEN & TOUBRO LIMITED" apart from the CIN line under it', () => {
    const lines = documentLines([
      {
        page: 1,
        method: 'text',
        text: 'LARSEN & TOUBRO LIMITED\nCIN : L99999MH1946PLC004768\nRegistered Office: L&T House, Ballard Estate, Mumbai.',
      },
    ]);
    expect(new Set(lines.map((l) => l.heading))).toEqual(new Set(['LARSEN & TOUBRO LIMITED']));
  });

  it('still joins a wrapped capitalised heading', () => {
    const lines = documentLines([
      {
        page: 1,
        method: 'text',
        text: 'REPORT ON THE AUDIT OF THE CONSOLIDATED\nFINANCIAL STATEMENTS\nWe have audited the statements.',
      },
    ]);
    expect(lines.at(-1)?.heading).toBe('REPORT ON THE AUDIT OF THE CONSOLIDATED FINANCIAL STATEMENTS');
  });
});
