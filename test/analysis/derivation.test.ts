/**
 * A figure computed from printed figures, by the arithmetic the question records (issue 51): the
 * operands must be printed in the passages, and the operation over them, to the precision each is
 * printed with, must reach the answer's figure to the precision it is written with.
 */
import { describe, expect, it } from 'vitest';
import {
  type DerivableGold,
  derivationReproduces,
  derive,
  derivedFromPassages,
  type FigureDerivation,
  printedOperands,
} from '../../src/analysis/derivation.ts';
import {
  extractQuantities,
  printedHalfUnit,
  type Quantity,
  samePrinted,
} from '../../src/analysis/numbers.ts';
import { passageUnits } from '../../src/analysis/sentences.ts';

const RELIANCE = {
  id: 'reliance-FY24-4fc8a6ad',
  text: 'Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore, compared with Rs 8,92,944.00\ncrore in FY23.',
};
const TATA = {
  id: 'tata-motors-FY24-036d081e',
  text: 'Consolidated revenue from operations for FY24 was Rs 4,37,927.77 crore, compared with Rs 3,45,966.97\ncrore in FY23.',
};
const ITC = {
  id: 'itc-FY24-0c1d2e3f',
  text: [
    'Consolidated revenue from operations for FY24 was Rs 76,840.49 crore, compared with Rs 76,518.21 crore',
    'in FY23.',
    'Consolidated profit for the year FY24 was Rs 20,751.36 crore, against Rs 19,191.66 crore in FY23.',
    'During FY24 the Board declared an interim dividend of Rs 4.25 per equity share.',
    'The Board has recommended a final dividend of Rs 6.50 per equity share for FY24.',
  ].join('\n'),
};
/** Segment revenue as a table under a stated unit: the operands are bare cells. */
const SEGMENTS = {
  id: 'itc-FY24-5e6f7a8b',
  text: [
    '(Rs in crore)',
    'Segment | FY24 | FY23',
    'FMCG | 29,996.48 | 28,019.72',
    'Hotels | 2,989.48 | 2,689.66',
  ].join('\n'),
};

const gold = (
  value: number,
  unit: string,
  op: FigureDerivation['op'],
  operands: [string, number, string][],
): DerivableGold => ({
  label: 'computed',
  value,
  unit,
  tolerance: 0.01,
  derivation: { op, operands: operands.map(([label, v, u]) => ({ label, value: v, unit: u })) },
});

const DIFFERENCE = gold(476544.23, 'INR crore', 'difference', [
  ['revenue FY24, Reliance', 914472, 'INR crore'],
  ['revenue FY24, Tata Motors', 437927.77, 'INR crore'],
]);
const MARGIN = gold(27.006, '%', 'ratio', [
  ['profit FY24', 20751.36, 'INR crore'],
  ['revenue FY24', 76840.49, 'INR crore'],
]);
const GROWTH = gold(0.4212, '%', 'growth', [
  ['revenue FY24', 76840.49, 'INR crore'],
  ['revenue FY23', 76518.21, 'INR crore'],
]);
const DIVIDEND = gold(10.75, 'INR per share', 'sum', [
  ['interim', 4.25, 'INR per share'],
  ['final', 6.5, 'INR per share'],
]);
const SEGMENT_SUM = gold(32985.96, 'INR crore', 'sum', [
  ['FMCG', 29996.48, 'INR crore'],
  ['Hotels', 2989.48, 'INR crore'],
]);

const figure = (text: string): Quantity => {
  const [q] = extractQuantities(text);
  if (!q) throw new Error(`no figure in ${text}`);
  return q;
};
const derived = (answer: string, g: DerivableGold, passages = [RELIANCE, TATA, ITC, SEGMENTS]) =>
  derivedFromPassages(figure(answer), [g], passages);

