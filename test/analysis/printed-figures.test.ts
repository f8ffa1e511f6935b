/**
 * findPrintedFigure on real lines of five Indian filings (lakh- and crore-stated tables, Indian and
 * western grouping, brackets, lakh crore, per-share figures), copied with file and page into
 * test/analysis/printed-excerpts.ts; that each is on the page named is
 * test/analysis/printed-figures-shared.integration.test.ts (it reads ../shared/corpus/indian).
 */
import { describe, expect, it } from 'vitest';
import { findPrintedFigure, printedForms } from '../../src/analysis/printed-figures.ts';
import { EXCERPTS } from './printed-excerpts.ts';

/** The copied line that starts with `prefix` (the test fails if there is none or more than one). */
function line(prefix: string): string {
  const found = EXCERPTS.flatMap((e) => e.text.split('\n')).filter((l) => l.startsWith(prefix));
  expect(found, prefix).toHaveLength(1);
  return found[0] ?? '';
}

const lines = (...prefixes: string[]): string => prefixes.map(line).join('\n');
const raws = (text: string, value: number, unit: string) =>
  findPrintedFigure(text, value, unit).map(({ raw, scale, via }) => ({ raw, scale, via }));

describe('findPrintedFigure: real lines', () => {
  it('a lakh-stated table: Indian and western grouping, offsets into the text', () => {
    const text = lines('(₹in lakhs)', 'Total Operating Income');
    expect(raws(text, 2909.7185, 'INR crore')).toEqual([
      { raw: '2,90,971.85', scale: 'lakh', via: 'stated-unit' },
    ]);
    expect(raws(text, 2662.8666, 'INR crore')).toEqual([
      { raw: '266,286.66', scale: 'lakh', via: 'stated-unit' },
    ]);
    for (const h of findPrintedFigure(text, 2909.7185, 'INR crore'))
      expect(text.slice(h.start, h.end)).toBe(h.raw);
  });

  it('a stated lakh is not read as crore: the same digits as crore do not match', () => {
    const text = lines('(₹in lakhs)', 'Total Operating Income');
    expect(findPrintedFigure(text, 290971.85, 'INR crore')).toEqual([]);
    // without the header the row is read as crore
    expect(raws(line('Total Operating Income'), 290971.85, 'INR crore')).toEqual([
      { raw: '2,90,971.85', scale: 'crore', via: 'assumed' },
    ]);
  });

  it('a scale word beside the number: lakhs, lakh crore, crore after a misread ₹', () => {
    expect(raws(line('During the year'), 2909.7185, 'INR crore')).toEqual([
      { raw: '₹2,90,971.85 lakhs', scale: 'lakh', via: 'scale-word' },
    ]);
    // "₹20 lakh crore", printed to a whole lakh crore, states 20.18 lakh crore too
    expect(raws(line('FY 2023-24 marks'), 2018000, 'INR crore')).toEqual([
      { raw: '₹ 20.18 lakh crore', scale: 'lakh crore', via: 'scale-word' },
      { raw: '₹20 lakh crore', scale: 'lakh crore', via: 'scale-word' },
    ]);
    expect(raws(line('FY 2023-24 marks'), 2000000, 'INR crore')).toEqual([
      { raw: '₹20 lakh crore', scale: 'lakh crore', via: 'scale-word' },
    ]);
    expect(raws(line('of ₹22.1'), 2212345, 'INR crore')).toEqual([
      { raw: '₹22.1 lakh crores', scale: 'lakh crore', via: 'scale-word' },
    ]);
    expect(raws(line('Company as on'), 25573.45, 'INR crore')).toEqual([
      { raw: '25,573.45 crore', scale: 'crore', via: 'scale-word' },
    ]);
  });

  it('a million form; a one-digit "1 crore" is not a figure', () => {
    expect(raws(line('Amounts in the financial'), 1, 'INR crore')).toEqual([
      { raw: '10 million', scale: 'million', via: 'scale-word' },
    ]);
  });

  it('a crore-stated table with western grouping (Infosys), rounded to whole crore', () => {
    const text = lines('(In ₹ crore', '2024 | 2023', 'Revenue from operations');
    expect(raws(text, 153670, 'INR crore')).toEqual([{ raw: '153,670', scale: 'crore', via: 'stated-unit' }]);
    expect(raws(text, 153670.49, 'INR crore')).toHaveLength(1);
    expect(raws(text, 153669.5, 'INR crore')).toHaveLength(1);
  });

  it('a crore-stated table with Indian grouping (Aditya Birla Capital)', () => {
    const text = lines('As at 31st', '(₹ crore)', 'Total Financial Liabilities');
    expect(raws(text, 111605.96, 'INR crore')).toEqual([
      { raw: '1,11,605.96', scale: 'crore', via: 'stated-unit' },
    ]);
    expect(raws(text, 34176.32, 'INR crore')).toEqual([
      { raw: '34,176.32', scale: 'crore', via: 'stated-unit' },
    ]);
  });

  it('brackets for a negative (Rane, "₹ in Crores")', () => {
    const text = lines('CONSOLIDATED FINANCIAL', 'FINANCIAL YEAR', 'PAT |');
    expect(raws(text, -60.35, 'INR crore')).toEqual([{ raw: '(60.35)', scale: 'crore', via: 'stated-unit' }]);
    expect(findPrintedFigure(text, 60.35, 'INR crore')).toEqual([]);
  });

  it('per-share figures as plain numbers, negatives included', () => {
    expect(raws(line('From continuing'), 10.18, 'INR per share')).toEqual([
      { raw: '10.18', scale: 'plain', via: 'assumed' },
    ]);
    expect(raws(line('Basic (in ₹'), 63.39, 'INR per share')).toEqual([
      { raw: '63.39', scale: 'plain', via: 'assumed' },
    ]);
    expect(raws(line('EPS**'), -35.42, 'INR per share')).toEqual([
      { raw: '(35.42)', scale: 'plain', via: 'assumed' },
    ]);
  });
});

