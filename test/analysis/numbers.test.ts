import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  extractQuantities,
  type Quantity,
  quantityMatchesGold,
  sameQuantity,
} from '../../src/analysis/numbers.ts';
import type { NumericGold } from '../../src/questions/schema.ts';

const q = (text: string): Quantity => {
  const all = extractQuantities(text);
  expect(all, text).toHaveLength(1);
  return all[0] as Quantity;
};
const brief = (text: string) => extractQuantities(text).map(({ raw, value, unit }) => ({ raw, value, unit }));

describe('extractQuantities: fixture sentences', () => {
  it('Indian-grouped crore amount with a citation marker', () => {
    const text =
      'Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore [reliance-FY24-1a2b3c4d].';
    expect(extractQuantities(text)).toEqual([
      { raw: 'Rs 9,00,122.00 crore', value: 9.00122e12, unit: 'INR', scale: 1e7, start: 50, end: 70 },
    ]);
  });

  it('offsets point at the raw text', () => {
    const text = 'Revenue was Rs 7,959.98 crore and EPS was Rs 0.41; emissions 5,87,11,930 tCO2e.';
    for (const x of extractQuantities(text)) expect(text.slice(x.start, x.end)).toBe(x.raw);
    expect(extractQuantities(text)).toHaveLength(3);
  });

  it('emissions in tCO2e with Indian grouping; "Scope 1 and 2" and FY23 are not quantities', () => {
    expect(brief('Scope 1 and 2 greenhouse gas emissions in FY23 were 5,88,592 tCO2e.')).toEqual([
      { raw: '5,88,592 tCO2e', value: 588592, unit: 'tCO2e' },
    ]);
    expect(q('5,87,11,930 tCO2e').value).toBe(58711930);
    expect(q('5,88,592 tonnes of CO2 equivalent').unit).toBe('tCO2e');
  });

  it('dividends per equity share', () => {
    expect(
      brief('The Board has recommended a final dividend of Rs 12.50 per equity share for FY23.'),
    ).toEqual([{ raw: 'Rs 12.50 per equity share', value: 12.5, unit: 'per-share' }]);
    expect(q('Rs 3.25 per share').unit).toBe('per-share');
  });

  it('percentages: %, per cent, percent', () => {
    expect(q('grew by 7.5% over the previous year').value).toBe(7.5);
    expect(q('grew by 7.5 per cent').unit).toBe('%');
    expect(q('a margin of -32.8 percent').value).toBe(-32.8);
  });

  it('USD millions and the exchange rate sentence', () => {
    const text =
      'In US dollar terms, consolidated revenue from operations for FY23 was about USD 2,512 million, at an average exchange rate of Rs 83.00 per US dollar.';
    expect(brief(text)).toEqual([
      { raw: 'USD 2,512 million', value: 2.512e9, unit: 'USD' },
      { raw: 'Rs 83.00', value: 83, unit: 'INR' },
    ]);
    expect(q('$3.2bn').value).toBe(3.2e9);
    expect(q('US$ 450 mn').value).toBe(4.5e8);
    expect(q('2,512 million USD').unit).toBe('USD');
  });

  it('currency markers Rs, Rs., INR and ₹, before or after', () => {
    for (const t of [
      'Rs 1,200 crore',
      'Rs. 1,200 crore',
      'INR 1,200 crore',
      '₹1,200 crore',
      '1,200 crore rupees',
      '₹ 1,200 cr',
    ])
      expect(q(t)).toMatchObject({ value: 1.2e10, unit: 'INR', scale: 1e7 });
  });

  it('scale words: lakh crore, lakh, lac, million, billion, thousand', () => {
    expect(q('Rs 9.00 lakh crore').value).toBe(9e12);
    expect(q('Rs 2.5 lakh').value).toBe(2.5e5);
    expect(q('Rs 2.5 lacs').value).toBe(2.5e5);
    expect(q('12 million').value).toBe(1.2e7);
    expect(q('1.5 billion').value).toBe(1.5e9);
    expect(q('4 thousand').value).toBe(4000);
    expect(q('4 thousand').unit).toBeNull();
  });

  it('western grouping equals Indian grouping', () => {
    expect(q('Rs 900,122.00 crore').value).toBe(q('Rs 9,00,122.00 crore').value);
    expect(q('1,234,567').value).toBe(1234567);
    expect(q('12,34,567').value).toBe(1234567);
  });

  it('negatives: minus sign, unicode minus, after the currency, and accounting parentheses', () => {
    expect(q('Standalone profit for the year FY23 was Rs -999.99 crore.').value).toBe(-9.9999e9);
    expect(q('Basic EPS was −1.20').value).toBe(-1.2);
    expect(q('-Rs 89.60 crore').value).toBe(-8.96e8);
    expect(q('a loss of (2,724) in the quarter')).toMatchObject({ raw: '(2,724)', value: -2724 });
    expect(brief('Basic EPS (Rs) | 9.99 | -9.99 | n.a.').map((x) => x.value)).toEqual([9.99, -9.99]);
  });

  it('ignores citation markers, fiscal years, dates, year spans and bare years', () => {
    expect(
      extractQuantities('[reliance-FY24-1a2b3c4d] [hdfc-bank-FY23-12345678, itc-FY24-0a0b0c0d]'),
    ).toEqual([]);
    expect(extractQuantities('FY24 FY 2023-24 Annual Report 2023-24 Q4 FY24 H1')).toEqual([]);
    expect(
      extractQuantities('as on 31 March 2024, March 31, 2024, 31st of March 2023, 31/03/2024, March 2024'),
    ).toEqual([]);
    expect(
      extractQuantities('under the Companies (Indian Accounting Standards) Rules, 2015; renamed in 2025'),
    ).toEqual([]);
    expect(brief('The group employed 4,760 people as on 31 March 2023.')).toEqual([
      { raw: '4,760', value: 4760, unit: null },
    ]);
  });

  it('ignores list numbering and section numbers, and digits inside words and ids', () => {
    expect(
      brief('1. Revenue was Rs 5 crore.\n2) Profit was Rs 2 crore.\n(3) EPS Rs 1.5').map((x) => x.value),
    ).toEqual([5e7, 2e7, 1.5]);
    expect(extractQuantities('12.1 Basis of preparation\n5A. MANAGEMENT DISCUSSION')).toEqual([]);
    expect(extractQuantities('One97 Communications, tCO2e, bge-m3, id 5a7a38ca')).toEqual([]);
    expect(extractQuantities('(1) the first item')).toEqual([]);
  });

  it('a year with a unit is a quantity', () => {
    expect(q('Rs 2,015 crore').value).toBe(2.015e10);
    expect(q('Rs 1990 crore').value).toBe(1.99e10);
  });

  it('table rows keep bare numbers', () => {
    expect(brief('Logistics | 5,630.02 | 27.0').map((x) => [x.value, x.unit])).toEqual([
      [5630.02, null],
      [27, null],
    ]);
  });
});