describe('derive: the four operations', () => {
  it('sum, difference, ratio and growth; ratio and growth in per cent for a % figure', () => {
    expect(derive('sum', [1, 2, 3.5], 'INR crore')).toBe(6.5);
    expect(derive('difference', [10, 4], 'INR crore')).toBe(6);
    expect(derive('ratio', [1, 4], '%')).toBe(25);
    expect(derive('ratio', [1, 4], 'text')).toBe(0.25);
    expect(derive('growth', [110, 100], '%')).toBeCloseTo(10, 12);
    expect(derive('growth', [-90, -100], '%')).toBeCloseTo(10, 12);
  });

  it('a recorded derivation reproduces its value within tolerance, else it does not', () => {
    expect(derivationReproduces(DIFFERENCE)).toMatchObject({ ok: true });
    expect(derivationReproduces({ ...DIFFERENCE, value: 480000 })).toMatchObject({ ok: true }); // 0.7% < 1%
    expect(derivationReproduces({ ...DIFFERENCE, value: 500000 }).ok).toBe(false);
    expect(derivationReproduces({ ...DIFFERENCE, value: 476544.1, tolerance: 0 }).ok).toBe(false);
    expect(derivationReproduces({ ...DIFFERENCE, value: 476544.2, tolerance: 0 }).ok).toBe(true); // as written
    expect(derivationReproduces({ ...DIFFERENCE, tolerance: 0 }).ok).toBe(true);
  });
});

describe('derivedFromPassages: the answer figure is the recorded arithmetic over printed figures', () => {
  it('a difference across two passages, to the paisa, or rounded as written', () => {
    const d = derived('Rs 4,76,544.23 crore', DIFFERENCE);
    expect(d?.formula).toBe('Rs 9,14,472.00 crore - Rs 4,37,927.77 crore');
    expect(d?.operands.map((o) => o.passageId)).toEqual([RELIANCE.id, TATA.id]);
    expect(derived('Rs 4.77 lakh crore', DIFFERENCE)).not.toBeNull();
    expect(derived('Rs 4,76,544 crore', DIFFERENCE)).not.toBeNull();
    expect(derived('4,76,544.23', DIFFERENCE)).not.toBeNull(); // a bare figure in the gold's unit
  });

  it('wrong arithmetic is not derived, however close', () => {
    expect(derived('Rs 4,76,544.32 crore', DIFFERENCE)).toBeNull();
    expect(derived('Rs 4,76,454.23 crore', DIFFERENCE)).toBeNull();
    expect(derived('Rs 4.76 lakh crore', DIFFERENCE)).toBeNull();
    expect(derived('Rs 13,52,399.77 crore', DIFFERENCE)).toBeNull(); // the sum, not the difference
  });

  it('an operand no passage prints: not derived', () => {
    expect(derived('Rs 4,76,544.23 crore', DIFFERENCE, [RELIANCE, ITC])).toBeNull();
    expect(printedOperands(DIFFERENCE.derivation as FigureDerivation, [RELIANCE])).toBeNull();
  });

  it('a ratio and a growth in per cent, at the precision written', () => {
    expect(derived('27.0%', MARGIN)?.formula).toBe('Rs 20,751.36 crore / Rs 76,840.49 crore');
    expect(derived('27.01%', MARGIN)).not.toBeNull();
    expect(derived('27.1%', MARGIN)).toBeNull();
    expect(derived('0.4%', GROWTH)).not.toBeNull();
    expect(derived('0.42%', GROWTH)).not.toBeNull();
    expect(derived('0.5%', GROWTH)).toBeNull();
  });

  it('a difference or growth written as its magnitude ("fell by") is derived; a sum is not signed so', () => {
    const fall = gold(-322.28, 'INR crore', 'difference', [
      ['revenue FY23', 76518.21, 'INR crore'],
      ['revenue FY24', 76840.49, 'INR crore'],
    ]);
    expect(derived('Rs 322.28 crore', fall)).not.toBeNull();
    expect(derived('Rs -322.28 crore', fall)).not.toBeNull();
    expect(derived('Rs 322.27 crore', fall)).toBeNull();
  });

  it('a sum per share, and a sum of bare table cells under a stated unit', () => {
    expect(derived('Rs 10.75 per share', DIVIDEND)?.formula).toBe(
      'Rs 4.25 per equity share + Rs 6.50 per equity share',
    );
    expect(derived('Rs 10.70 per share', DIVIDEND)).toBeNull();
    expect(derived('Rs 32,985.96 crore', SEGMENT_SUM)?.formula).toBe('29,996.48 + 2,989.48');
  });

  it('an operand with one significant digit is still an operand ("Rs 0.07")', () => {
    const eps = gold(0.06, 'INR per share', 'difference', [
      ['EPS FY24', 0.13, 'INR per share'],
      ['EPS FY23', 0.07, 'INR per share'],
    ]);
    const passages = [
      { id: 'a', text: 'Consolidated basic earnings per share for FY24 were Rs 0.13.' },
      { id: 'b', text: 'Consolidated basic earnings per share for FY23 were Rs 0.07.' },
    ];
    expect(derived('Rs 0.06', eps, passages)?.formula).toBe('Rs 0.13 - Rs 0.07');
    expect(derived('Rs 0.05', eps, passages)).toBeNull();
  });

  it('a figure in another unit than the gold is not it; a question without a derivation derives nothing', () => {
    expect(derived('27.0 tCO2e', MARGIN)).toBeNull();
    expect(derived('USD 4,76,544.23 million', DIFFERENCE)).toBeNull();
    expect(
      derivedFromPassages(
        figure('Rs 4,76,544.23 crore'),
        [{ ...DIFFERENCE, derivation: undefined }],
        [RELIANCE, TATA],
      ),
    ).toBeNull();
  });
});

