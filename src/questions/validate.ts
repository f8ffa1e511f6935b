/**
 * The question-set validator: every check in one pass, every problem located by line and field.
 * Pure: it takes the parsed lines and the index's chunks and returns counts and issues; reading files
 * is the caller's job (`rge questions validate`).
 */
import type { Chunk } from '../corpus/schema.ts';
import type { JsonlIssue } from '../util/jsonl.ts';
import { normaliseWhitespace, type QuestionLine } from './load.ts';
import { QUESTION_CATEGORIES, type QuestionCategory } from './schema.ts';

export interface ValidateOptions {
  /** the version every question must carry (a run config's questions.version); default: the first line's */
  expectedVersion?: number;
  /** the chunks of the built index; gold chunk ids and quotes are checked against them */
  chunks: readonly Chunk[];
}

export interface ValidationReport {
  /** questions per category (lines whose category is one of the four), in report order */
  counts: Record<QuestionCategory, number>;
  /** non-blank lines */
  total: number;
  /** every problem, sorted by line */
  issues: JsonlIssue[];
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** `grounded-direct 45, grounded-multihop 45, adversarial 65, out-of-domain 45, total 200` */
export function formatCounts(report: Pick<ValidationReport, 'counts' | 'total'>): string {
  return [...QUESTION_CATEGORIES.map((c) => `${c} ${report.counts[c]}`), `total ${report.total}`].join(', ');
}

export function validateQuestions(lines: readonly QuestionLine[], opts: ValidateOptions): ValidationReport {
  const issues: JsonlIssue[] = [];
  const counts = Object.fromEntries(QUESTION_CATEGORIES.map((c) => [c, 0])) as Record<
    QuestionCategory,
    number
  >;
  const chunkById = new Map(opts.chunks.map((c) => [c.id, c]));
  const firstLineOfId = new Map<string, number>();
  let reference: { version: number; line: number } | undefined =
    opts.expectedVersion === undefined ? undefined : { version: opts.expectedVersion, line: 0 };

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
      counts[obj.category as QuestionCategory]++;

    if (versionIsNumber) {
      if (!reference) reference = { version, line };
      else if (version !== reference.version)
        issues.push({
          line,
          field: 'version',
          message:
            reference.line === 0
              ? `version ${version} does not match the expected version ${reference.version}`
              : `version ${version} differs from version ${reference.version} of line ${reference.line}`,
        });
    }

    if (typeof obj.id === 'string') {
      const first = firstLineOfId.get(obj.id);
      if (first === undefined) firstLineOfId.set(obj.id, line);
      else issues.push({ line, field: 'id', message: `duplicate id ${obj.id} (first at line ${first})` });
    }

    const q = l.question;
    if (!q || q.category === 'out-of-domain') continue;
    const gold: Chunk[] = [];
    q.gold_chunk_ids.forEach((id, i) => {
      const chunk = chunkById.get(id);
      if (chunk) gold.push(chunk);
      else issues.push({ line, field: `gold_chunk_ids.${i}`, message: `chunk ${id} is not in the index` });
    });
    if (gold.length === 0) continue; // the quotes cannot be checked against chunks that do not exist
    const texts = gold.map((c) => normaliseWhitespace(c.text));
    q.gold_quotes.forEach((quote, i) => {
      const wanted = normaliseWhitespace(quote);
      if (!texts.some((t) => t.includes(wanted)))
        issues.push({
          line,
          field: `gold_quotes.${i}`,
          message: `quote "${wanted.length > 60 ? `${wanted.slice(0, 57)}...` : wanted}" is not in any of the question's gold chunks`,
        });
    });
  }
  issues.sort((a, b) => a.line - b.line);
  return { counts, total: lines.length, issues };
}
