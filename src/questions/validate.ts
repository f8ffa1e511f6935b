/**
 * The question-set validator: every check in one pass, every problem located by line and field.
 * Pure: it takes the parsed lines and the index's chunks and returns counts and issues; reading files
 * is the caller's job (`rge questions validate`).
 */
import type { Chunk } from '../corpus/schema.ts';
import type { JsonlIssue } from '../util/jsonl.ts';
import { normaliseWhitespace, type QuestionLine, shortQuote } from './load.ts';
import { QUESTION_CATEGORIES, type Question, type QuestionCategory } from './schema.ts';

export interface ValidateOptions {
  /** the version every question must carry (a run config's questions.version); default: the first line's */
  expectedVersion?: number;
  /**
   * the chunks of the built index; gold chunk ids and quotes are checked against them. null: there is
   * no index (a set whose gold is not yet resolved can still be checked; a chunk id then is an error)
   */
  chunks: readonly Chunk[] | null;
  /** the index's checksum: gold resolved on another index (`resolved_on`) is an error */
  indexChecksum?: string | undefined;
}

/** Where the questions' gold answers come from (`gold_source`), and how many are resolved. */
export interface Traceability {
  /** gold figures traced to an XBRL filing (file, element, context) */
  xbrl: number;
  /** gold not traced to a source here; the report counts these apart */
  untraced: number;
  /** out-of-domain: nothing to trace */
  absent: number;
  /** no gold_source (fixture and imported sets) */
  unstated: number;
  /** questions with gold evidence patterns not yet resolved to chunks (resolved_on null) */
  unresolved: number;
}

export interface ValidationReport {
  /** the valid questions per category, in report order */
  counts: Record<QuestionCategory, number>;
  /** non-blank lines */
  total: number;
  /** lines without a problem, and lines with one or more (valid + invalid = total) */
  valid: number;
  invalid: number;
  /** every problem, sorted by line */
  issues: JsonlIssue[];
  traceability: Traceability;
}

