/**
 * A user's golden set as rows: a CSV file (RFC 4180, a header row naming the columns) or a JSONL file
 * (one object a line, keyed like the CSV's columns), read into one shape, `GoldenRow`, each value
 * trimmed and located by its line. Column and key names are flexible (`expected behaviour`,
 * `Expected_Behavior` and `behavior` are one field); an unknown one is an error, not ignored, so that
 * a misspelt column never silently drops its data. What the values mean is `golden.ts`'s business.
 */
import { parseCsv } from '../util/csv.ts';
import type { JsonlIssue } from '../util/jsonl.ts';

/**
 * The names a column (or JSONL key) may have, normalised (`headerKey`), and the field each is; the
 * first name of each field is its own.
 */
const ALIASES = {
  id: ['id', 'question_id', 'qid'],
  question: ['question', 'text', 'query'],
  expected_behavior: ['expected_behavior', 'behavior', 'expected'],
  gold_answer: ['gold_answer', 'answer', 'expected_answer', 'reference_answer', 'ground_truth'],
  gold_quotes: ['gold_quotes', 'gold_quote', 'quotes', 'quote', 'evidence'],
  must_include: ['must_include'],
  must_not_include: ['must_not_include'],
  notes: ['notes', 'note', 'authoring_notes'],
  category: ['category'],
  source: ['source', 'document', 'source_document', 'doc'],
  page: ['page', 'pages', 'source_page'],
  companies: ['companies', 'company'],
  fiscal_years: ['fiscal_years', 'fiscal_year', 'fy'],
  difficulty: ['difficulty'],
  numeric_value: ['numeric_value'],
  numeric_unit: ['numeric_unit'],
  numeric_label: ['numeric_label'],
  tolerance: ['tolerance'],
  distractor: ['distractor'],
  distractor_kind: ['distractor_kind'],
} as const;

export type GoldenField = keyof typeof ALIASES;
export const GOLDEN_FIELDS = Object.keys(ALIASES) as GoldenField[];

/** The columns a golden CSV's header must name. */
export const REQUIRED_COLUMNS: readonly GoldenField[] = ['question', 'expected_behavior'];

const FIELD_BY_NAME = new Map<string, GoldenField>(
  GOLDEN_FIELDS.flatMap((f) => ALIASES[f].map((name) => [name, f] as const)),
);

/**
 * A column name as the alias table spells it: lowercase, "behaviour" as "behavior", and each run of
 * spaces, hyphens and underscores one underscore (`Expected behaviour` gives `expected_behavior`).
 */
export function headerKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/behaviour/g, 'behavior')
    .replace(/[\s_-]+/g, '_');
}

/** The field a column or key names, or undefined for a name rge does not read. */
export function goldenField(name: string): GoldenField | undefined {
  return FIELD_BY_NAME.get(headerKey(name));
}

/** A value as read: text, or (a JSONL array) a list of texts. An empty cell is no value. */
export type GoldenValue = string | string[];

/** One row of a golden set: its line (where a CSV record starts) and its non-empty values. */
export interface GoldenRow {
  line: number;
  values: Partial<Record<GoldenField, GoldenValue>>;
}

export interface GoldenRows {
  rows: GoldenRow[];
  /**
   * every problem of the file's form (header, quoting, JSON, unknown keys), by line; a record that
   * cannot be read is left out of rows (a JSONL row with an unknown key is kept, to be read for more)
   */
  issues: JsonlIssue[];
  /** a CSV of a header and no row: no questions, but said apart from an empty file */
  headerOnly: boolean;
}

const KNOWN = `rge reads: ${GOLDEN_FIELDS.join(', ')}`;

