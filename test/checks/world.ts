/** Chunks and questions shaped like the fixture world's (texts copied from the generated chunks). */
import type { ContextChunk } from '../../src/providers/types.ts';
import { Question, type QuestionInput } from '../../src/questions/schema.ts';

export const HIGHLIGHTS: ContextChunk = {
  id: 'reliance-FY24-4fc8a6ad',
  company: 'reliance',
  fy: 'FY24',
  heading: 'RELIANCE INDUSTRIES LIMITED',
  pages: [1, 3],
  text: [
    'Aravind K. Menon, Chairperson',
    '2. FINANCIAL HIGHLIGHTS',
    'Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore, compared with Rs 8,92,944.00',
    'crore in FY23.',
    'Standalone revenue from operations for FY24 was Rs 5,47,942.00 crore.',
    'Consolidated profit for the year FY24 was Rs 79,020.00 crore, against Rs 74,088.00 crore in FY23.',
    'Standalone profit for the year FY24 was Rs 42,042.00 crore.',
    'Consolidated basic earnings per share for FY24 were Rs 102.90.',
    'Standalone results | Q4 FY24 (quarter) | FY24 (full year) | FY23 (full year)',
    'Revenue from operations | 1,51,014.00 | 5,47,942.00 | 5,20,112.00',
  ].join('\n'),
};

export const SEGMENTS: ContextChunk = {
  id: 'reliance-FY24-9bf74d05',
  company: 'reliance',
  fy: 'FY24',
  heading: '4. CONSOLIDATED STATEMENT OF PROFIT AND LOSS',
  pages: [4, 8],
  text: [
    'The Oil to Chemicals segment reported revenue of Rs 5,39,538.48 crore in FY24.',
    'The Retail segment reported revenue of Rs 2,37,762.72 crore in FY24.',
    'In US dollar terms, consolidated revenue from operations for FY24 was about USD 1,10,177 million, at an',
    'average exchange rate of Rs 83.00 per US dollar.',
    '6. DIVIDENDS',
    'During FY24 the Board declared an interim dividend of Rs 4.25 per equity share.',
    'The Board has recommended a final dividend of Rs 6.50 per equity share for FY24, subject to approval by',
    'shareholders.',
    'Scope 1 and 2 greenhouse gas emissions in FY24 were 6,54,61,462 tCO2e.',
    'The group employed 4,15,767 people as on 31 March 2024.',
    'Aravind K. Menon is the Chairperson of the Board of Reliance Industries Limited.',
    'Kothari Sen & Co LLP are the statutory auditors of the Company for FY24.',
  ].join('\n'),
};

export const ITC: ContextChunk = {
  id: 'itc-FY24-0c1d2e3f',
  company: 'itc',
  fy: 'FY24',
  heading: '2. FINANCIAL HIGHLIGHTS',
  pages: [2, 3],
  text: [
    'Consolidated revenue from operations for FY24 was Rs 76,840.49 crore, compared with Rs 76,518.21 crore',
    'in FY23.',
    'Consolidated profit for the year FY24 was Rs 20,751.36 crore, against Rs 19,191.66 crore in FY23.',
  ].join('\n'),
};

export const CHUNKS: readonly ContextChunk[] = [HIGHLIGHTS, SEGMENTS, ITC];

const base: QuestionInput = {
  version: 1,
  id: 'gd-900',
  category: 'grounded-direct',
  text: "What was Reliance Industries Limited's consolidated revenue from operations for FY24?",
  gold_answer: 'Rs 9,14,472.00 crore',
  gold_chunk_ids: [HIGHLIGHTS.id],
  gold_quotes: ['Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore'],
  expected_behavior: 'answer',
  companies: ['reliance'],
  fiscal_years: ['FY24'],
  difficulty: 'easy',
  authoring_notes: 'test',
  must_include: ['9,14,472.00'],
  must_not_include: ['5,47,942.00'],
  numeric_gold: [{ label: 'consolidated revenue', value: 914472, unit: 'INR crore', tolerance: 0.01 }],
  distractor: null,
};

export function question(overrides: Partial<QuestionInput> = {}): Question {
  return Question.parse({ ...base, ...overrides });
}

export const OOD = question({
  id: 'ood-900',
  category: 'out-of-domain',
  text: 'How much capital expenditure did Reliance Industries Limited incur in FY24?',
  gold_answer: 'The documents do not state this.',
  gold_chunk_ids: [],
  gold_quotes: [],
  expected_behavior: 'refuse',
  must_include: [],
  must_not_include: [],
  numeric_gold: [],
});
