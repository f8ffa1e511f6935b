/**
 * Query handling for lexical retrieval: a question names a figure the way an analyst does ("quick
 * ratio", "capex", "SG&A", "P&L"), a filing prints the line items it is computed from ("Total current
 * assets", "Purchases of property, plant and equipment", "Selling, general and administrative
 * expenses", "Consolidated Statement of Income"). `expandQuery` appends those line-item words, so BM25
 * can match the statement that holds the figure.
 *
 * The vocabulary is general finance vocabulary, each entry from one of these sources (the key after
 * each entry), never a fix for a question that missed:
 * - [CFA] CFA Institute, CFA Program curriculum, Financial Statement Analysis, "Financial Analysis
 *   Techniques" (Robinson, Henry, Pirie and Broihahn): the definitions of the activity, liquidity,
 *   solvency and profitability ratios (inventory turnover = cost of sales / inventory; quick ratio =
 *   (cash + short-term marketable investments + receivables) / current liabilities; interest coverage =
 *   EBIT / interest; fixed asset turnover = revenue / net fixed assets; ...) and the per-share measures.
 * - [IAS1] IAS 1 Presentation of Financial Statements, paragraph 10: the statements of a complete set
 *   and the other titles they go by ("balance sheet", "statement of financial position"); with the
 *   US titles of Regulation S-X, Article 5 ("statements of operations", "statements of earnings") and
 *   India's Schedule III to the Companies Act 2013 ("Statement of Profit and Loss").
 * - [10K] SEC Form 10-K, the item titles (Item 3 "Legal Proceedings").
 * - [ASC] FASB Accounting Standards Codification topic titles (450 Contingencies, 805 Business
 *   Combinations).
 * - [ABBR] the abbreviations' written-out forms, as any financial glossary gives them.
 * Changing it changes what a question retrieves: bump BM25_QUERY_VERSION (bm25.ts).
 *
 * Expansion only adds words; of the question's own words only answer-format instructions are dropped.
 */

interface Expansion {
  /** what the question says (matched case-insensitively on word boundaries) */
  readonly when: RegExp;
  /** the words a filing uses for it */
  readonly add: string;
  /** where the vocabulary comes from (see the file comment) */
  readonly source: 'CFA' | 'IAS1' | '10K' | 'ASC' | 'ABBR';
}

// [IAS1]: the primary statements under their US, IFRS and Indian titles
const INCOME_STATEMENT = 'consolidated statement of income operations earnings profit loss';
const BALANCE_SHEET = 'consolidated balance sheet financial position total assets liabilities';
const CASH_FLOW_STATEMENT = 'consolidated statement of cash flows operating investing financing activities';

/** Abbreviations that the tokenizer would otherwise cut into meaningless pieces ("SG&A" -> "sg"). */
const ABBREVIATIONS: readonly Expansion[] = [
  { when: /\bsg\s?&\s?a\b/i, add: 'selling general administrative expenses', source: 'ABBR' },
  { when: /\bd\s?&\s?a\b/i, add: 'depreciation amortization', source: 'ABBR' },
  { when: /\bm\s?&\s?a\b/i, add: 'mergers acquisitions divestitures', source: 'ABBR' },
  { when: /\br\s?&\s?d\b/i, add: 'research development expenses', source: 'ABBR' },
  { when: /\bp\s?&\s?l\b|\bprofit and loss\b/i, add: INCOME_STATEMENT, source: 'ABBR' },
  { when: /\bpp\s?&\s?e\b/i, add: 'property plant equipment', source: 'ABBR' },
  { when: /\beps\b/i, add: 'earnings per share diluted', source: 'ABBR' },
  { when: /\bfx\b/i, add: 'foreign currency exchange translation', source: 'ABBR' },
  {
    when: /\bcapex\b|\bcapital expenditures?\b/i,
    add: 'capital spending purchases additions property plant equipment',
    source: 'ABBR',
  },
  { when: /\bcogs\b/i, add: 'cost of goods sold sales', source: 'ABBR' },
  { when: /\bebitda\b/i, add: 'operating income profit depreciation amortization', source: 'ABBR' },
  { when: /\bebit\b/i, add: 'operating income profit earnings before interest taxes', source: 'ABBR' },
  { when: /\byoy\b|\by-o-y\b/i, add: 'year over year change', source: 'ABBR' },
];

