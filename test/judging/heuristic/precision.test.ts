/**
 * The numeric judge holds a figure where a chunk prints that figure, to the precision each is written
 * with (issue 51, item 6): within 1% was too loose, so "Rs 19,446.49 crore" was held, and quoted, by a
 * profit sentence's "Rs 19,476.72 crore", and "USD 20,573 million" by a table cell 20,490.48. A
 * rounding ("Rs 9.14 lakh crore", "about Rs 9,15,000 crore") is still the figure.
 */
import { describe, expect, it } from 'vitest';
import { numericVerdict } from '../../../src/judging/heuristic/index.ts';
import type { ContextChunk, JudgeInput } from '../../../src/providers/types.ts';

const ITC: ContextChunk = {
  id: 'itc-FY24-77695b72',
  company: 'itc',
  fy: 'FY24',
  heading: null,
  pages: [2, 3],
  text: [
    'Consolidated profit for the year FY24 was Rs 20,751.36 crore, against Rs 19,476.72 crore in FY23.',
    'Consolidated revenue from operations for the quarter ended 31 March 2024 (Q4 FY24) was Rs',
    '19,446.49 crore.',
    'Segment | Revenue | Share (%)',
    'Treasury | 20,490.48 | 12.0',
    'Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore.',
  ].join('\n'),
};

const input = (answer: string): JudgeInput => ({
  kind: 'judge',
  questionId: 'adv-015',
  question: "What was ITC Limited's consolidated revenue from operations for Q4 FY24?",
  category: 'adversarial',
  expectedBehavior: 'answer',
  goldAnswer: 'Rs 19,446.49 crore',
  goldQuotes: [],
  numericGold: [],
  chunks: [ITC],
  answer,
});
const grounding = (answer: string) => numericVerdict(input(answer)).grounding;

describe('the numeric judge: figures agree to their printed precision', () => {
  it('quotes the sentence that prints the figure, whole, not a figure 0.2% away', () => {
    const g = grounding(
      `Consolidated revenue from operations for Q4 FY24 was Rs 19,446.49 crore [${ITC.id}].`,
    );
    expect(g.score).toBe(2);
    expect(g.evidence).toEqual([
      'Consolidated revenue from operations for the quarter ended 31 March 2024 (Q4 FY24) was Rs 19,446.49 crore.',
    ]);
  });

  it('a figure no chunk prints is not held by a near one: 0.2% off, or a table cell 0.4% off', () => {
    expect(grounding(`Q4 FY24 revenue was Rs 19,456.49 crore [${ITC.id}].`).score).toBe(0);
    expect(grounding(`Revenue was about USD 20,573 million [${ITC.id}].`).score).toBe(0);
  });

  it('a rounding of the printed figure is held: in lakh crore, or as a round number', () => {
    for (const figure of ['Rs 9.14 lakh crore', 'about Rs 9,15,000 crore', 'Rs 9,14,472 crore'])
      expect(grounding(`Consolidated revenue for FY24 was ${figure} [${ITC.id}].`).score, figure).toBe(2);
    expect(grounding(`Consolidated revenue for FY24 was Rs 9,33,000 crore [${ITC.id}].`).score).toBe(0);
  });
});