describe('findPrintedFigure: what does not match', () => {
  it('a different figure', () => {
    const text = lines('(₹in lakhs)', 'Total Operating Income');
    expect(findPrintedFigure(text, 2909.72, 'INR crore')).toEqual([]);
    expect(findPrintedFigure(lines('CONSOLIDATED FINANCIAL', 'PAT |'), 220.86, 'INR crore')).toEqual([]);
    expect(findPrintedFigure(line('From continuing'), 10.19, 'INR per share')).toEqual([]);
  });

  it('rounding beyond half a printed unit', () => {
    const infy = lines('(In ₹ crore', 'Revenue from operations');
    expect(findPrintedFigure(infy, 153670.51, 'INR crore')).toEqual([]);
    expect(findPrintedFigure(infy, 153669.49, 'INR crore')).toEqual([]);
    expect(findPrintedFigure(lines('(₹in lakhs)', 'Total Operating Income'), 2909.7191, 'INR crore')).toEqual(
      [],
    );
    expect(raws(line('FY 2023-24 marks'), 2050100, 'INR crore')).toEqual([]);
    expect(raws(line('FY 2023-24 marks'), 2049900, 'INR crore').map((h) => h.raw)).toEqual([
      '₹20 lakh crore',
    ]);
  });

  it('years, fiscal-year spans, dates and digits inside words', () => {
    for (const v of [2024, 2023]) expect(findPrintedFigure(line('2024 | 2023'), v, 'count')).toEqual([]);
    for (const v of [2023, 24, 2024])
      expect(findPrintedFigure(line('FY 2023-24 marks'), v, 'count')).toEqual([]);
    for (const v of [31, 2025]) {
      expect(findPrintedFigure(line('As at 31st'), v, 'count')).toEqual([]);
      expect(findPrintedFigure(line('Company as on'), v, 'count')).toEqual([]);
    }
    for (const v of [25, 24, 22]) expect(findPrintedFigure(line('FINANCIAL YEAR'), v, 'count')).toEqual([]);
    expect(findPrintedFigure('Scope2 emissions fell in Q4FY24 (31 March 2024)', 24, 'count')).toEqual([]);
  });

  it('fewer than two significant digits', () => {
    expect(findPrintedFigure(line('From discontinued'), -0.02, 'INR per share')).toEqual([]);
    expect(raws(line('From discontinued'), 17.78, 'INR per share')).toHaveLength(1);
  });

  it('a dollar amount is not a rupee amount', () => {
    expect(findPrintedFigure(line('bonuses totaling'), 3.4, 'INR crore')).toEqual([]);
    expect(raws(line('bonuses totaling'), 280, 'INR crore')).toEqual([
      { raw: '₹280 crore', scale: 'crore', via: 'scale-word' },
    ]);
  });
});

