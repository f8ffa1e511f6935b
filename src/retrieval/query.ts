/**
 * Query handling for lexical retrieval: a question names a figure the way an analyst does ("quick
 * ratio", "capex", "SG&A", "P&L"), a filing prints the line items it is computed from ("Total current
 * assets", "Purchases of property, plant and equipment", "Selling, general and administrative
 * expenses", "Consolidated Statement of Income"). `expandQuery` appends those line-item words, so BM25
 * can match the statement that holds the figure. The vocabulary is the textbook definition of each
 * ratio and the usual names of the primary statements, nothing learnt from a question set.
 *
 * Expansion only adds words; of the question's own words only answer-format instructions are dropped.
 */

interface Expansion {
  /** what the question says (matched case-insensitively on word boundaries) */
  readonly when: RegExp;
  /** the words a filing uses for it */
  readonly add: string;
}

const INCOME_STATEMENT = 'consolidated statement of income operations earnings';
const BALANCE_SHEET = 'consolidated balance sheet total assets liabilities';
const CASH_FLOW_STATEMENT = 'consolidated statement of cash flows operating investing financing activities';

/** Abbreviations that the tokenizer would otherwise cut into meaningless pieces ("SG&A" -> "sg"). */
const ABBREVIATIONS: readonly Expansion[] = [
  { when: /\bsg\s?&\s?a\b/i, add: 'selling general administrative expenses' },
  { when: /\bd\s?&\s?a\b/i, add: 'depreciation amortization' },
  { when: /\bm\s?&\s?a\b/i, add: 'mergers acquisitions divestitures' },
  { when: /\br\s?&\s?d\b/i, add: 'research development expenses' },
  { when: /\bp\s?&\s?l\b|\bprofit and loss\b/i, add: INCOME_STATEMENT },
  { when: /\bpp\s?&\s?e\b/i, add: 'property plant equipment' },
  { when: /\beps\b/i, add: 'earnings per share diluted' },
  { when: /\bfx\b/i, add: 'foreign currency exchange translation' },
  {
    when: /\bcapex\b|\bcapital expenditures?\b/i,
    add: 'capital spending purchases additions property plant equipment',
  },
  { when: /\bcogs\b/i, add: 'cost of goods sold sales' },
  { when: /\bebitda\b/i, add: 'operating income profit depreciation amortization' },
  { when: /\bebit\b/i, add: 'operating income profit earnings before interest taxes' },
  { when: /\byoy\b|\by-o-y\b/i, add: 'year over year change' },
];

/** Ratios and measures an analyst asks for, with the line items they are computed from. */
const MEASURES: readonly Expansion[] = [
  {
    when: /\bgross (?:profit )?margins?\b/i,
    add: `gross profit cost of sales revenue net sales ${INCOME_STATEMENT}`,
  },
  {
    when: /\boperating (?:profit )?margins?\b/i,
    add: `operating income profit revenue net sales ${INCOME_STATEMENT}`,
  },
  {
    when: /\bnet (?:profit )?margins?\b|\bprofit margins?\b/i,
    add: `net income revenue net sales ${INCOME_STATEMENT}`,
  },
  {
    when: /\bquick ratio\b|\bacid[- ]test\b/i,
    add: `current assets current liabilities cash receivables inventories ${BALANCE_SHEET}`,
  },
  {
    when: /\bcurrent ratio\b|\bworking capital\b|\bliquidity\b/i,
    add: `current assets current liabilities ${BALANCE_SHEET}`,
  },
  {
    when: /\binventory turnover\b|\bdays (?:of )?inventory\b|\bsold its inventory\b/i,
    add: `cost of sales inventories ${BALANCE_SHEET} ${INCOME_STATEMENT}`,
  },
  {
    when: /\breceivables? turnover\b|\bdays sales outstanding\b|\bdso\b/i,
    add: `accounts receivable revenue ${BALANCE_SHEET}`,
  },
  {
    when: /\bpayables? turnover\b|\bdays payables?\b|\bdpo\b/i,
    add: `accounts payable cost of sales ${BALANCE_SHEET}`,
  },
  {
    when: /\basset turnover\b|\breturn on (?:total )?assets\b|\broa\b/i,
    add: `total assets net income revenue ${BALANCE_SHEET}`,
  },
  {
    when: /\breturn on (?:shareholders'? |stockholders'? )?equity\b|\broe\b/i,
    add: `net income shareholders equity ${BALANCE_SHEET}`,
  },
  {
    when: /\bdebt[- ]to[- ]equity\b|\bleverage\b|\bgearing\b/i,
    add: `long-term debt borrowings shareholders equity ${BALANCE_SHEET}`,
  },
  { when: /\binterest coverage\b/i, add: `operating income interest expense ${INCOME_STATEMENT}` },
  {
    when: /\beffective tax rate\b/i,
    add: `provision for income taxes income before income taxes ${INCOME_STATEMENT}`,
  },
  {
    when: /\bfree cash flow\b/i,
    add: `net cash provided by operating activities capital spending purchases property plant equipment ${CASH_FLOW_STATEMENT}`,
  },
  { when: /\bdividend payout\b/i, add: 'dividends paid declared per share net income' },
  {
    when: /\bcapital[- ]intensive\b|\bfixed assets?\b/i,
    add: `property plant equipment capital expenditures total assets ${BALANCE_SHEET}`,
  },
  {
    when: /\bincome statements?\b|\bstatements? of (?:income|operations|earnings)\b/i,
    add: INCOME_STATEMENT,
  },
  { when: /\bbalance sheets?\b|\bstatements? of financial position\b/i, add: BALANCE_SHEET },
  { when: /\bcash flow statements?\b|\bstatements? of cash flows?\b/i, add: CASH_FLOW_STATEMENT },
  {
    when: /\blegal (?:battles?|proceedings?|cases?|disputes?)\b|\blawsuits?\b|\blitigation\b/i,
    add: 'legal proceedings litigation claims contingencies',
  },
  {
    when: /\bacquisitions?\b|\bacquired\b/i,
    add: 'acquisitions acquired business combinations purchase price',
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
