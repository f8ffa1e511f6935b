/**
 * The run's failing cases grouped by kind, for the report's second screen: how many cases share a
 * failure, per subject, and one example of each kind. Pure.
 *
 * A case fails when no judge scored it (unscored), or when its mean correctness or grounding over its
 * panel is below FAILING_BELOW (the definition src/report/evidence.ts uses). Each failing case is
 * counted under exactly one kind: the first of FAILURE_KINDS, in this order (the precedence), that
 * applies to it. The kinds read what the run already has: the verdicts' scores, the deterministic
 * checks (refusalAccuracy, mustNotInclude, mustInclude, numbersTraced) and the evidence recall of the
 * passages the subject answered from. Its section of the report: src/report/sections/failure-kinds.ts.
 */
import { FAILING_BELOW, failing } from './evidence.ts';
import { type CaseRowView, fullRow } from './views.ts';

/** The kinds, in precedence order: a case is counted under the first that applies. */
export const FAILURE_KINDS = [
  'unscored',
  'under-refusal',
  'retrieval miss',
  'over-refusal',
  'wrong period or entity',
  'wrong figure',
  'ungrounded',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** What each kind means, as the report's table says it. */
export const FAILURE_KIND_MEANING: Record<FailureKind, string> = {
  unscored: 'no judge scored the answer (a failure is data, not a zero)',
  'under-refusal': 'answered a question it should have declined (refusalAccuracy: missed refusal)',
  'retrieval miss':
    "none of the question's gold evidence was in the passages the subject answered from (evidence recall 0; in older rows, no gold chunk in the top k)",
  'over-refusal': 'declined a question whose evidence reached it (refusalAccuracy: over-refusal)',
  'wrong period or entity':
    "stated the planted distractor's figure: another year, period, unit, company or scope (mustNotInclude failed)",
  'wrong figure': `correctness below ${FAILING_BELOW}: the answer does not state the gold figure or fact`,
  ungrounded: `correct enough, but grounding below ${FAILING_BELOW}: claims the cited passages do not support`,
};

/** One failing case, as its kind's example shows it. */
export interface FailureExample {
  cell: string;
  subject: string;
  question_id: string;
  run_index: number;
  category: string;
  gfs: number | null;
  question: { text: string; expected_behavior: string; gold_answer: string; gold_quotes: string[] } | null;
  answer: string;
  /** why the case is of its kind: the check's detail, the evidence missing or the judges' rationale */
  why: string;
}

export interface FailureKinds {
  /** FAILURE_KINDS: the order the kinds are tried in */
  precedence: FailureKind[];
  /** per subject: its cases, its failing cases, and how many of them are of each kind */
  bySubject: Record<string, { cases: number; failing: number; kinds: Record<FailureKind, number> }>;
  /** each kind's example: its lowest-GFS case (then by subject, question, run); null when none */
  examples: Record<FailureKind, FailureExample | null>;
}

interface CheckView {
  passed?: boolean | null;
  detail?: string;
}

interface RationaleView {
  correctness?: { rationale?: string };
  grounding?: { rationale?: string };
}

const checkOf = (r: CaseRowView, name: string): CheckView | null => {
  const c = r.checks[name];
  return c !== null && typeof c === 'object' ? (c as CheckView) : null;
};
const failed = (r: CaseRowView, name: string) => checkOf(r, name)?.passed === false;

/** Whether the passages held none of the gold evidence; null when the row cannot tell. */
function retrievalMissed(r: CaseRowView): boolean | null {
  const recall = r.evidence?.recall;
  if (recall !== undefined && recall !== null) return recall === 0;
  if (r.retrieval_hit !== undefined && r.retrieval_hit !== null) return !r.retrieval_hit;
  return null;
}

/** A failing case's kind; null when the case does not fail. */
export function failureKind(r: CaseRowView): FailureKind | null {
  if (r.scores.unscored) return 'unscored';
  if (!failing(r)) return null;
  const refusalFailed = failed(r, 'refusalAccuracy');
  if (refusalFailed && r.expected_behavior === 'refuse') return 'under-refusal';
  if (retrievalMissed(r) === true) return 'retrieval miss';
  if (refusalFailed) return 'over-refusal';
  if (failed(r, 'mustNotInclude')) return 'wrong period or entity';
  const { correctness } = r.scores;
  if (correctness !== null && correctness < FAILING_BELOW) return 'wrong figure';
  return 'ungrounded';
}

/** The first scored judge's rationale on a dimension, when its verdict carries one. */
function rationale(r: CaseRowView, dim: 'correctness' | 'grounding'): string | null {
  for (const v of r.verdicts) {
    const text = (v.verdict as RationaleView | null)?.[dim]?.rationale;
    if (text) return `${v.judgeId}: ${text}`;
  }
  return null;
}

/** Why a case is of its kind, in the words of the check, the evidence or the judges. */
function whyOf(r: CaseRowView, kind: FailureKind): string {
  const detail = (name: string) => {
    const c = checkOf(r, name);
    return c?.passed === false && c.detail ? `${name}: ${c.detail}` : null;
  };
  switch (kind) {
    case 'unscored':
      return r.verdicts.map((v) => `${v.judgeId} ${v.status}`).join('; ') || 'no verdict';
    case 'under-refusal':
    case 'over-refusal':
      return detail('refusalAccuracy') ?? kind;
    case 'retrieval miss': {
      const missing = r.evidence?.missing ?? [];
      return missing.length > 0
        ? `not in the passages: ${missing.join('; ')}`
        : 'no gold chunk in the retrieved top k';
    }
    case 'wrong period or entity':
      return detail('mustNotInclude') ?? kind;
    case 'wrong figure':
      return `${detail('mustInclude') ?? rationale(r, 'correctness') ?? kind}${partly(r)}`;
    case 'ungrounded':
      return `${detail('numbersTraced') ?? rationale(r, 'grounding') ?? kind}${partly(r)}`;
  }
}

/** A note when only part of the gold evidence reached the subject (a partial retrieval). */
function partly(r: CaseRowView): string {
  const recall = r.evidence?.recall;
  return recall !== undefined && recall !== null && recall > 0 && recall < 1
    ? `; a partial retrieval: ${Math.round(100 * recall)}% of the gold evidence reached the subject`
    : '';
}

function example(compact: CaseRowView, kind: FailureKind): FailureExample {
  const r = fullRow(compact);
  return {
    cell: `${r.subject_id}/${r.question_id}/run ${r.run_index}`,
    subject: r.subject_id,
    question_id: r.question_id,
    run_index: r.run_index,
    category: r.category,
    gfs: r.scores.gfsPrimary,
    question: r.question
      ? {
          text: r.question.text,
          expected_behavior: r.expected_behavior ?? '',
          gold_answer: r.question.gold_answer,
          gold_quotes: [...r.question.gold_quotes],
        }
      : null,
    answer: r.answer ?? '',
    why: whyOf(r, kind),
  };
}

/** Lowest GFS first (unscored last), then subject, question and run: the example a kind shows. */
const byExampleOrder = (a: CaseRowView, b: CaseRowView) =>
  (a.scores.gfsPrimary ?? Number.POSITIVE_INFINITY) - (b.scores.gfsPrimary ?? Number.POSITIVE_INFINITY) ||
  a.subject_id.localeCompare(b.subject_id) ||
  a.question_id.localeCompare(b.question_id) ||
  a.run_index - b.run_index;

const noKinds = () => Object.fromEntries(FAILURE_KINDS.map((k) => [k, 0])) as Record<FailureKind, number>;

export function failureKinds(rows: readonly CaseRowView[]): FailureKinds {
  const bySubject: FailureKinds['bySubject'] = {};
  const firstOf = new Map<FailureKind, CaseRowView>();
  for (const r of rows) {
    const mine = bySubject[r.subject_id] ?? { cases: 0, failing: 0, kinds: noKinds() };
    bySubject[r.subject_id] = mine;
    mine.cases++;
    const kind = failureKind(r);
    if (kind === null) continue;
    mine.failing++;
    mine.kinds[kind]++;
    const shown = firstOf.get(kind);
    if (!shown || byExampleOrder(r, shown) < 0) firstOf.set(kind, r);
  }
  const examples = Object.fromEntries(
    FAILURE_KINDS.map((k) => {
      const r = firstOf.get(k);
      return [k, r ? example(r, k) : null];
    }),
  ) as Record<FailureKind, FailureExample | null>;
  return { precedence: [...FAILURE_KINDS], bySubject, examples };
}
