/**
 * Section headings and page furniture in annual reports.
 *
 * Page furniture is what repeats on many pages at the same place: running headers and footers
 * ("Reliance Industries Limited | Integrated Annual Report 2023-24"), page numbers ("12", "Page 12 of
 * 300", "- 12 -"). It is detected across the pages of one document and removed before chunking, so it
 * neither pads chunks nor poses as a heading.
 *
 * A heading is a line that opens a section: numbered ("1. Revenue from operations", "Note 12", "Item 7.",
 * "2.3 Borrowings", "IV. Risks"), capitalised ("CONSOLIDATED BALANCE SHEET"), or a short title-case line
 * without final punctuation ("Report on Corporate Governance"). Table rows, sentences and figures are not.
 */

/** Lines examined at the top and at the bottom of each page when looking for furniture. */
const FURNITURE_EDGE_LINES = 3;

const PAGE_NUMBER =
  /^(?:page\s*)?[-–—(]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—)]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;

/**
 * The shape of a line with its spacing folded and, when it holds few numbers (a year, an edition, a
 * page number: at most two, or four in a line that is mostly words and no table row), its digits too,
 * so "VRL Logistics Limited 41st Annual Report 2023-24 111" matches page 112's. Lines with more numbers
 * are content (table rows, figures) and keep their digits.
 */
export function furnitureKey(line: string): string {
  const text = line.toLowerCase().replace(/\s+/g, ' ').trim();
  const numbers = text.match(/\d+/g)?.length ?? 0;
  const folds = numbers <= 2 || (numbers <= 4 && !text.includes(' | ') && letterShare(text) > 0.5);
  return folds ? text.replace(/\d+/g, '#') : text;
}

export function isPageNumber(line: string): boolean {
  return PAGE_NUMBER.test(line.trim());
}

/**
 * The furniture keys of a document: line shapes found among the top or bottom lines of at least
 * max(3, 30%) of its pages. Documents of fewer than 4 pages have no furniture but page numbers.
 */
export function detectFurniture(pages: readonly (readonly string[])[]): Set<string> {
  const counts = new Map<string, number>();
  for (const lines of pages) {
    const edge = new Set<string>();
    const nonEmpty = lines.filter((l) => l.trim() !== '');
    for (const l of nonEmpty.slice(0, FURNITURE_EDGE_LINES)) edge.add(furnitureKey(l));
    for (const l of nonEmpty.slice(-FURNITURE_EDGE_LINES)) edge.add(furnitureKey(l));
    for (const key of edge) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const furniture = new Set<string>();
  if (pages.length < 4) return furniture;
  const threshold = Math.max(3, Math.ceil(pages.length * 0.3));
  for (const [key, n] of counts) if (n >= threshold && key.length > 0) furniture.add(key);
  return furniture;
}

/** Removes page numbers and furniture from the top and bottom lines of a page. */
export function stripFurniture(lines: readonly string[], furniture: ReadonlySet<string>): string[] {
  const isFurniture = (l: string) => isPageNumber(l) || furniture.has(furnitureKey(l));
  const out = lines.map((l) => l.trim());
  // Only the edges of a page hold furniture; the same words mid-page are content.
  let top = 0;
  let removedTop = 0;
  while (top < out.length && removedTop < FURNITURE_EDGE_LINES + 2) {
    const l = out[top] as string;
    if (l === '') {
      top++;
      continue;
    }
    if (!isFurniture(l)) break;
    out[top] = '';
    removedTop++;
    top++;
  }
  let bottom = out.length - 1;
  let removedBottom = 0;
  while (bottom >= top && removedBottom < FURNITURE_EDGE_LINES + 2) {
    const l = out[bottom] as string;
    if (l === '') {
      bottom--;
      continue;
    }
    if (!isFurniture(l)) break;
    out[bottom] = '';
    removedBottom++;
    bottom--;
  }
  return out.filter((l) => l !== '');
}

const NUMBERED =
  /^(?:(?:note|item|section|part|schedule|annexure)\s+[0-9ivxlc]+[a-z]?[.:)]?|\d{1,2}(?:\.\d{1,2}){0,3}[.)]?|[ivxlc]{1,6}[.)]|[a-h][.)])\s+(\S.*)$/i;
const SMALL_WORDS = new Set([
  'a',
  'an',
  'and',
  'as',
  'at',
  'by',
  'for',
  'from',
  'in',
  'into',
  'of',
  'on',
  'or',
  'the',
  'to',
  'with',
  'vs',
  'per',
  '&',
]);
const MAX_HEADING_CHARS = 90;
const MAX_TITLE_WORDS = 9;