describe('sameQuantity', () => {
  it('crore written three ways', () => {
    const a = q('Rs 9,00,122.00 crore');
    expect(sameQuantity(a, q('Rs 900,122 crore'))).toBe(true);
    expect(sameQuantity(a, q('Rs 9.00 lakh crore'))).toBe(true);
    expect(sameQuantity(a, q('₹9,001.22 billion'))).toBe(true);
  });
  it('tolerance is relative and configurable', () => {
    expect(sameQuantity(q('Rs 100 crore'), q('Rs 100.9 crore'))).toBe(true);
    expect(sameQuantity(q('Rs 100 crore'), q('Rs 101.5 crore'))).toBe(false);
    expect(sameQuantity(q('Rs 100 crore'), q('Rs 101.5 crore'), 0.02)).toBe(true);
    expect(sameQuantity(q('Rs 100 crore'), q('Rs 100.9 crore'), 0.001)).toBe(false);
  });
  it('units must be compatible', () => {
    expect(sameQuantity(q('7.5%'), q('Rs 7.5'))).toBe(false);
    expect(sameQuantity(q('5,88,592 tCO2e'), q('Rs 5,88,592'))).toBe(false);
    expect(sameQuantity(q('USD 100'), q('Rs 100'))).toBe(false);
    expect(sameQuantity(q('Rs 12.50 per equity share'), q('Rs 12.50'))).toBe(true);
  });
  it('a bare number matches a unit-bearing one only when the scaled values agree', () => {
    expect(sameQuantity(q('5,630.02'), q('Rs 5,630.02 crore'))).toBe(false);
    expect(sameQuantity(q('5,630.02 crore'), q('Rs 5,630.02 crore'))).toBe(true);
    expect(sameQuantity(q('12.50'), q('Rs 12.50 per share'))).toBe(true);
    expect(sameQuantity(q('7.5'), q('7.5%'))).toBe(true);
  });
  it('signs matter', () => {
    expect(sameQuantity(q('Rs -999.99 crore'), q('Rs 999.99 crore'))).toBe(false);
    expect(sameQuantity(q('(2,724)'), q('-2,724'))).toBe(true);
  });
});

