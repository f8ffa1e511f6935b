import { describe, expect, it } from 'vitest';
import { calibrationVerdict, dimension } from '../../src/providers/heuristic/common.ts';
import type { JudgeInput } from '../../src/providers/types.ts';

const gold =
  'Consolidated revenue from operations for FY24 was Rs 26,710.56 crore, compared with Rs 20,851.91 crore in FY23.';
const base: JudgeInput = {
  kind: 'judge',
  questionId: 'gd-001',
  question: "What was Adani Ports' consolidated revenue from operations for FY24?",
  category: 'grounded-direct',
  expectedBehavior: 'answer',
  goldAnswer: 'Rs 26,710.56 crore',
  goldQuotes: [gold],
  numericGold: [{ label: 'revenue', value: 26710.56, unit: 'INR crore', tolerance: 0.01 }],
  chunks: [
    {
      id: 'adani-ports-FY24-00000001',
      company: 'adani-ports',
      fy: 'FY24',
      heading: null,
      pages: [3, 3],
      text: gold,
    },
  ],
  answer: '',
};
const score = (s: 0 | 1 | 2) => dimension(s, '', []);

describe('heuristic calibration', () => {
  it('gives a confidently wrong answer 0 and a hedged wrong one 1', () => {
    const wrong = { ...base, answer: 'Revenue was Rs 20,851.91 crore [adani-ports-FY24-00000001].' };
    expect(calibrationVerdict(wrong, score(0), score(2)).score).toBe(0);
    const hedged = {
      ...wrong,
      answer: 'Revenue was approximately Rs 20,851.91 crore, it appears [adani-ports-FY24-00000001].',
    };
    expect(calibrationVerdict(hedged, score(0), score(2)).score).toBe(1);
  });

  it('gives a plain correct answer 2', () => {
    const right = { ...base, answer: 'Rs 26,710.56 crore [adani-ports-FY24-00000001].' };
    expect(calibrationVerdict(right, score(2), score(2)).score).toBe(2);
  });

  it('calls declining over-refusal when the chunks hold the gold, and defensible when retrieval missed it', () => {
    const declined = { ...base, answer: 'The provided context does not state this.' };
    expect(calibrationVerdict(declined, score(0), score(2)).score).toBe(0);
    const missed = {
      ...declined,
      chunks: [{ ...base.chunks[0], text: 'Unrelated text about dividends.' }],
    } as JudgeInput;
    expect(calibrationVerdict(missed, score(0), score(2)).score).toBe(1);
  });
});
