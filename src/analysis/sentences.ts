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

/** What a passage is made of, for quoting it whole: a sentence of prose, a table row, a heading line. */
export interface PassageUnit {
  kind: 'sentence' | 'row' | 'heading';
  /** whitespace-normalised (a prose sentence's wrapped lines joined by one space) */
  text: string;
  /** offsets into the passage: the unit runs from `start` to `end` (its first and past its last character) */
  start: number;
  end: number;
}

/** A run of prose lines joined as `chunkSentences` joins them, with the passage offset of each character. */
function joinProse(lines: readonly { text: string; at: number }[]): { text: string; at: number[] } {
  let text = '';
  const at: number[] = [];
  for (const line of lines) {
    if (text.length > 0) {
      text += ' ';
      at.push(line.at - 1);
    }
    for (let i = 0; i < line.text.length; i++) {
      const c = line.text[i] as string;
      if (/\s/.test(c)) {
        if (text.endsWith(' ')) continue;
        text += ' ';
      } else text += c;
      at.push(line.at + i);
    }
  }
  return { text, at };
}

/**
 * A passage cut into what may be quoted whole: each table row (a line with " | " cells) and heading
 * line as it is, and the prose between them as sentences, its PDF-wrapped lines joined first (a line
 * break inside prose does not end a sentence). In order; each with its offsets in the passage.
 */
export function passageUnits(text: string): PassageUnit[] {
  const out: PassageUnit[] = [];
  let prose: { text: string; at: number }[] = [];
  const flush = () => {
    if (prose.length === 0) return;
    const joined = joinProse(prose);
    let from = 0;
    for (const s of sentences(joined.text)) {
      const i = joined.text.indexOf(s, from);
      if (i < 0) {
        // a sentence the splitter rewrote (a citation marker after its full stop): no offsets
        out.push({ kind: 'sentence', text: s, start: -1, end: -1 });
        continue;
      }
      from = i + s.length;
      out.push({
        kind: 'sentence',
        text: s,
        start: joined.at[i] as number,
        end: (joined.at[i + s.length - 1] as number) + 1,
      });
    }
    prose = [];
  };
  let offset = 0;
  for (const raw of text.split('\n')) {
    const lead = raw.length - raw.trimStart().length;
    const line = raw.trim();
    const at = offset + lead;
    offset += raw.length + 1;
    if (line === '') flush();
    else if (TABLE_ROW.test(line) || isHeadingLine(line)) {
      flush();
      out.push({
        kind: TABLE_ROW.test(line) ? 'row' : 'heading',
        text: line.replace(/\s+/g, ' '),
        start: at,
        end: at + line.length,
      });
    } else prose.push({ text: line, at });
  }
  flush();
  return out;
}

/**
 * The candidate sentences of a retrieved chunk. Table rows and headings are not sentences (an answer
 * quoting a bare table row has no subject or period); consecutive prose lines are joined before
 * splitting, since PDF lines wrap mid-sentence.
 */
export function chunkSentences(chunk: { id: string; text: string }, chunkRank: number): ChunkSentence[] {
  return passageUnits(chunk.text)
    .filter((u) => u.kind === 'sentence' && /[A-Za-z]{2}/.test(u.text))
    .map((u, position) => ({ chunkId: chunk.id, chunkRank, position, text: u.text }));
}