describe('quantityMatchesGold', () => {
  const gold = (value: number, unit: string, tolerance = 0.01) => ({ value, unit, tolerance });
  it('INR crore: scaled, or bare in crore', () => {
    const g = gold(900122, 'INR crore');
    expect(quantityMatchesGold(q('Rs 9,00,122.00 crore'), g)).toBe(true);
    expect(quantityMatchesGold(q('Rs 9.00 lakh crore'), g)).toBe(true);
    expect(quantityMatchesGold(q('9,00,122'), g)).toBe(true);
    expect(quantityMatchesGold(q('Rs 9,00,122'), g)).toBe(false);
    expect(quantityMatchesGold(q('9,14,472.00 crore'), g)).toBe(false);
    expect(quantityMatchesGold(q('9,00,122%'), g)).toBe(false);
  });
  it('INR per share', () => {
    expect(quantityMatchesGold(q('Rs 12.50 per equity share'), gold(12.5, 'INR per share'))).toBe(true);
    expect(quantityMatchesGold(q('Rs 12.50'), gold(12.5, 'INR per share'))).toBe(true);
    expect(quantityMatchesGold(q('Rs -1.20'), gold(-1.2, 'INR per share'))).toBe(true);
    expect(quantityMatchesGold(q('Rs 1.20'), gold(-1.2, 'INR per share'))).toBe(false);
  });
  it('% with the question tolerance', () => {
    expect(quantityMatchesGold(q('27.0%'), gold(27.005762196466993, '%', 0.02))).toBe(true);
    expect(quantityMatchesGold(q('28.1%'), gold(27.005762196466993, '%', 0.02))).toBe(false);
    expect(quantityMatchesGold(q('27.0 per cent'), gold(27.0, '%'))).toBe(true);
    expect(quantityMatchesGold(q('Rs 27'), gold(27.0, '%'))).toBe(false);
  });
  it('tCO2e, count and USD million', () => {
    expect(quantityMatchesGold(q('5,88,592 tCO2e'), gold(588592, 'tCO2e', 0.005))).toBe(true);
    expect(quantityMatchesGold(q('5,88,592'), gold(588592, 'tCO2e', 0.005))).toBe(true);
    expect(quantityMatchesGold(q('4,208'), gold(4208, 'count'))).toBe(true);
    expect(quantityMatchesGold(q('2.06 lakh'), gold(206792, 'count'))).toBe(true);
    expect(quantityMatchesGold(q('4,208%'), gold(4208, 'count'))).toBe(false);
    expect(quantityMatchesGold(q('USD 2,512 million'), gold(2512, 'USD million'))).toBe(true);
    expect(quantityMatchesGold(q('$2.512 billion'), gold(2512, 'USD million'))).toBe(true);
    expect(quantityMatchesGold(q('Rs 2,512 million'), gold(2512, 'USD million'))).toBe(false);
  });
  it('text: as written or in base units', () => {
    expect(quantityMatchesGold(q('Rs 14.80 crore'), gold(14.8, 'text'))).toBe(true);
    expect(quantityMatchesGold(q('42'), gold(42, 'text'))).toBe(true);
  });
});

describe('on the fixture question set', () => {
  const questions = readFileSync(new URL('../../fixtures/questions.jsonl', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; gold_answer: string; numeric_gold: NumericGold[] });

  it('every numeric gold figure is stated by its own gold answer', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const question of questions)
      for (const gold of question.numeric_gold) {
        checked += 1;
        if (!extractQuantities(question.gold_answer).some((x) => quantityMatchesGold(x, gold)))
          missing.push(`${question.id} ${gold.label}: ${question.gold_answer}`);
      }
    expect(checked).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('a percentage rounded to one decimal matches its gold (gm-005: 0.4% for 0.421%)', () => {
    expect(
      quantityMatchesGold(q('a change of 0.4%'), { value: 0.42118078820714544, unit: '%', tolerance: 0.02 }),
    ).toBe(true);
    expect(
      quantityMatchesGold(q('a change of 0.5%'), { value: 0.42118078820714544, unit: '%', tolerance: 0.02 }),
    ).toBe(false);
    expect(
      quantityMatchesGold(q('a change of 0%'), { value: 0.42118078820714544, unit: '%', tolerance: 0.02 }),
    ).toBe(false);
  });
});