describe('findPrintedFigure: forms and stated units', () => {
  it('the forms of one figure in crore, lakh, million, billion, lakh crore and rupees', () => {
    const cases: [string, string][] = [
      ['Revenue was ₹ 26,710.56 crore', 'crore'],
      ['Revenue was Rs. 26710.56 cr', 'crore'],
      ['Revenue was INR 2,67,105.60 million', 'million'],
      ['Revenue was 267,105.6 mn', 'million'],
      ['Revenue was Rs 267.11 billion', 'billion'],
      ['Revenue was Rs 267,105,600 thousand', 'thousand'],
    ];
    for (const [text, scale] of cases) {
      expect(
        findPrintedFigure(text, 26710.56, 'INR crore').map((h) => h.scale),
        text,
      ).toEqual([scale]);
    }
  });

  it('stated-unit phrases', () => {
    const row = 'Revenue from operations | 26,71,056.00';
    for (const header of ['Rs. in Lakhs', '(₹ in lakh)', '(Amount in ₹ lakh)', 'Rs in Lacs', 'INR lakhs']) {
      expect(raws(`${header}\n${row}`, 26710.56, 'INR crore'), header).toEqual([
        { raw: '26,71,056.00', scale: 'lakh', via: 'stated-unit' },
      ]);
    }
    const millions = 'Revenue from operations | 267,105.60';
    for (const header of ['(₹ million)', 'in ₹ million', '(Rs. in Millions)', 'INR mn']) {
      expect(raws(`${header}\n${millions}`, 26710.56, 'INR crore')[0]?.via, header).toBe('stated-unit');
    }
    for (const header of ['(₹ in crore)', '₹ crore', '(Amount in ₹ crore)', 'Rs in Crores']) {
      expect(raws(`${header}\n| 26,710.56`, 26710.56, 'INR crore')[0]?.via, header).toBe('stated-unit');
    }
    expect(raws('(Amount in ₹)\nRevenue | 2,67,10,56,00,000', 26710.56, 'INR crore')).toEqual([
      { raw: '2,67,10,56,00,000', scale: 'rupees', via: 'stated-unit' },
    ]);
  });

  it('several stated units: each is tried', () => {
    const text = '(₹ in crore)\nRevenue | 26,710.56\n(₹ in lakh)\nRevenue | 26,71,056.00';
    expect(raws(text, 26710.56, 'INR crore')).toEqual([
      { raw: '26,710.56', scale: 'crore', via: 'stated-unit' },
      { raw: '26,71,056.00', scale: 'lakh', via: 'stated-unit' },
    ]);
  });

  it('a leading minus; plain units take no scale word', () => {
    expect(raws('Loss | -2,724.10', -2724.1, 'INR crore')).toEqual([
      { raw: '-2,724.10', scale: 'crore', via: 'assumed' },
    ]);
    expect(findPrintedFigure('Loss | -2,724.10', 2724.1, 'INR crore')).toEqual([]);
    expect(findPrintedFigure('12.5 lakh employees', 12.5, 'count')).toEqual([]);
    expect(raws('attrition was 12.9%', 12.9, '%')).toEqual([
      { raw: '12.9%', scale: 'plain', via: 'assumed' },
    ]);
    expect(findPrintedFigure('attrition was 12.9%', 12.9, 'count')).toEqual([]);
  });
});

describe('printedForms', () => {
  it('leads with the crore forms and includes the lakh and million forms', () => {
    const forms = printedForms(26710.56, 'INR crore');
    expect(forms.slice(0, 2)).toEqual(['₹ 26,710.56 crore', '26,710.56']);
    expect(forms).toContain('26,71,056.00 lakh');
    expect(forms).toContain('2,67,105.60 million');
    expect(new Set(forms).size).toBe(forms.length);
    expect(printedForms(26710.56, 'INR crore')).toEqual(forms);
  });

  it('every form is found again as the same figure, and not as another', () => {
    const figures: [number, string][] = [
      [26710.56, 'INR crore'],
      [900122.5, 'INR crore'],
      [-2724.1, 'INR crore'],
      [153670, 'INR crore'],
      [63.39, 'INR per share'],
      [-35.42, 'INR per share'],
      [587119.3, 'tCO2e'],
    ];
    for (const [value, unit] of figures) {
      for (const form of printedForms(value, unit)) {
        expect(findPrintedFigure(form, value, unit), `${form} for ${value} ${unit}`).toHaveLength(1);
        expect(findPrintedFigure(form, value * 1.01, unit), `${form} for ${value * 1.01} ${unit}`).toEqual(
          [],
        );
      }
    }
  });
});
