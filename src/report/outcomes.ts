/**
 * What became of each subject's cases, and the rule for a subject's own failure (issue 51). Pure.
 *
 * A case the subject gave no answer for (a user's system crashed, timed out, exited non-zero, replied
 * malformed or with an HTTP error, or broke the contract: `CaseErrorView.by === 'subject'`) is a wrong
 * answer for the user: in the ranking it scores 0 on every dimension and GFS 0, as if the judges had
 * said so (the GFS table, the ranking and its probabilities, the pairwise tests, the MDD, the variance
 * and consistency sections, and the cells `rge gate` pairs). Beside it the report gives the subject's GFS
 * over its answered cases only. Nothing else changes: a case no judge scored (unscored) is a judge's
 * failure, not the subject's, and stays out of every mean; a case not computed because the run stopped
 * (the budget cap, Ctrl-C) or a judge's call failed stays listed under Errors and left out. The
 * sections about answers (checks, evidence, agreement, latency, cost, the judge-error-corrected GFS)
 * read the answered cases, which are all there is to read.
 */
import { ALL, gfsTable, type Interval, type RowsBySubject } from './scores.ts';
import type { CaseErrorView, CaseRowView } from './views.ts';

/** A case the subject gave no answer for, with its cell. */
export type SubjectFailure = CaseErrorView &
  Required<Pick<CaseErrorView, 'subject_id' | 'question_id' | 'run_index' | 'category'>> & {
    by: 'subject';
  };

export interface SubjectOutcome {
  /** cases with a result, and of them the ones no judge scored (a judge's failure: left out) */
  answered: number;
  unscored: number;
  /** cases the subject gave no answer for: its own failure, scored 0 in the ranking and the gate */
  failed: number;
  /** cases without a result for another reason (a judge's call, the run stopped, an error): left out */
  notComputed: number;
  /**
   * GFS over the answered cases only, both weightings, all questions (null when the subject failed no
   * case: the GFS table's `all` column is that figure)
   */
  answeredOnly: { primary: Interval | null; equal: Interval | null } | null;
}

/** Per subject, in the summary's order of subjects. */
export type Outcomes = Record<string, SubjectOutcome>;

/** The rule as the report states it (the GFS section, summary.json's `outcomes`). */
export const FAILURE_RULE =
  "A subject's own failure (it gave no answer: a crash, a timeout, a non-zero exit, a malformed reply, an HTTP error, a contract violation) is a wrong answer for the user: it scores 0 on every dimension and GFS 0 in the ranking, the pairwise tests and the gate, with the subject's GFS over its answered cases beside it. A case no judge scored (a judge's failure) and a case not computed because the run stopped are not the subject's: they are left out.";

/** The cases among `errors` that their subject gave no answer for (with their cell known). */
export function subjectFailures(errors: readonly CaseErrorView[]): SubjectFailure[] {
  return errors.filter(
    (e): e is SubjectFailure =>
      e.by === 'subject' &&
      e.subject_id !== undefined &&
      e.question_id !== undefined &&
      e.run_index !== undefined &&
      e.category !== undefined,
  );
}

/** A failed case as the ranking scores it: 0 on every dimension, GFS 0, scored (never unscored). */
export function scoredAsZero(f: SubjectFailure): CaseRowView {
  return {
    question_id: f.question_id,
    category: f.category,
    ...(f.gold_untraced ? { gold_untraced: true as const } : {}),
    subject_id: f.subject_id,
    model: f.subject_id,
    run_index: f.run_index,
    subject_prompt_hash: '',
    judge_prompt_hash: '',
    latency_ms: 0,
    cost_usd: 0,
    no_answer: true,
    verdicts: [],
    scores: {
      correctness: 0,
      grounding: 0,
      calibration: 0,
      gfsPrimary: 0,
      gfsEqual: 0,
      unscored: false,
      contested: false,
      contestedDimensions: [],
    },
    checks: {},
  };
}

/** Each subject's rows as the ranking reads them: its answered cases, then its failures scored 0. */
export function rankedRows(
  models: readonly string[],
  answered: RowsBySubject,
  failures: readonly SubjectFailure[],
): RowsBySubject {
  return new Map(
    models.map((m) => [
      m,
      [...(answered.get(m) ?? []), ...failures.filter((f) => f.subject_id === m).map(scoredAsZero)],
    ]),
  );
}

/** Each subject's cases by outcome, and its answered-only GFS where it failed a case. */
export function outcomes(
  answered: RowsBySubject,
  failures: readonly SubjectFailure[],
  errors: readonly CaseErrorView[],
  opts: { seed: string; resamples: number },
): Outcomes {
  const out: Outcomes = {};
  for (const [m, rows] of answered) {
    const failed = failures.filter((f) => f.subject_id === m).length;
    const others = errors.filter((e) => e.subject_id === m && e.by !== 'subject').length;
    const onlyAnswered =
      failed === 0 ? null : gfsTable(new Map([[m, rows]]), [], opts.seed, opts.resamples)[m]?.[ALL];
    out[m] = {
      answered: rows.length,
      unscored: rows.filter((r) => r.scores.unscored).length,
      failed,
      notComputed: others,
      answeredOnly: onlyAnswered ?? null,
    };
  }
  return out;
}