/** `gold traced to XBRL 145, untraced 6, out-of-domain 45, unstated 0; unresolved 155` */
export function formatTraceability(t: Traceability): string {
  return `gold traced to XBRL ${t.xbrl}, untraced ${t.untraced}, out-of-domain ${t.absent}, unstated ${t.unstated}; unresolved ${t.unresolved}`;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * `grounded-direct 45, grounded-multihop 45, adversarial 65, out-of-domain 45; valid 200, invalid 0,
 * total 200`: the categories of the valid questions, then how many lines are valid, invalid, and in all.
 */
export function formatCounts(
  report: Pick<ValidationReport, 'counts' | 'total' | 'valid' | 'invalid'>,
): string {
  const categories = QUESTION_CATEGORIES.map((c) => `${c} ${report.counts[c]}`).join(', ');
  return `${categories}; valid ${report.valid}, invalid ${report.invalid}, total ${report.total}`;
}

export function validateQuestions(lines: readonly QuestionLine[], opts: ValidateOptions): ValidationReport {
  const issues: JsonlIssue[] = [];
  const counts = Object.fromEntries(QUESTION_CATEGORIES.map((c) => [c, 0])) as Record<
    QuestionCategory,
    number
  >;
  const chunkById = opts.chunks === null ? null : new Map((opts.chunks ?? []).map((c) => [c.id, c]));
  const traceability: Traceability = { xbrl: 0, untraced: 0, absent: 0, unstated: 0, unresolved: 0 };
  const firstLineOfId = new Map<string, number>();
  const checkVersion = versionCheck(opts.expectedVersion);
  const categoryOf = new Map<number, QuestionCategory>();

  for (const l of lines) {
    const { line, json } = l;
    const obj = isRecord(json) ? json : undefined;
    const version = obj?.version;
    const versionIsNumber = typeof version === 'number' && Number.isInteger(version) && version > 0;

    // Schema problems; a version that is a positive integer is judged by the version check below.
    for (const issue of l.issues) {
      if (versionIsNumber && issue.field === 'version') continue;
      issues.push(issue);
    }
    if (!obj) continue;

    if (typeof obj.category === 'string' && (QUESTION_CATEGORIES as readonly string[]).includes(obj.category))
      categoryOf.set(line, obj.category as QuestionCategory);

    if (versionIsNumber) issues.push(...checkVersion(version, line));

    if (typeof obj.id === 'string') {
      const first = firstLineOfId.get(obj.id);
      if (first === undefined) firstLineOfId.set(obj.id, line);
      else issues.push({ line, field: 'id', message: `duplicate id ${obj.id} (first at line ${first})` });
    }

    const q = l.question;
    if (q) {
      traceability[q.gold_source?.kind ?? 'unstated']++;
      if (q.gold_evidence !== undefined && q.resolved_on === null) traceability.unresolved++;
      issues.push(...resolvedOnIssues(q, line, opts.indexChecksum));
    }
    if (!q || q.category === 'out-of-domain') continue;
    issues.push(...goldIssues(q, line, chunkById));
  }
  issues.sort((a, b) => a.line - b.line);
  // a line with any problem is invalid; the categories count the valid questions only
  const invalidLines = new Set(issues.map((i) => i.line));
  for (const [line, category] of categoryOf) if (!invalidLines.has(line)) counts[category]++;
  const invalid = lines.filter((l) => invalidLines.has(l.line)).length;
  return { counts, total: lines.length, valid: lines.length - invalid, invalid, issues, traceability };
}

/**
 * The check that every question carries one version: the expected one when given, else the first
 * line's (the reference is the first version seen).
 */
function versionCheck(expected: number | undefined): (version: number, line: number) => JsonlIssue[] {
  let reference: { version: number; line: number } | undefined =
    expected === undefined ? undefined : { version: expected, line: 0 };
  return (version, line) => {
    if (!reference) {
      reference = { version, line };
      return [];
    }
    if (version === reference.version) return [];
    return [
      {
        line,
        field: 'version',
        message:
          reference.line === 0
            ? `version ${version} does not match the expected version ${reference.version}`
            : `version ${version} differs from version ${reference.version} of line ${reference.line}`,
      },
    ];
  };
}

/** Gold resolved on another index than this one (`resolved_on` against the index checksum). */
function resolvedOnIssues(q: Question, line: number, indexChecksum: string | undefined): JsonlIssue[] {
  if (!q.resolved_on || !indexChecksum || q.resolved_on === indexChecksum) return [];
  return [
    {
      line,
      field: 'resolved_on',
      message: `gold resolved on index ${q.resolved_on.slice(0, 12)}, but the index is ${indexChecksum.slice(0, 12)}: run \`rge questions resolve --config <config> --write\``,
    },
  ];
}

/**
 * Gold chunk ids not in the index (every id an error when there is no index), and gold quotes in none
 * of the question's gold chunks.
 */
function goldIssues(q: Question, line: number, chunkById: Map<string, Chunk> | null): JsonlIssue[] {
  if (chunkById === null)
    return q.gold_chunk_ids.length > 0
      ? [
          {
            line,
            field: 'gold_chunk_ids',
            message: 'no index to check the gold chunk ids against: pass --index',
          },
        ]
      : [];
  const issues: JsonlIssue[] = [];
  const gold: Chunk[] = [];
  q.gold_chunk_ids.forEach((id, i) => {
    const chunk = chunkById.get(id);
    if (chunk) gold.push(chunk);
    else issues.push({ line, field: `gold_chunk_ids.${i}`, message: `chunk ${id} is not in the index` });
  });
  if (gold.length === 0) return issues; // the quotes cannot be checked against chunks that do not exist
  const texts = gold.map((c) => normaliseWhitespace(c.text));
  q.gold_quotes.forEach((quote, i) => {
    const wanted = normaliseWhitespace(quote);
    if (!texts.some((t) => t.includes(wanted)))
      issues.push({
        line,
        field: `gold_quotes.${i}`,
        message: `quote "${shortQuote(wanted)}" is not in any of the question's gold chunks`,
      });
  });
  return issues;
}
