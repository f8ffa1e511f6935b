/**
 * Importing a user's own golden set (issue 37): a CSV or JSONL file of their questions, expected
 * behaviours, gold answers and gold quotes becomes rge questions (`source.dataset` golden), checked in
 * one pass: every bad row is listed by line and field (the file's form in golden-rows.ts, each row's
 * values in golden-question.ts, repeated ids here, gold quotes not printed in the document the row
 * names in golden-documents.ts, and the schema's own rules last). Nothing is returned unless every
 * row is good, so the caller writes all or nothing.
 */
import { RgeError } from '../util/errors.ts';
import type { JsonlIssue } from '../util/jsonl.ts';
import { locateGoldQuotes, type QuotesToLocate } from './golden-documents.ts';
import { type GoldenDraft, goldenQuestion } from './golden-question.ts';
import { type GoldenRows, readGoldenCsv, readGoldenJsonl } from './golden-rows.ts';
import { NO_QUESTIONS } from './load.ts';
import { QUESTION_CATEGORIES, Question, type QuestionCategory } from './schema.ts';

/** `golden` tells CSV from JSONL by the file's extension; the other two say which. */
export const GOLDEN_FORMATS = ['golden', 'golden-csv', 'golden-jsonl'] as const;
export type GoldenFormat = (typeof GOLDEN_FORMATS)[number];

/** The message for a CSV with a header row and nothing under it. */
export const HEADER_ONLY = 'no questions: the file has its header row and no row under it';

/** How the file is read: by the format, else by the extension (.csv; .jsonl, .ndjson); null if it does not say. */
export function goldenFileKind(format: GoldenFormat, file: string): 'csv' | 'jsonl' | null {
  if (format === 'golden-csv') return 'csv';
  if (format === 'golden-jsonl') return 'jsonl';
  const name = file.toLowerCase();
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return 'jsonl';
  return null;
}

export interface GoldenSummary {
  rows: number;
  byCategory: Record<QuestionCategory, number>;
  ids: { given: number; derived: number };
  categories: { given: number; derived: number };
  numericGold: { given: number; parsed: number };
  /** gold quotes: found in their documents; named a document but not checked (no --documents); named none */
  quotes: { found: number; unresolved: number; noDocument: number };
}

export type GoldenImport =
  | { ok: true; questions: Question[]; summary: GoldenSummary }
  | { ok: false; issues: JsonlIssue[] };

/** A second row with an id already taken, at each line after the first. */
function duplicateIds(drafts: readonly GoldenDraft[]): JsonlIssue[] {
  const firstLine = new Map<string, number>();
  const issues: JsonlIssue[] = [];
  for (const d of drafts) {
    const id = d.question.id;
    const first = firstLine.get(id);
    if (first === undefined) firstLine.set(id, d.line);
    else
      issues.push({
        line: d.line,
        field: 'id',
        message: `duplicate id ${id} (first at line ${first})${d.derived.id ? ': derived from the same question text' : ''}`,
      });
  }
  return issues;
}

/** Each draft with its quote locations, through the schema: the question, or the schema's problems. */
function checked(
  d: GoldenDraft,
  locations: Map<number, Question['gold_quote_locations']>,
): Question | JsonlIssue[] {
  const where = locations.get(d.line);
  const parsed = Question.safeParse(where ? { ...d.question, gold_quote_locations: where } : d.question);
  if (parsed.success) return parsed.data;
  return parsed.error.issues.map((i) => ({
    line: d.line,
    field: i.path.map(String).join('.'),
    message: i.message,
  }));
}

