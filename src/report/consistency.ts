/**
 * Consistency across runs, per subject and category (issue 40, item 3): each question is answered k
 * times, and a mean hides whether the same questions pass every time. Pure.
 *
 * A case passes when a judge scored it and neither its mean correctness nor its mean grounding is below
 * FAILING_BELOW (the report's failing cases, src/report/evidence.ts; an unscored case does not pass). Per
 * question, over its runs:
 * - pass^k: every run passes (the share of questions a user can rely on, whatever run they get);
 * - flip: the runs disagree (some pass, some do not);
 * - never: no run passes.
 * The three add up to the questions. Each share has a Wilson 95% interval over the questions (a
 * question is one unit: its runs are not independent). Questions with fewer runs than the most any
 * question of the subject has (a partial run) are left out and counted.
 */
import { type ProportionInterval, wilsonInterval } from '../stats/index.ts';
import { FAILING_BELOW, failing } from './evidence.ts';
import type { CaseRowView } from './views.ts';

/** Whether a case passes (the report's definition of a failing case, unscored failing). */
export const casePasses = (r: CaseRowView): boolean => !r.scores.unscored && !failing(r);

export interface ConsistencyCell {
  /** runs per question (k): the most any question of the subject has */
  runs: number;
  /** questions with k runs (the cell's units) */
  questions: number;
  /** questions left out: fewer than k runs in this report */
  incomplete: number;
  /** every run passes (pass^k) */
  allPass: ProportionInterval;
  /** the runs disagree: the flip rate */
  flip: ProportionInterval;
  /** no run passes */
  never: ProportionInterval;
  /** the share of cases that pass (the mean the other three take apart) */
  casePassRate: number;
}

export interface Consistency {
  rule: string;
  /** per subject: `all` (every category) and each category */
  bySubject: Record<string, Record<string, ConsistencyCell>>;
}

export const CONSISTENCY_ALL = 'all';

/** The cell of a set of rows whose questions have `runs` runs. */
function cellOf(rows: readonly CaseRowView[], runs: number): ConsistencyCell {
  const byQuestion = new Map<string, boolean[]>();
  for (const r of rows) {
    // appended in place, not copied per row (quadratic in a question's runs)
    const passes = byQuestion.get(r.question_id);
    if (passes) passes.push(casePasses(r));
    else byQuestion.set(r.question_id, [casePasses(r)]);
  }
  let allPass = 0;
  let flip = 0;
  let never = 0;
  let incomplete = 0;
  for (const passes of byQuestion.values()) {
    if (passes.length < runs) {
      incomplete++;
      continue;
    }
    const passed = passes.filter(Boolean).length;
    if (passed === passes.length) allPass++;
    else if (passed === 0) never++;
    else flip++;
  }
  const questions = allPass + flip + never;
  return {
    runs,
    questions,
    incomplete,
    allPass: wilsonInterval(allPass, questions),
    flip: wilsonInterval(flip, questions),
    never: wilsonInterval(never, questions),
    casePassRate: rows.length === 0 ? Number.NaN : rows.filter(casePasses).length / rows.length,
  };
}

/** pass^k and flip rates per subject, over all its questions and per category. */
export function consistency(bySubject: ReadonlyMap<string, readonly CaseRowView[]>): Consistency {
  const out: Consistency['bySubject'] = {};
  for (const [subject, rows] of bySubject) {
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.question_id, (counts.get(r.question_id) ?? 0) + 1);
    const runs = Math.max(0, ...counts.values());
    const categories = [...new Set(rows.map((r) => r.category))].sort();
    out[subject] = {
      [CONSISTENCY_ALL]: cellOf(rows, runs),
      ...Object.fromEntries(
        categories.map((c) => [
          c,
          cellOf(
            rows.filter((r) => r.category === c),
            runs,
          ),
        ]),
      ),
    };
  }
  return {
    rule: `a case passes when a judge scored it and its mean correctness and grounding are both at least ${FAILING_BELOW}; per question over its runs: pass^k = every run passes, flip = the runs disagree, never = none passes; Wilson 95% intervals over questions`,
    bySubject: out,
  };
}
