/**
 * Sentences: the one sentence splitter of rge, for subjects, checks and judges alike. Pure; no I/O.
 *
 * ICU's sentence boundaries (`Intl.Segmenter`, granularity "sentence") do the work; three repairs make
 * them fit annual-report prose and model answers:
 * - an abbreviation or an initial does not end a sentence ("Rs. 10 crore", "Harpreet S. Gill", "No. 4",
 *   "i.e. the group"), nor does an inline section number ("crore. 6. DIVIDENDS ...");
 * - citation markers written after the full stop ("... crore. [acme-FY24-1a2b3c4d]") stay with the
 *   sentence they follow;
 * - with `lines: true` a line break also ends a sentence (answers with bullets, table rows of a chunk),
 *   and a leading bullet or list number is dropped.
 */

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Words before a full stop that do not end a sentence (lowercase, without the stop). */
const ABBREVIATIONS = new Set([
  'rs',
  'no',
  'nos',
  'co',
  'ltd',
  'pvt',
  'inc',
  'corp',
  'mr',
  'mrs',
  'ms',
  'dr',
  'st',
  'vs',
  'viz',
  'approx',
  'e.g',
  'i.e',
  'etc',
  'fig',
  'cf',
  'u.s',
  'a.m',
  'p.m',
  'sr',
  'jr',
  'sec',
  'para',
  'ref',
]);

const CITATION_AFTER_STOP = /([.!?])((?:\s*\[[^[\]\n]*\])+)/g;

/** Does a segment end where it should not (an abbreviation, an initial, a bare section number)? */
function endsTooEarly(segment: string): boolean {
  const s = segment.trimEnd();
  if (!s.endsWith('.')) return false;
  const body = s.slice(0, -1);
  if (/^\s*\(?\d{1,2}[A-Za-z]?$/.test(body)) return true; // "6." alone: a list or section number
  const lastWord = /([\p{L}.]+)$/u.exec(body)?.[1]?.toLowerCase() ?? '';
  if (ABBREVIATIONS.has(lastWord)) return true;
  return /(?:^|[\s(])\p{Lu}$/u.test(body); // an initial: "S."
}

function splitLine(line: string): string[] {
  const text = line.replace(CITATION_AFTER_STOP, '$2$1');
  const out: string[] = [];
  let carry = '';
  for (const { segment } of segmenter.segment(text)) {
    const joined = carry + segment;
    if (endsTooEarly(joined)) {
      carry = joined;
      continue;
    }
    out.push(joined);
    carry = '';
  }
  if (carry) out.push(carry);
  return out;
}

const BULLET = /^\s*(?:[-*•▪◦]\s+|\(?\d{1,2}[A-Za-z]?[.)]\s+)/;

/**
 * The sentences of a text, trimmed, in order. By default line breaks inside the text are spaces (PDF
 * lines wrap mid-sentence); with `lines: true` each line is split on its own.
 */
export function sentences(text: string, opts: { lines?: boolean } = {}): string[] {
  const lines = opts.lines ? text.split(/\r?\n+/) : [text.replace(/\s*\r?\n\s*/g, ' ')];
  const out: string[] = [];
  for (const line of lines) {
    for (const s of splitLine(line)) {
      const cleaned = (opts.lines ? s.replace(BULLET, '') : s).trim();
      if (cleaned.length > 0) out.push(cleaned);
    }
  }
  return out;
}

/** A sentence of a chunk, whitespace-normalised (PDF line breaks become spaces). */
export interface ChunkSentence {
  chunkId: string;
  /** position of the chunk in the context (0 = top-ranked) */
  chunkRank: number;
  /** position of the sentence within its chunk */
  position: number;
  text: string;
}

const TABLE_ROW = /\s\|\s/;
/** "6. DIVIDENDS", "12.1 Basis of preparation", "5A. MANAGEMENT DISCUSSION AND ANALYSIS" */
const NUMBERED_HEADING = /^\d+[A-Z]?(?:\.\d+)*\.?\s+[A-Z][A-Za-z'’&(),\- ]*$/;

function isHeadingLine(line: string): boolean {
  if (line.length > 80 || /[.,;:]$/.test(line)) return false;
  if (NUMBERED_HEADING.test(line)) return true;
  const letters = line.replace(/[^A-Za-z]/g, '');
  // an all-capitals line (a report title) or a title line such as "Annual Report 2022-23"
  return (
    (letters.length >= 4 && letters === letters.toUpperCase()) || /^Annual Report \d{4}-\d{2}$/.test(line)
  );
}

/**
 * The candidate sentences of a retrieved chunk. Table rows and headings are not sentences (an answer
 * quoting a bare table row has no subject or period); consecutive prose lines are joined before
 * splitting, since PDF lines wrap mid-sentence.
 */
export function chunkSentences(chunk: { id: string; text: string }, chunkRank: number): ChunkSentence[] {
  const out: ChunkSentence[] = [];
  let prose: string[] = [];
  const flush = () => {
    if (prose.length === 0) return;
    for (const text of sentences(prose.join(' ').replace(/\s+/g, ' ')))
      if (/[A-Za-z]{2}/.test(text)) out.push({ chunkId: chunk.id, chunkRank, position: out.length, text });
    prose = [];
  };
  for (const raw of chunk.text.split('\n')) {
    const line = raw.trim();
    if (line === '' || TABLE_ROW.test(line) || isHeadingLine(line)) flush();
    else prose.push(line);
  }
  flush();
  return out;
}
