import { describe, expect, it } from 'vitest';
import { bm25Scores, buildBm25Stats, termCounts } from '../../src/retrieval/bm25.ts';
import { expandQuery, queryExpansions, stripAnswerInstructions } from '../../src/retrieval/query.ts';

/** Ranks passages for a question as the bm25 embedder queries (expanded), ids = positions. */
function rank(question: string, passages: readonly string[]): number[] {
  const stats = buildBm25Stats(
    passages.map((_, i) => String(i)),
    passages.map((p) => termCounts(p)),
    1.2,
    0.75,
  );
  return [...bm25Scores(stats, termCounts(expandQuery(question))).entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([doc]) => Number(stats.ids[doc]));
}

// three pages of a 10-K, in the words filings use; none says "quick ratio", "capex" or "SG&A"
const BALANCE_SHEET =
  'Consolidated Balance Sheets. Cash and cash equivalents 689 775. Trade receivables, net 1,875 1,935. Inventories 2,213 2,439. Total current assets 5,308 5,853. Total current liabilities 5,140 5,451.';
const CASH_FLOWS =
  'Consolidated Statement of Cash Flows. Investing Activities. Capital spending (5,207) (4,625). Sales of property, plant and equipment 251 166.';
const RISK =
  'A financial analyst would ask whether the company can meet its obligations; we state our liquidity risk management policy and explain why it is useful.';
const EXPENSES =
  'Selling, general and administrative expenses increased 4% as a percent of sales, driven by higher wages.';

describe('query expansion', () => {
  it('adds the line items a ratio is computed from, so the statement that holds them is found', () => {
    const q =
      'Has the quick ratio improved or declined between FY2023 and FY2022? If the quick ratio is not something that a financial analyst would ask about a company like this, then state that and explain why.';
    expect(rank(q, [BALANCE_SHEET, CASH_FLOWS, RISK])[0]).toBe(0);
    // without handling, the question's instruction words pull the wrong page first
    const plain = [BALANCE_SHEET, CASH_FLOWS, RISK];
    const stats = buildBm25Stats(
      ['0', '1', '2'],
      plain.map((p) => termCounts(p)),
      1.2,
      0.75,
    );
    const scores = bm25Scores(stats, termCounts(q));
    expect((scores.get(2) ?? 0) > (scores.get(0) ?? 0)).toBe(true);
  });

  it('spells out abbreviations the tokenizer would cut up', () => {
    expect(rank('What drove SG&A as a percent of net sales?', [CASH_FLOWS, EXPENSES])[0]).toBe(1);
    expect(rank('What was the capex in FY2022?', [EXPENSES, CASH_FLOWS])[0]).toBe(1);
    expect(queryExpansions('D&A and M&A')).toEqual([
      'depreciation amortization',
      'mergers acquisitions divestitures',
    ]);
  });

  it('matches whole words only, case-insensitively', () => {
    expect(queryExpansions('Describe the EPS trend')).toEqual(['earnings per share diluted']);
    expect(queryExpansions('steps and reps')).toEqual([]);
    expect(queryExpansions('What is the weather?')).toEqual([]);
  });

  it('keeps the question and appends the expansions', () => {
    expect(expandQuery('What was the effective tax rate?')).toBe(
      'What was the effective tax rate?\nprovision for income taxes income before income taxes consolidated statement of income operations earnings profit loss',
    );
    expect(expandQuery('Who are the customers?')).toBe('Who are the customers?');
  });
});

describe('answer-format instructions', () => {
  it('drops sentences that say how to answer, keeps those that say what to find', () => {
    expect(
      stripAnswerInstructions(
        'What is the FY2021 capital expenditure? Respond to the question by assuming the perspective of an investment analyst.',
      ),
    ).toBe('What is the FY2021 capital expenditure?');
    expect(
      stripAnswerInstructions(
        'Does the company have an improving gross margin? If gross margin is not a useful metric for a company like this, then state that and explain why.',
      ),
    ).toBe('Does the company have an improving gross margin?');
    expect(stripAnswerInstructions('What is EBITDA less capex? Answer in USD millions.')).toBe(
      'What is EBITDA less capex?',
    );
    expect(stripAnswerInstructions('If revenue grew, what drove it?')).toBe(
      'If revenue grew, what drove it?',
    );
  });

  it('never leaves an empty query', () => {
    expect(stripAnswerInstructions('Answer in USD millions.')).toBe('Answer in USD millions.');
  });

  it('still expands what a dropped instruction names', () => {
    const q =
      'What is the FY2021 capital expenditure? Respond using only the details shown within the statement of cash flows.';
    expect(expandQuery(q)).toContain('consolidated statement of cash flows');
    expect(expandQuery(q).startsWith('What is the FY2021 capital expenditure?\n')).toBe(true);
  });
});