function letterShare(s: string): number {
  const letters = s.match(/\p{L}/gu)?.length ?? 0;
  return letters / Math.max(1, s.replace(/\s/g, '').length);
}

function digitShare(s: string): number {
  const digits = s.match(/\d/g)?.length ?? 0;
  return digits / Math.max(1, s.replace(/\s/g, '').length);
}

function isTitleCase(words: readonly string[]): boolean {
  let major = 0;
  for (const [i, w] of words.entries()) {
    const bare = w.replace(/^[("'‘“]+|[)"'’”:,]+$/g, '');
    if (bare === '') continue;
    if (i > 0 && SMALL_WORDS.has(bare.toLowerCase())) continue;
    if (!/^[\p{Lu}\d]/u.test(bare)) return false;
    major++;
  }
  return major > 0;
}

/** A whole line of "no value" cells: "Not Applicable", "Nil Nil", "N.A.", "None None None", "-". */
const NO_VALUE = /^(?:(?:not applicable|not available|not provided|nil|n\.\s?a\.?|na|none|[-–—])\s*)+$/i;
/** A note reference closing a table label: "Sciences (4)", "Passenger Cars (PC) (12) (9)". */
const NOTE_REFERENCE = /\s\(\s*\d{1,3}[a-z]?\s*\)$/i;
/** A form label whose value is on the next line: "Firm's Registration No", "Folio No.". */
const NUMBER_LABEL = /\b(?:no|nos)\.?$/i;
/** The label of an identifier, which a form line then gives: "NSE Code VRLLOG", "CIN : L99999MH1946PLC004768". */
const CODE_LABEL =
  /\b(?:code|symbol|ticker|scrip(?:\s+id)?|isin|cin|din|pan|gstin|frn|id|no\.?|number)\s*[:\-–/]?\s*$/i;
/** A form field naming an identifier, whose value is in the next cell: "Director Identification Number (DIN)". */
const IDENTIFIER_FIELD = /\((?:DIN|CIN|ISIN|PAN|GSTIN|FRN|LEI|LLPIN|UDIN|TAN|SRN)\)/;
/** Periods and standards that look like identifiers: "FY2024", "Q4FY24", "H1FY25", "ISO14001". */
const NOT_A_CODE = /^(?:(?:Q[1-4]|H[12]|9M)?(?:FY|CY)?\d{2,4}|ISO\d{3,5})$/;

/**
 * An identifier rather than a word: a registration number, ISIN or CIN mixing capitals and digits
 * ("INE366I01010", "L35999TN1936PLC002202", "A16354"), or a run of six or more digits ("00012583").
 */
export function isCode(token: string): boolean {
  // "(DIN:02153989)," -> "02153989"
  const t = token.replace(/^[([]+|[)\].,;:]+$/g, '').replace(/^[A-Za-z]+:/, '');
  if (/^\d{6,}$/.test(t)) return true;
  return /^[A-Z0-9]{6,}$/.test(t) && /\d/.test(t) && /[A-Z]/.test(t) && !NOT_A_CODE.test(t);
}

/**
 * Whether a line is a table label, a form field or a cell value rather than a heading: a "no value"
 * cell ("Not Applicable", "Nil"), a label carrying a note reference ("Sciences (4)"), a form label
 * waiting for its number ("Firm's Registration No") or naming an identifier ("Director Identification
 * Number (DIN)", chunker 2), or a line holding an identifier ("NSE Code VRLLOG",
 * "ISIN (Equity Shares) in NSDL and CDSL INE366I01010").
 */
export function isTableLabel(line: string): boolean {
  const text = line.trim();
  if (NO_VALUE.test(text)) return true;
  if (NOTE_REFERENCE.test(text)) return true;
  if (NUMBER_LABEL.test(text)) return true;
  if (IDENTIFIER_FIELD.test(text)) return true;
  const tokens = text.split(/\s+/);
  if (tokens.some(isCode)) return true;
  // "NSE Code VRLLOG", "BSE Scrip ID VRL": an identifier's label and its value in capitals
  const last = tokens[tokens.length - 1] ?? '';
  const before = tokens.slice(0, -1).join(' ');
  return (
    tokens.length >= 2 &&
    /^[A-Z0-9][A-Z0-9\-/.]{2,}$/.test(last) &&
    CODE_LABEL.test(before) &&
    (/\d/.test(last) || !isCapitalised(before))
  );
}

/**
 * Whether a line reads as a section heading. `line` is one visual line of a page, already trimmed.
 * Conservative by design: a missed heading leaves the previous one in force, a false one mislabels
 * every chunk that follows it.
 */
export function isHeading(line: string): boolean {
  const text = line.trim();
  if (text.length < 3 || text.length > MAX_HEADING_CHARS) return false;
  if (text.includes(' | ')) return false; // a table row from the layout path
  if (/[.;,]$/.test(text) && !/^(?:note|item)\s/i.test(text)) return false; // sentences and list items end so
  if (/[-–]$/.test(text)) return false; // a word hyphenated onto the next line
  if (digitShare(text) > 0.25 || letterShare(text) < 0.6) return false;
  if (/[₹$€£%]|\b(?:rs|inr|usd)\.?\s*\d/i.test(text)) return false;

  if (/^(?:mr|ms|mrs|dr|shri|smt|prof)\.?\s/i.test(text)) return false; // names under signatures
  if (isTableLabel(text)) return false;
  const numbered = NUMBERED.exec(text);
  if (numbered) {
    const rest = numbered[1] as string;
    return (
      /^[\p{Lu}]/u.test(rest) && rest.split(/\s+/).length <= MAX_TITLE_WORDS + 3 && !/[.!?]\s/.test(rest)
    );
  }
  if (/^(?:total|sub-?total|grand total|less|add)\b/i.test(text)) return false; // statement row labels
  if (/\S\s?:\s+\S/.test(text)) return false; // "Place: Mumbai", "Date : 12 May 2024", "BANKERS : ICICI Bank"
  if (/\d[.,]\d/.test(text)) return false; // a figure such as 6.29 or 1,234 belongs to a table row
  const words = text.split(/\s+/);
  const letters = text.replace(/[^\p{L}]/gu, '');
  if (letters.length >= 4 && letters === letters.toUpperCase() && /\p{Lu}/u.test(letters)) {
    // "NA NA NA", "YES NO": table cells, not headings; a heading has at least one real word.
    return words.length <= MAX_TITLE_WORDS + 3 && words.some((w) => w.replace(/[^\p{L}]/gu, '').length >= 4);
  }
  return words.length >= 2 && words.length <= MAX_TITLE_WORDS && /^\p{Lu}/u.test(text) && isTitleCase(words);
}

const TRAILING_FUNCTION_WORD =
  /\b(?:the|of|and|or|to|for|with|in|on|by|a|an|which|who|are|is|was|were|not|that|as|at|from|its|their|under)$/i;

/**
 * Whether a line opens a section, given its neighbours on the page (null at a page edge). A line that
 * reads as a heading on its own is still a wrapped sentence when it ends on a function word, when the
 * next line carries on in lower case, or when the line before it is prose cut mid-sentence.
 */
export function opensSection(line: string, previous: string | null, next: string | null): boolean {
  if (!isHeading(line)) return false;
  if (TRAILING_FUNCTION_WORD.test(line.trim().replace(/:$/, ''))) return false;
  const nextIsListItem = next !== null && /^(?:[a-z]|[ivx]{1,4})[.)]\s/.test(next.trim());
  if (next !== null && /^\p{Ll}/u.test(next.trim()) && !nextIsListItem) return false;
  if (!isNumberedHeading(line) && /\p{Ll}\.\s+\p{Lu}/u.test(line)) return false; // "… Report. The Audit …"
  if (previous !== null) {
    const prev = previous.trim();
    const proseCutMidSentence = prev.length >= 60 && /[\p{L},]$/u.test(prev) && letterShare(prev) > 0.8;
    if (proseCutMidSentence && !isNumberedHeading(line) && !isCapitalised(line)) return false;
  }
  return true;
}

/** Whether a line opens with a section number ("12.", "Note 3", "ITEM 7A", "PART II"). */
export function isNumberedHeading(line: string): boolean {
  return NUMBERED.test(line.trim()) || /^(?:item|part|note)\s+[0-9ivxlc]+[a-z]?\b/i.test(line.trim());
}

/** Whether a heading line is written in capitals (its continuation line, if any, is too). */
export function isCapitalised(line: string): boolean {
  const letters = line.replace(/[^\p{L}]/gu, '');
  return letters.length >= 4 && letters === letters.toUpperCase();
}

/** Normalises a heading for display: inner whitespace folded, a trailing colon dropped. */
export function cleanHeading(line: string): string {
  return line.replace(/\s+/g, ' ').replace(/:$/, '').trim();
}