function summarise(drafts: readonly GoldenDraft[], questions: readonly Question[]): GoldenSummary {
  const summary: GoldenSummary = {
    rows: drafts.length,
    byCategory: Object.fromEntries(QUESTION_CATEGORIES.map((c) => [c, 0])) as Record<
      QuestionCategory,
      number
    >,
    ids: { given: 0, derived: 0 },
    categories: { given: 0, derived: 0 },
    numericGold: { given: 0, parsed: 0 },
    quotes: { found: 0, unresolved: 0, noDocument: 0 },
  };
  for (const d of drafts) {
    summary.ids[d.derived.id ? 'derived' : 'given']++;
    summary.categories[d.derived.category ? 'derived' : 'given']++;
    if (d.derived.numeric) summary.numericGold[d.derived.numeric]++;
  }
  for (const q of questions) {
    summary.byCategory[q.category]++;
    const located = q.gold_quote_locations ?? [];
    summary.quotes.found += located.filter((l) => l.resolved).length;
    summary.quotes.unresolved += located.filter((l) => !l.resolved).length;
    summary.quotes.noDocument += q.gold_quotes.length - located.length;
  }
  return summary;
}

/**
 * Reads a golden set (the text of a CSV or JSONL file, and the name its errors give it) into rge
 * questions, locating gold quotes in `documents` (a folder, or null to keep them as given). Throws an
 * RgeError naming the file when it holds no question; otherwise returns every problem of every row, or
 * the questions when there is none.
 */
export async function importGolden(
  file: { text: string; name: string },
  kind: 'csv' | 'jsonl',
  documents: string | null,
): Promise<GoldenImport> {
  const read: GoldenRows = kind === 'csv' ? readGoldenCsv(file.text) : readGoldenJsonl(file.text);
  if (read.rows.length === 0 && read.issues.length === 0)
    throw new RgeError(read.headerOnly ? HEADER_ONLY : NO_QUESTIONS, { file: file.name });
  const drafts = read.rows.map(goldenQuestion);
  const toLocate: QuotesToLocate[] = drafts.flatMap((d) =>
    d.quoteSource ? [{ line: d.line, quotes: d.question.gold_quotes, source: d.quoteSource }] : [],
  );
  const located = await locateGoldQuotes(toLocate, documents);
  const issues = [
    ...read.issues,
    ...drafts.flatMap((d) => d.issues),
    ...duplicateIds(drafts),
    ...located.issues,
  ];
  const questions: Question[] = [];
  for (const d of drafts) {
    if (issues.some((i) => i.line === d.line)) continue; // the schema's word comes after the row's own
    const q = checked(d, located.locations);
    if (Array.isArray(q)) issues.push(...q);
    else questions.push(q);
  }
  if (issues.length > 0) return { ok: false, issues: issues.sort((a, b) => a.line - b.line) };
  return { ok: true, questions, summary: summarise(drafts, questions) };
}

/**
 * What became of the gold quotes: with a documents folder (`documents`, as the user named it) every quote
 * of a row that names a document was found there (one that is not fails the import); without one they
 * are kept as given, not checked.
 */
function quotesLine(s: GoldenSummary, documents: string | null): string {
  const named =
    documents === null
      ? `${s.quotes.unresolved} not checked (no --documents: give the folder of the documents the rows name to check them)`
      : `${s.quotes.found} found in their documents in ${documents}`;
  return `  gold quotes: ${named}, ${s.quotes.noDocument} kept as given (the row names no document)`;
}

/** The import's summary for the CLI, a few lines; `documents`: the --documents folder, or null. */
export function formatGoldenSummary(s: GoldenSummary, out: string, documents: string | null): string {
  const cats = QUESTION_CATEGORIES.map((c) => `${c} ${s.byCategory[c]}`).join(', ');
  const lines = [
    `golden: ${s.rows} questions imported to ${out}`,
    `  ${cats}`,
    `  ids: ${s.ids.given} given, ${s.ids.derived} derived from the question; categories: ${s.categories.given} given, ${s.categories.derived} from the expected behaviour; numeric gold: ${s.numericGold.given} given, ${s.numericGold.parsed} read from the gold answer`,
    quotesLine(s, documents),
  ];
  return `${lines.join('\n')}\n`;
}