/** Ratios and measures an analyst asks for, with the line items they are computed from. */
const MEASURES: readonly Expansion[] = [
  // profitability
  {
    when: /\bgross (?:profit )?margins?\b/i,
    add: `gross profit cost of sales revenue net sales ${INCOME_STATEMENT}`,
    source: 'CFA',
  },
  {
    when: /\boperating (?:profit )?margins?\b/i,
    add: `operating income profit revenue net sales ${INCOME_STATEMENT}`,
    source: 'CFA',
  },
  {
    when: /\bpre-?tax (?:profit )?margins?\b/i,
    add: `income before income taxes revenue net sales ${INCOME_STATEMENT}`,
    source: 'CFA',
  },
  {
    when: /\bnet (?:profit )?margins?\b|\bprofit margins?\b/i,
    add: `net income revenue net sales ${INCOME_STATEMENT}`,
    source: 'CFA',
  },
  {
    when: /\breturn on (?:total )?assets\b|\broa\b/i,
    add: `total assets net income ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  {
    when: /\breturn on (?:shareholders'? |stockholders'? |common )?equity\b|\broe\b/i,
    add: `net income shareholders equity ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  // liquidity
  {
    when: /\bquick ratio\b|\bacid[- ]test\b/i,
    add: `current assets current liabilities cash receivables marketable securities ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  {
    when: /\bcash ratio\b/i,
    add: `cash equivalents marketable securities current liabilities ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  {
    when: /\bcurrent ratio\b|\bworking capital\b|\bliquidity\b/i,
    add: `current assets current liabilities ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  // activity
  {
    when: /\binventory turnover\b|\bdays (?:of )?inventory\b|\binventory days\b/i,
    add: `cost of sales inventories ${BALANCE_SHEET} ${INCOME_STATEMENT}`,
    source: 'CFA',
  },
  {
    when: /\breceivables? turnover\b|\bdays sales outstanding\b|\bdso\b|\bdays (?:of )?receivables?\b/i,
    add: `accounts receivable revenue ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  {
    when: /\bpayables? turnover\b|\bdays payables?(?: outstanding)?\b|\bdpo\b/i,
    add: `accounts payable cost of sales purchases ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  {
    when: /\b(?:total )?asset turnover\b/i,
    add: `total assets revenue net sales ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  {
    when: /\bfixed asset turnover\b|\bfixed assets?\b|\bcapital[- ]intensi(?:ve|ty)\b/i,
    add: `property plant equipment capital expenditures revenue total assets ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  // solvency
  {
    when: /\bdebt[- ]to[- ](?:equity|assets|capital)\b|\bleverage\b|\bgearing\b/i,
    add: `long-term debt borrowings total assets shareholders equity ${BALANCE_SHEET}`,
    source: 'CFA',
  },
  {
    when: /\binterest coverage\b|\btimes interest earned\b/i,
    add: `operating income interest expense ${INCOME_STATEMENT}`,
    source: 'CFA',
  },
  {
    when: /\beffective tax rate\b/i,
    add: `provision for income taxes income before income taxes ${INCOME_STATEMENT}`,
    source: 'CFA',
  },
  // cash flow and per-share measures
  {
    when: /\bfree cash flows?\b/i,
    add: `net cash provided by operating activities capital spending purchases property plant equipment ${CASH_FLOW_STATEMENT}`,
    source: 'CFA',
  },
  {
    when: /\bdividend payout\b|\bdividends? per share\b/i,
    add: 'dividends paid declared per share net income',
    source: 'CFA',
  },
  // the statements, by their other titles
  {
    when: /\bincome statements?\b|\bstatements? of (?:income|operations|earnings|profit and loss)\b/i,
    add: INCOME_STATEMENT,
    source: 'IAS1',
  },
  {
    when: /\bbalance sheets?\b|\bstatements? of financial position\b/i,
    add: BALANCE_SHEET,
    source: 'IAS1',
  },
  {
    when: /\bcash flow statements?\b|\bstatements? of cash flows?\b/i,
    add: CASH_FLOW_STATEMENT,
    source: 'IAS1',
  },
  // the sections a 10-K files them under, by their codification and item titles
  {
    when: /\blegal (?:battles?|proceedings?|cases?|disputes?|matters?|actions?)\b|\blawsuits?\b|\blitigation\b/i,
    add: 'legal proceedings litigation claims contingencies',
    source: '10K',
  },
  {
    when: /\bacquisitions?\b|\bacquired\b/i,
    add: 'acquisitions acquired business combinations purchase price',
    source: 'ASC',
  },
];

/** The expansions that apply to a question, in table order, each once. */
export function queryExpansions(question: string): string[] {
  const out: string[] = [];
  for (const e of [...ABBREVIATIONS, ...MEASURES]) if (e.when.test(question)) out.push(e.add);
  return out;
}

/**
 * Sentences that tell the answerer how to answer, not what to find: "Respond to the question by
 * assuming the perspective of ...", "Answer in USD millions.", "If gross margin is not a useful metric
 * for a company like this, then state that and explain why." Their words ("useful", "company",
 * "explain", "perspective") match passages at random.
 */
const ANSWER_INSTRUCTION: readonly RegExp[] = [
  /^(?:please\s+)?(?:respond|answer|reply)\b/i,
  /^(?:please\s+)?(?:give|provide) (?:a|an|your) (?:response|answer)\b/i,
  /^if\b.*\b(?:not|n't|no)\b.*\b(?:state|say)\b/i,
];

/** The question without its answer-format instructions (the whole question if nothing else is left). */
export function stripAnswerInstructions(question: string): string {
  const sentences = question.split(/(?<=[.?!;])\s+/);
  const kept = sentences.filter((s) => !ANSWER_INSTRUCTION.some((re) => re.test(s.trim())));
  return kept.length === 0 ? question : kept.join(' ');
}

/**
 * The query BM25 is given: the question without answer-format instructions, followed by the words of
 * the expansions of the whole question (an instruction may still name the statement to look in).
 */
export function expandQuery(question: string): string {
  const extra = queryExpansions(question);
  const core = stripAnswerInstructions(question);
  return extra.length === 0 ? core : `${core}\n${extra.join('\n')}`;
}