describe('printed precision', () => {
  it('half a unit of the last digit written; an integer ending in zeros is a round number, to 1%', () => {
    expect(printedHalfUnit(figure('Rs 9,14,472.00 crore'))).toBeCloseTo(0.005 * 1e7, 6);
    expect(printedHalfUnit(figure('Rs 9.14 lakh crore'))).toBeCloseTo(0.005 * 1e12, 0);
    expect(printedHalfUnit(figure('27.0%'))).toBeCloseTo(0.05, 12);
    expect(printedHalfUnit(figure('4,208 people'))).toBe(0.5);
    expect(printedHalfUnit(figure('Rs 9,15,000 crore'))).toBeCloseTo(9150 * 1e7, 0);
    expect(printedHalfUnit(figure('Rs 20,000 crore'))).toBeCloseTo(200 * 1e7, 0);
    expect(printedHalfUnit(figure('Rs 10 crore'))).toBe(0.5 * 1e7);
  });

  it('the same figure as printed: agree to the precision each is written with', () => {
    const same = (a: string, b: string) => samePrinted(figure(a), figure(b));
    expect(same('Rs 9.14 lakh crore', 'Rs 9,14,472.00 crore')).toBe(true);
    expect(same('Rs 9,14,472.00 crore', '9,14,472.00')).toBe(true); // a bare table cell
    expect(same('Rs 19,446.49 crore', 'Rs 19,476.72 crore')).toBe(false); // 0.2% apart
    expect(same('USD 20,573 million', '20,490.48')).toBe(false);
    expect(same('27.0%', '27.0 per cent')).toBe(true);
    expect(same('about Rs 9,15,000 crore', 'Rs 9,14,472.00 crore')).toBe(true); // a round number
    expect(same('Rs 9,33,000 crore', 'Rs 9,14,472.00 crore')).toBe(false); // 2% away
    expect(same('Rs 9,14,472.00 crore', '9,14,472.00%')).toBe(false);
    // two roundings that only touch (at 0.065) are two figures
    expect(same('Rs 0.06', 'Rs 0.07')).toBe(false);
  });
});

describe('passageUnits: what a quote may be, whole', () => {
  it('joins wrapped prose lines into sentences; keeps table rows and headings whole; offsets point into the text', () => {
    const text = [
      '2. FINANCIAL HIGHLIGHTS',
      'Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore, compared with Rs 8,92,944.00',
      'crore in FY23. Standalone revenue was Rs 5,47,942.00 crore.',
      'Standalone results | Q4 FY24 (quarter) | FY24 (full year)',
      'Revenue from operations | 1,51,014.00 | 5,47,942.00',
    ].join('\n');
    const units = passageUnits(text);
    expect(units.map((u) => [u.kind, u.text])).toEqual([
      ['heading', '2. FINANCIAL HIGHLIGHTS'],
      [
        'sentence',
        'Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore, compared with Rs 8,92,944.00 crore in FY23.',
      ],
      ['sentence', 'Standalone revenue was Rs 5,47,942.00 crore.'],
      ['row', 'Standalone results | Q4 FY24 (quarter) | FY24 (full year)'],
      ['row', 'Revenue from operations | 1,51,014.00 | 5,47,942.00'],
    ]);
    for (const u of units) expect(text.slice(u.start, u.end).replace(/\s+/g, ' ')).toBe(u.text);
  });
});
