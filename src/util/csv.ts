/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by line breaks (CRLF or LF), a field
 * that holds a comma, a line break or a double quote is quoted, and a quote inside it is doubled. Strict
 * where the RFC is (a quote inside an unquoted field, text after a closing quote, a quoted field never
 * closed are errors, each at its line), lenient where hand-written files commonly are: a UTF-8 byte
 * order mark is dropped, blank lines are skipped, and spaces or tabs around a quoted field are allowed.
 * Pure; no I/O. rge has no CSV dependency: this is the one reader (questions' golden sets, ERC's
 * dataset.csv).
 */

/** One record, with the 1-based line it starts on (a quoted field may run over several lines). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A record that cannot be read, located by the line the problem is on. */
export interface CsvIssue {
  line: number;
  message: string;
}

export interface CsvParse {
  /** every record read, in order (a record with an issue is left out) */
  records: CsvRecord[];
  issues: CsvIssue[];
}

/** Where the reader is: the text, the offset, the line of that offset. */
interface Cursor {
  text: string;
  at: number;
  line: number;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
const isBreak = (c: string | undefined) => c === '\n' || c === '\r';

/** Steps over one line break (CRLF, LF or a lone CR) at the cursor, counting the line. */
function skipBreak(cur: Cursor): void {
  if (cur.text[cur.at] === '\r' && cur.text[cur.at + 1] === '\n') cur.at += 2;
  else cur.at += 1;
  cur.line += 1;
}

/** Steps to the start of the next line (after an error: the rest of the record is not read). */
function skipLine(cur: Cursor): void {
  while (cur.at < cur.text.length && !isBreak(cur.text[cur.at])) cur.at++;
  if (cur.at < cur.text.length) skipBreak(cur);
}

/**
 * A quoted field from its opening quote to its closing one (quotes doubled inside it), and the spaces
 * after it; the text of the field, or an issue.
 */
function quotedField(cur: Cursor): string | CsvIssue {
  const opened = cur.line;
  cur.at++; // the opening quote
  let value = '';
  for (;;) {
    const end = cur.text.indexOf('"', cur.at);
    const chunk = cur.text.slice(cur.at, end === -1 ? cur.text.length : end);
    value += chunk;
    cur.line += chunk.split(/\r\n|\r|\n/).length - 1;
    if (end === -1) {
      cur.at = cur.text.length;
      return {
        line: opened,
        message: 'unterminated quoted field: the quote opened on this line is never closed',
      };
    }
    cur.at = end + 1;
    if (cur.text[cur.at] !== '"') break;
    value += '"'; // a doubled quote
    cur.at++;
  }
  while (isBlank(cur.text[cur.at])) cur.at++;
  const next = cur.text[cur.at];
  if (next !== undefined && next !== ',' && !isBreak(next))
    return {
      line: cur.line,
      message: `text after a closing quote ("${next}"): a quoted field ends at its quote`,
    };
  return value;
}

/** An unquoted field up to the next comma or line break; an issue if it holds a quote. */
function plainField(cur: Cursor): string | CsvIssue {
  const start = cur.at;
  while (cur.at < cur.text.length && cur.text[cur.at] !== ',' && !isBreak(cur.text[cur.at])) cur.at++;
  const value = cur.text.slice(start, cur.at);
  if (value.includes('"'))
    return {
      line: cur.line,
      message: 'a quote inside an unquoted field: quote the whole field and double the quotes in it',
    };
  return value;
}

/** One field at the cursor: quoted when its first character other than spaces is a quote. */
function field(cur: Cursor): string | CsvIssue {
  let ahead = cur.at;
  while (isBlank(cur.text[ahead])) ahead++;
  if (cur.text[ahead] === '"') {
    cur.at = ahead;
    return quotedField(cur);
  }
  return plainField(cur);
}

/** One record at the cursor, up to and over its line break. */
function record(cur: Cursor): CsvRecord | CsvIssue {
  const line = cur.line;
  const fields: string[] = [];
  for (;;) {
    const value = field(cur);
    if (typeof value !== 'string') {
      skipLine(cur);
      return value;
    }
    fields.push(value);
    if (cur.text[cur.at] !== ',') break;
    cur.at++;
  }
  if (cur.at < cur.text.length) skipBreak(cur);
  return { line, fields };
}

/** Every record of a CSV text, and every record that cannot be read, by line. */
export function parseCsv(text: string): CsvParse {
  const cur: Cursor = { text: text.startsWith('\uFEFF') ? text.slice(1) : text, at: 0, line: 1 };
  const records: CsvRecord[] = [];
  const issues: CsvIssue[] = [];
  while (cur.at < cur.text.length) {
    if (isBreak(cur.text[cur.at])) {
      skipBreak(cur); // a blank line
      continue;
    }
    const r = record(cur);
    if ('message' in r) issues.push(r);
    else if (r.fields.length > 1 || (r.fields[0] ?? '').trim() !== '') records.push(r);
  }
  return { records, issues };
}
