/**
 * FinanceBench's answers read as figures (parseFinanceBenchFigure). Importing the public question sets
 * over the staged PDFs of ../shared/corpus is test/questions/import-shared.integration.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseFinanceBenchFigure } from '../../src/questions/index.ts';

describe('parseFinanceBenchFigure', () => {
  it.each([
    [
      '$1577.00',
      'What is the FY2018 capital expenditure amount (in USD millions) for 3M?',
      1577,
      'USD million',
    ],
    [
      '$4.60',
      'What is the FY2021 capital expenditure amount (in USD billions) for PepsiCo?',
      4600,
      'USD million',
    ],
    ['16.5%', 'What is the FY2022 operating margin?', 16.5, '%'],
    ['-$0.4 billion', 'What was the change?', -400, 'USD million'],
    ['$(1,234)', 'Answer in USD millions.', -1234, 'USD million'],
  ])('%s', (answer, question, value, unit) => {
    expect(parseFinanceBenchFigure(answer, question)).toEqual({ value, unit });
  });

  it('gives null for prose and for dollar figures of unknown scale', () => {
    expect(parseFinanceBenchFigure('Yes, the margins improved.', 'Did margins improve?')).toBeNull();
    expect(parseFinanceBenchFigure('$8.70', 'What was diluted EPS in FY2022?')).toBeNull();
  });
});
