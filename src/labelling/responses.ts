/**
 * A run's completed responses, read from its cell stores: every (subject, question, run index) whose
 * answer and both verdicts are stored, as a validation item (the case the judges saw, the answer, the
 * verdicts) beside its case row. Nothing is called and nothing is written.
 */
import { type CaseRow, caseRow } from '../run/case.ts';
import type { RunSession } from '../run/open.ts';
import type { SubjectCell } from '../run/work.ts';
import { RgeError } from '../util/errors.ts';
import { ValidationItem } from './schema.ts';

export interface CompletedResponse {
  cell: SubjectCell;
  row: CaseRow;
  item: ValidationItem;
}

/** The validation item of a completed cell. */
export function validationItem(cell: SubjectCell, row: CaseRow): ValidationItem {
  const q = cell.question;
  return ValidationItem.parse({
    item_id: cell.id,
    answer_key: row.answer_key,
    subject_id: row.subject_id,
    model: row.model,
    question_id: q.id,
    run_index: cell.runIndex,
    category: q.category,
    expected_behavior: q.expected_behavior,
    question: q.text,
    gold_answer: q.gold_answer,
    gold_quotes: q.gold_quotes,
    chunks: cell.chunks.map((c) => ({
      id: c.id,
      company: c.company,
      fy: c.fy,
      heading: c.heading,
      pages: [c.pages[0], c.pages[1]],
      text: c.text,
    })),
    answer: row.answer,
    verdicts: row.verdicts,
  });
}

/**
 * Every completed response of a run. A run whose stores hold none of its cells is an error saying so
 * (exit 1): run it first.
 */
export async function completedResponses(
  run: RunSession,
): Promise<{ responses: CompletedResponse[]; missing: number }> {
  const responses: CompletedResponse[] = [];
  let missing = 0;
  const cells = await run.work.cells();
  for (const cell of cells) {
    let row: CaseRow;
    try {
      row = caseRow(run, cell);
    } catch (err) {
      if (!(err instanceof RgeError)) throw err;
      missing += 1;
      continue;
    }
    responses.push({ cell, row, item: validationItem(cell, row) });
  }
  if (responses.length === 0)
    throw new RgeError(
      `run ${run.plan.info.runId} has no completed responses in ${run.plan.info.resultsDir} (none of its ${cells.length} ` +
        `cells has an answer and both verdicts stored); run it first (npx vitest run evals, or rge eval run ` +
        `with the same --config and narrowing) and give its --results-dir`,
    );
  return { responses, missing };
}
