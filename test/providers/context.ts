/** A small hand-made context in the fixture reports' shape, for provider and prompt tests. */
import type { ContextChunk, SubjectInput } from '../../src/providers/types.ts';

export const HIGHLIGHTS: ContextChunk = {
  id: 'adani-ports-FY24-3e61eaeb',
  company: 'adani-ports',
  fy: 'FY24',
  heading: 'ADANI PORTS AND SPECIAL ECONOMIC ZONE LIMITED',
  pages: [1, 6],
  text: [
    'ADANI PORTS AND SPECIAL ECONOMIC ZONE LIMITED',
    'Annual Report 2023-24',
    "1. CHAIRPERSON'S LETTER",
    'Dear Shareholders, it is my privilege to present the annual report of Adani Ports and Special Economic Zone',
    'Limited for the financial year 2023-24.',
    'Consolidated revenue from operations grew by 28.1% over the previous year, reflecting broad-based',
    'demand across our businesses.',
    'Kiran J. Parekh, Chairperson',
    '2. FINANCIAL HIGHLIGHTS',
    'Consolidated revenue from operations for FY24 was Rs 26,710.56 crore, compared with Rs 20,851.91 crore',
    'in FY23.',
    'Standalone revenue from operations for FY24 was Rs 6,806.66 crore.',
    'Consolidated basic earnings per share for FY24 were Rs 37.55.',
    '3. CONSOLIDATED STATEMENT OF PROFIT AND LOSS',
    'Consolidated results | Q4 FY24 (quarter) | FY24 (full year) | FY23 (full year)',
    'Revenue from operations | 6,896.50 | 26,710.56 | 20,851.91',
    'Consolidated revenue from operations for the quarter ended 31 March 2024 (Q4 FY24) was Rs 6,896.50',
    'crore.',
  ].join('\n'),
};

export const GOVERNANCE: ContextChunk = {
  id: 'adani-ports-FY24-30a7485a',
  company: 'adani-ports',
  fy: 'FY24',
  heading: '4. CONSOLIDATED STATEMENT OF PROFIT AND LOSS',
  pages: [5, 11],
  text: [
    '6. DIVIDENDS',
    'During FY24 the Board declared an interim dividend of Rs 2.50 per equity share.',
    'The Board has recommended a final dividend of Rs 3.50 per equity share for FY24, subject to approval by',
    'shareholders.',
    '7. RESEARCH AND DEVELOPMENT',
    'Expenditure on research and development in FY24 was Rs 38.10 crore.',
    '8. ENVIRONMENT, SOCIAL AND GOVERNANCE',
    'Scope 1 and 2 greenhouse gas emissions in FY24 were 9,61,189 tCO2e.',
    'Emission intensity in FY24 was 35.99 tCO2e per Rs crore of revenue from operations.',
    'The group employed 4,990 people as on 31 March 2024.',
    '10. CORPORATE GOVERNANCE',
    'Kiran J. Parekh is the Chairperson of the Board of Adani Ports and Special Economic Zone Limited.',
    'Desai Raval & Associates are the statutory auditors of the Company for FY24.',
    'Mundra Fixture Logistics Limited, a wholly owned subsidiary, reported revenue from operations of Rs',
    '6,557.34 crore in FY24.',
    '11. INDUSTRY CONTEXT',
    'For context, ITC Limited reported consolidated revenue from operations of Rs 76,840.49 crore for FY24 and',
    'a consolidated profit of Rs 20,458.78 crore.',
  ].join('\n'),
};

export const CHUNKS: readonly ContextChunk[] = [HIGHLIGHTS, GOVERNANCE];

export function ask(
  question: string,
  chunks: readonly ContextChunk[] = CHUNKS,
  questionId = 'q-1',
): SubjectInput {
  return { kind: 'subject', questionId, question, chunks };
}
