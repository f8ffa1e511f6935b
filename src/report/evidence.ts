/**
 * Evidence recall in the report: per subject and category, how much of the questions' gold evidence the
 * passages each subject answered from held (rge's top-k for a model in rge's pipeline; a system's own
 * contexts), and each failing case's cause: a retrieval miss (no gold evidence reached the model), a
 * partial retrieval (some did), or a generation failure (all of it did, and the answer is still wrong or
 * ungrounded). A case fails when its correctness or its grounding, over its panel, is below 1.5 of 2.
 * Questions without gold evidence (out of domain) are left out. Pure. Its section of the report:
 * src/report/sections/evidence.ts.
 */
import type { CaseRowView } from './views.ts';

/** Mean correctness or grounding below this fails a case (the gate's CORRECT_AT). */
export const FAILING_BELOW = 1.5;

export type FailureCause = 'retrieval miss' | 'partial retrieval' | 'generation failure';

export interface EvidenceCell {
  /** cases with gold evidence */
  cases: number;
  meanRecall: number | null;
  /** cases whose passages held all of it, and none of it */
  all: number;
  none: number;
}

export interface EvidenceSection {
  /** subject -> category -> recall */
  bySubject: Record<string, Record<string, EvidenceCell>>;
  /** subject -> the causes of its failing cases */
  failures: Record<string, Record<FailureCause, number> & { failing: number }>;
}

type Recalled = CaseRowView & { evidence?: { recall: number | null } };

/** Whether a case fails: its correctness or grounding below FAILING_BELOW (unscored: not counted). */
export function failing(r: CaseRowView): boolean {
  const { correctness, grounding } = r.scores;
  return (
    (correctness !== null && correctness < FAILING_BELOW) || (grounding !== null && grounding < FAILING_BELOW)
  );
}

/** Why a failing case failed, by what its passages held; null when it has no gold evidence or no measure. */
export function failureCause(r: CaseRowView): FailureCause | null {
  const recall = (r as Recalled).evidence?.recall;
  if (recall === undefined || recall === null) return null;
  return recall === 0 ? 'retrieval miss' : recall < 1 ? 'partial retrieval' : 'generation failure';
}

export function evidenceSection(rows: readonly CaseRowView[]): EvidenceSection | null {
  const measured = (rows as readonly Recalled[]).filter(
    (r) => r.evidence !== undefined && r.evidence.recall !== null,
  );
  if (measured.length === 0) return null;
  const bySubject: EvidenceSection['bySubject'] = {};
  const failures: EvidenceSection['failures'] = {};
  for (const r of measured) {
    const recall = r.evidence?.recall as number;
    const perCategory = bySubject[r.subject_id] ?? {};
    bySubject[r.subject_id] = perCategory;
    const cell = perCategory[r.category] ?? { cases: 0, meanRecall: 0, all: 0, none: 0 };
    perCategory[r.category] = cell;
    cell.cases++;
    cell.meanRecall = (cell.meanRecall ?? 0) + recall;
    if (recall === 1) cell.all++;
    if (recall === 0) cell.none++;
    const f = failures[r.subject_id] ?? {
      failing: 0,
      'retrieval miss': 0,
      'partial retrieval': 0,
      'generation failure': 0,
    };
    failures[r.subject_id] = f;
    const cause = failureCause(r);
    if (failing(r) && cause) {
      f.failing++;
      f[cause]++;
    }
  }
  for (const perCategory of Object.values(bySubject))
    for (const cell of Object.values(perCategory)) cell.meanRecall = (cell.meanRecall ?? 0) / cell.cases;
  return { bySubject, failures };
}
