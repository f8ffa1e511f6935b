import { describe, expect, it } from 'vitest';
import { hedgeLevel, isRefusal } from '../../src/analysis/refusal.ts';

describe('isRefusal', () => {
  it.each([
    "The documents do not state this; Reliance Industries Limited's FY24 report has no such figure, so the question should be declined.",
    'The provided context does not mention the capital expenditure of Reliance Industries Limited for FY24.',
    'The net debt of One97 Communications Limited (Paytm) is not mentioned in the retrieved excerpts.',
    'This cannot be determined from the context.',
    "I don't know.",
    'I do not know based on these documents.',
    'There is no information about quarterly revenue in the FY24 report [reliance-FY24-1a2b3c4d].',
    'The second-quarter revenue is not stated in the documents; they only cover the full year.',
    'Insufficient information to answer.',
    'I must decline: the annual report does not disclose the number of stores.',
    'The report is dated 31 March 2024 but does not report net debt.',
  ])('refusal: %s', (answer) => {
    expect(isRefusal(answer)).toBe(true);
  });

  it.each([
    'Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore [reliance-FY24-1a2b3c4d].',
    'Varma Iyer & Associates LLP are the statutory auditors of the Company for FY23.',
    'The context does not mention Q2 revenue, but full-year revenue was Rs 9,00,122.00 crore.',
    'The documents do not state the standalone figure. Consolidated revenue was Rs 9,14,472.00 crore.',
    'Not explicitly stated in the context; however, the group employed approximately 4,208 people.',
    '',
    '   ',
  ])('not a refusal: %s', (answer) => {
    expect(isRefusal(answer)).toBe(false);
  });
});

describe('hedgeLevel', () => {
  it.each([
    ['Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore.', 0],
    ['The Annual General Meeting was held in May 2024.', 0],
    ['The report was published about the company.', 0],
    ['Revenue was approximately Rs 2,512 million.', 1],
    ['A provision is recognised when a reliable estimate can be made of the amount.', 0],
    ['Capital expenditure is estimated at Rs 500 crore.', 1],
    ['In US dollar terms, revenue was about USD 2,512 million.', 1],
    ['The figure appears to be Rs 12.50 per equity share.', 1],
    ['It is likely that revenue grew by around 7.5%.', 1],
    ["I'm not sure, but it may be Rs 5 crore.", 2],
    ['It is unclear from the context which figure applies.', 2],
    ['It appears the dividend may have been roughly Rs 3.25 per share, possibly more.', 2],
  ] as const)('%s -> %s', (answer, level) => {
    expect(hedgeLevel(answer)).toBe(level);
  });
});
