/**
 * The golden set a review approves (pure): the questions a person accepted, as generated, or edited, as
 * edited and re-verified, in the order of the questions file, each with `provenance.review` saying which.
 * Rejected, unreviewed and stale questions are left out.
 */
import type { Question } from '../schema.ts';
import type { ReviewDecision } from './record.ts';

export interface ApprovedSet {
  questions: Question[];
  accepted: number;
  edited: number;
  rejected: number;
  unreviewed: number;
}

/** A question with its provenance's review set (a question without provenance is kept as it is). */
function reviewed(q: Question, review: 'accepted' | 'edited'): Question {
  return q.provenance ? { ...q, provenance: { ...q.provenance, review } } : q;
}

/** The approved questions of a file, given the standing decision per question id. */
export function approvedQuestions(
  questions: readonly Question[],
  decided: ReadonlyMap<string, Pick<ReviewDecision, 'decision' | 'question'>>,
): ApprovedSet {
  const set: ApprovedSet = { questions: [], accepted: 0, edited: 0, rejected: 0, unreviewed: 0 };
  for (const q of questions) {
    const d = decided.get(q.id);
    if (!d) set.unreviewed++;
    else if (d.decision === 'rejected') set.rejected++;
    else if (d.decision === 'accepted') {
      set.accepted++;
      set.questions.push(reviewed(q, 'accepted'));
    } else {
      set.edited++;
      set.questions.push(reviewed(d.question ?? q, 'edited'));
    }
  }
  return set;
}
