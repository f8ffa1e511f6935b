/**
 * rag-app's words: how it turns text into the terms its retriever indexes and its answerer matches, and
 * how it cuts a passage into sentences. Its own code (not rge's): lowercase words with a light suffix
 * stemmer, English stop words dropped, figures without their thousands separators ("1,18,240.50" and
 * "118240.50" are one term), a few synonyms, and fiscal years, quarters and units written several ways
 * made one term: "FY24", "2023-24" and "31 March 2024" are all `fy24`.
 */

const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers him his how i if in into is it its itself just me more most my no nor not now of
  off on once only or other our out over own same she should so some such than that the their them then
  there these they this those through to too under until up very was we were what when where which while
  who whom why will with would you your according per said end`.split(/\s+/),
);

/** The fiscal year ending in March of `year` (a four-digit year): 2024 -> FY24. */
const fiscalYear = (year: string) => `FY${year.slice(2)}`;

const QUARTERS: Readonly<Record<string, string>> = {
  first: 'Q1',
  second: 'Q2',
  third: 'Q3',
  fourth: 'Q4',
  'april to june': 'Q1',
  'july to september': 'Q2',
  'october to december': 'Q3',
  'january to march': 'Q4',
};

/**
 * One spelling for what reports and questions write several ways: a fiscal year ("2023-24", "31 March
 * 2024": FY24), a quarter ("fourth quarter", "January to March": Q4) and tonnes of CO2 equivalent.
 */
export function normalisePhrases(text: string): string {
  return text
    .replace(/\b20(\d{2})\s*[-–]\s*(?:20)?(\d{2})\b/g, (_m, _from: string, to: string) => `FY${to}`)
    .replace(/\b31(?:st)?\s+March,?\s+(20\d{2})\b/gi, (_m, year: string) => fiscalYear(year))
    .replace(
      /\b(first|second|third|fourth)\s+quarter\b/gi,
      (_m, n: string) => `quarter ${QUARTERS[n.toLowerCase()]}`,
    )
    .replace(
      /\b(april to june|july to september|october to december|january to march)\b/gi,
      (m) => QUARTERS[m.toLowerCase()] ?? m,
    )
    .replace(/\btonnes?\s+of\s+CO2\s+equivalent\b/gi, 'tCO2e');
}

/** A light suffix stemmer: plurals, -ing, -ed and a final -e, so "declared" and "declare" meet. */
export function stem(word: string): string {
  let w = word;
  if (/^\d/.test(w)) return w;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/**
 * Words a question uses for what reports say otherwise ("spend" for "expenditure"), as the stem of the
 * report's word: a term and its synonym are one term.
 */
const SYNONYMS: Readonly<Record<string, string>> = {
  spend: 'expenditur',
  spent: 'expenditur',
  headcount: 'employ',
  employe: 'employ',
  turnover: 'revenu',
  rupe: 'rs',
};

/** The terms of a text, in order, repeats kept (the retriever counts them). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of normalisePhrases(text)
    .toLowerCase()
    .matchAll(/(?<![a-z0-9.])-?\d[\d,]*(?:\.\d+)?%?|[a-z][a-z0-9]*/g)) {
    const token = m[0].replace(/,/g, '');
    if (token.length < 2 || STOP_WORDS.has(token)) continue;
    const stemmed = stem(token);
    if (!STOP_WORDS.has(stemmed)) out.push(SYNONYMS[stemmed] ?? stemmed);
  }
  return out;
}

/** The distinct terms of a text. */
export function termSet(text: string): Set<string> {
  return new Set(terms(text));
}

/** The fiscal years a text names, as terms (fy23, fy24), in the order it names them. */
export function fiscalYearsOf(text: string): string[] {
  return [...new Set(terms(text).filter((t) => /^fy\d{2}$/.test(t)))];
}

/** A table row, not a sentence: it ends in two or more figures ("Basic EPS (Rs) -0.08 -0.24 n.a."). */
export function isTableRow(line: string): boolean {
  return /(?:\s(?:-?\d[\d,]*(?:\.\d+)?%?|n\.a\.)){2,}$/.test(line);
}

/** The figures a text states (amounts, counts, per cents), without separators: "Rs 1,234.5" -> 1234.5. */
export function figuresOf(text: string): string[] {
  return [...normalisePhrases(text).matchAll(/(?<![\w.])-?\d[\d,]*(?:\.\d+)?%?/g)]
    .map((m) => m[0].replace(/,/g, ''))
    .filter((f) => !/^(?:19|20)\d{2}$/.test(f));
}

/**
 * The sentences of a paragraph: a cut after `.`, `!` or `?` followed by a space and a capital, a digit or
 * an opening bracket, but not after an initial ("Harpreet S. Gill") or a short abbreviation ("Rs.", "No.").
 */
export function sentencesOf(paragraph: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const m of paragraph.matchAll(/[.!?](?=\s+[A-Z0-9(])/g)) {
    const end = (m.index ?? 0) + 1;
    const before = paragraph.slice(start, end);
    if (/(?:^|\s)(?:[A-Z]|Rs|No|Mr|Ms|Dr|Co|Ltd|vs)\.$/.test(before)) continue;
    out.push(before.trim());
    start = end;
  }
  const rest = paragraph.slice(start).trim();
  if (rest) out.push(rest);
  return out.filter((s) => s.length > 0);
}

/** The organisations a text names ("Reliance Industries Limited", "ITC Fixture Infotech Limited"), as their terms. */
export function organisationsOf(text: string): Set<string>[] {
  const names = text.matchAll(/\b[A-Z][\w'&-]*(?:\s+(?:and|&|[A-Z0-9][\w'&-]*))*\s+Limited\b/g);
  return [...names].map((m) => new Set(terms(m[0].replace(/\s+Limited$/, ''))));
}