/** The header's fields by column, and its problems: unknown, repeated and missing columns. */
function readHeader(
  names: readonly string[],
  line: number,
): { columns: GoldenField[]; issues: JsonlIssue[] } {
  const fields = names.map(goldenField);
  // a first row naming neither required column is data, not a header (even if a cell reads "answer")
  if (!REQUIRED_COLUMNS.some((f) => fields.includes(f)))
    return {
      columns: [],
      issues: [
        {
          line,
          field: '',
          message: `no header row: the first row must name the columns (${REQUIRED_COLUMNS.join(', ')}, gold_answer, gold_quotes, ...), and it names neither ${REQUIRED_COLUMNS.join(' nor ')}`,
        },
      ],
    };
  const issues: JsonlIssue[] = [];
  const firstColumn = new Map<GoldenField, string>();
  names.forEach((name, i) => {
    const f = fields[i];
    if (f === undefined) issues.push({ line, field: name.trim(), message: `unknown column (${KNOWN})` });
    else if (firstColumn.has(f))
      issues.push({
        line,
        field: name.trim(),
        message: `a second column for ${f} (the first is "${firstColumn.get(f)}")`,
      });
    else firstColumn.set(f, name.trim());
  });
  for (const f of REQUIRED_COLUMNS)
    if (!firstColumn.has(f))
      issues.push({ line, field: f, message: 'missing column: the header must name it' });
  return { columns: fields.filter((f): f is GoldenField => f !== undefined), issues };
}

/** The rows of a golden CSV: a header row naming the columns, then one question a record. */
export function readGoldenCsv(text: string): GoldenRows {
  const csv = parseCsv(text);
  const issues: JsonlIssue[] = csv.issues.map((i) => ({ line: i.line, field: '', message: i.message }));
  const [head, ...body] = csv.records;
  // a header that cannot be read (an issue before the first record read) leaves no way to read the rows
  if (!head || issues.some((i) => i.line < head.line)) return { rows: [], issues, headerOnly: false };
  const header = readHeader(head.fields, head.line);
  if (header.issues.length > 0) return { rows: [], issues: [...issues, ...header.issues], headerOnly: false };
  const rows: GoldenRow[] = [];
  for (const { line, fields } of body) {
    if (fields.length !== header.columns.length) {
      issues.push({
        line,
        field: '',
        message: `${fields.length} field(s), but the header names ${header.columns.length} column(s)`,
      });
      continue;
    }
    const values: GoldenRow['values'] = {};
    header.columns.forEach((f, i) => {
      const v = (fields[i] as string).trim();
      if (v !== '') values[f] = v;
    });
    rows.push({ line, values });
  }
  issues.sort((a, b) => a.line - b.line);
  return { rows, issues, headerOnly: body.length === 0 && issues.length === 0 };
}

/** A JSON value as a row value: text, a number as written, a list of them; null is no value. */
function jsonValue(v: unknown): GoldenValue | null | Error {
  if (v === null) return null;
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) {
    const list = v.map((x) => String(x).trim()).filter((x) => x !== '');
    return list.length === 0 ? null : list;
  }
  return new Error('must be text, a number, or a list of them');
}

/** One line of a golden JSONL file as a row, or its problems. */
function jsonlRow(raw: string, line: number): { row?: GoldenRow; issues: JsonlIssue[] } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return { issues: [{ line, field: '', message: `invalid JSON (${(err as Error).message})` }] };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { issues: [{ line, field: '', message: 'not a JSON object: each line is one question' }] };
  const issues: JsonlIssue[] = [];
  const values: GoldenRow['values'] = {};
  const firstKey = new Map<GoldenField, string>();
  for (const [key, v] of Object.entries(json)) {
    const f = goldenField(key);
    const value = jsonValue(v);
    if (f === undefined) issues.push({ line, field: key, message: `unknown field (${KNOWN})` });
    else if (firstKey.has(f))
      issues.push({ line, field: key, message: `a second key for ${f} (the first is "${firstKey.get(f)}")` });
    else if (value instanceof Error) issues.push({ line, field: key, message: value.message });
    else {
      firstKey.set(f, key);
      if (value !== null) values[f] = value;
    }
  }
  // the row's other values are still read, so that one pass names all its problems
  return { row: { line, values }, issues };
}

/** The rows of a golden JSONL file: one JSON object a non-blank line. */
export function readGoldenJsonl(text: string): GoldenRows {
  const rows: GoldenRow[] = [];
  const issues: JsonlIssue[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    const read = jsonlRow(raw, i + 1);
    if (read.row) rows.push(read.row);
    issues.push(...read.issues);
  }
  return { rows, issues, headerOnly: false };
}
