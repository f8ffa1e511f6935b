/**
 * The company and fiscal year a question names, read against the documents of an index, so that
 * retrieval ranks only their chunks ("the company and year filter applied before ranking"). A corpus of
 * annual reports is twenty look-alike documents: "What was HDFC Bank's net interest income in FY23?"
 * matches every bank's income statement of both years word for word, and only the name and the year
 * tell them apart. A question that names no indexed company, or a year no named company's document has,
 * is not filtered on it, so nothing is lost that an unfiltered ranking would have found.
 *
 * A document's names: its display name (companies.yaml `name`, the index manifest's `companyName`) with
 * a legal-form suffix ("Limited", "Inc.", "plc") and a parenthetical dropped, the parenthetical itself
 * ("FSN E-Commerce Ventures Limited (Nykaa)" also gives "Nykaa"), and its slug without the period and
 * form words a file name carries ("3m-2022-10k" gives "3m", "pepsico-2023q1-earnings" gives "pepsico").
 * A name is found when its words stand together in the question, or written as one word ("Best Buy"
 * for "bestbuy"). Fiscal years are the forms the tokenizer reads as years (bm25.ts): "FY2023", "FY23",
 * "FY 2023", "fiscal 2023", "fiscal year 2023", and a year range "2023-24" (FY24, as Indian reports write
 * the year ending in March 2024); a bare "2023" is not read as a fiscal year (it is as often a calendar
 * date or a prior-year comparative).
 */
import { slugify } from '../corpus/naming.ts';

/** A document of an index as scoping needs it. */
export interface ScopeDocument {
  company: string;
  companyName?: string;
  fy: string | null;
}

/** What a question is restricted to; an empty list restricts nothing. */
export interface QuestionScope {
  /** company slugs the question names */
  companies: string[];
  /** fiscal years (FY23) the question names that a document in scope has */
  fys: string[];
}

/** The documents a retrieval ranked: the filters given and those read from the question. */
export interface AppliedScope {
  /** company slugs ranked (null: every company) */
  companies: string[] | null;
  /** fiscal years ranked (null: every year) */
  fys: string[] | null;
  /** what the question named among the index's documents */
  named: QuestionScope;
}

/** Legal forms that end a company's name and that questions often leave out. */
const LEGAL_FORMS = new Set(
  'limited ltd inc incorporated corp corporation plc llc llp co company sa ag nv se spa bhd pvt private public'.split(
    ' ',
  ),
);

/** Words of a slug that say which filing it is, not whose: years, forms, periods. */
const FILING_WORD =
  /^(?:\d+|(?:19|20)\d{2}(?:q[1-4]|h[12])?|fy\d{2,4}|q[1-4]|h[12]|\d+k|\d+q|10k|10q|8k|20f|40f|6k|annual|report|reports|earnings|results|transcript|dated|integrated|standalone|consolidated|financial|statements?|condensed|indas|ifrs|chunk\d*|ar|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)$/;

/** Words too common to stand alone as a company's name. */
const TOO_COMMON = new Set('the of and a an group holdings bank industries international global'.split(' '));

/** Lowercase ASCII words; "and" and "&" are left out, since a file name often drops them ("JOHNSON_JOHNSON"). */
function words(text: string): string[] {
  return slugify(text.replace(/['’]s\b/g, ''))
    .split('-')
    .filter((w) => w !== '' && w !== 'and');
}

function dropLegalForm(ws: readonly string[]): string[] {
  const out = [...ws];
  while (out.length > 1 && LEGAL_FORMS.has(out[out.length - 1] as string)) out.pop();
  return out;
}

/** The names a document goes by, each as its words (lowercase, ASCII). */
export function documentNames(doc: ScopeDocument): string[][] {
  const names: string[][] = [];
  if (doc.companyName) {
    const outside = doc.companyName.replace(/\([^)]*\)/g, ' ');
    names.push(dropLegalForm(words(outside)));
    for (const m of doc.companyName.matchAll(/\(([^)]+)\)/g))
      names.push(dropLegalForm(words(m[1] as string)));
  }
  names.push(dropLegalForm(words(doc.company).filter((w) => !FILING_WORD.test(w))));
  const usable = names.filter(
    (n) =>
      n.length > 0 && !(n.length === 1 && (TOO_COMMON.has(n[0] as string) || (n[0] as string).length < 2)),
  );
  const seen = new Set<string>();
  return usable.filter((n) => {
    const key = n.join(' ');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Whether the name's words stand together in the question's words, or as one word either way. */
function names(question: readonly string[], name: readonly string[]): boolean {
  const joined = name.join('');
  for (let i = 0; i < question.length; i++) {
    if (name.every((w, j) => question[i + j] === w)) return true;
    // "bestbuy" in the slug, "Best Buy" in the question; "johnson johnson" in the slug, "Johnson&Johnson"
    let run = '';
    for (let j = i; j < Math.min(question.length, i + 4); j++) {
      run += question[j];
      if (run === joined && j > i) return true;
      if (run.length >= joined.length) break;
    }
    if (name.length > 1 && question[i] === joined) return true;
  }
  return false;
}

/** The fiscal years a question names, as FY23. */
export function questionFiscalYears(question: string): string[] {
  const out = new Set<string>();
  const two = (year: string) => (year.length === 4 ? year.slice(2) : year);
  for (const m of question.matchAll(/\bFY\s?'?((?:19|20)\d{2}|\d{2})(?!\d)/gi))
    out.add(`FY${two(m[1] as string)}`);
  for (const m of question.matchAll(/(?:\d{1,2}Q|Q[1-4])\s?FY\s?'?((?:19|20)\d{2}|\d{2})(?!\d)/gi))
    out.add(`FY${two(m[1] as string)}`);
  for (const m of question.matchAll(/\bfiscal(?:\s+year)?\s+((?:19|20)\d{2})\b/gi))
    out.add(`FY${two(m[1] as string)}`);
  for (const m of question.matchAll(/\b((?:19|20)\d{2})\s?[-–/]\s?(\d{2})\b/g)) {
    const first = Number(m[1]);
    if ((first + 1) % 100 === Number(m[2])) out.add(`FY${m[2]}`);
  }
  return [...out].sort();
}

/**
 * The companies and fiscal years a question names among `documents`. Companies: every document one of
 * whose names the question contains. Fiscal years: those named that a document of the named companies
 * (of any company, when none is named) has; years no such document has are dropped.
 */
export function questionScope(question: string, documents: readonly ScopeDocument[]): QuestionScope {
  const qWords = words(question);
  const companies = new Set<string>();
  for (const doc of documents)
    if (documentNames(doc).some((n) => names(qWords, n))) companies.add(doc.company);
  const inScope = companies.size > 0 ? documents.filter((d) => companies.has(d.company)) : documents;
  const held = new Set(inScope.map((d) => d.fy).filter((fy): fy is string => fy !== null));
  const fys = questionFiscalYears(question).filter((fy) => held.has(fy));
  return { companies: [...companies].sort(), fys };
}
