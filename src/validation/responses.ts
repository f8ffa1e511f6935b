/**
 * A run's completed responses: every (subject, question, run index) whose answer and both verdicts are
 * stored, as a validation item (the case the judges saw, the answer, the verdicts) beside its case row.
 * The caller reads the cells and their case rows from the run's stores (src/cli/labelling.ts); nothing
 * here reads a store, calls a model or writes anything.
 */
import type { JudgeOutcome } from '../judging/verdict.ts';
import type { ContextChunk } from '../providers/types.ts';
import type { Question } from '../questions/schema.ts';
import { RgeError } from '../util/errors.ts';
import { ValidationItem } from './schema.ts';

/** What an item needs of a run's cell (run/session/work.ts `SubjectCell`): its id, question, run and chunks. */
export interface ResponseCell {
  /** `subject/question/run` */
  id: string;
  question: Question;
  runIndex: number;
  chunks: readonly ContextChunk[];
}

/** What an item needs of a cell's case row (run/case/case.ts `CaseRow`): the answer, its key, the verdicts. */
export interface ResponseRow {
  answer_key: string;
  subject_id: string;
  model: string;
  answer: string;
  verdicts: JudgeOutcome[];
}

/** A cell of the run with its case row; null when its answer or a verdict is not stored. */
export interface StoredCell<Cell extends ResponseCell, Row extends ResponseRow> {
  cell: Cell;
  row: Row | null;
}

export interface CompletedResponse<
  Cell extends ResponseCell = ResponseCell,
  Row extends ResponseRow = ResponseRow,
> {
  cell: Cell;
  row: Row;
  item: ValidationItem;
}

/** The validation item of a completed cell. */
export function validationItem(cell: ResponseCell, row: ResponseRow): ValidationItem {
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
      ...(c.source !== undefined ? { source: c.source } : {}),
    })),
    answer: row.answer,
    verdicts: row.verdicts,
  });
}

/**
 * Every completed response among a run's cells (`missing`: the cells without a case row). A run whose
 * stores hold none of its cells is an error saying so (exit 1): run it first.
 */
export function completedResponses<Cell extends ResponseCell, Row extends ResponseRow>(
  cells: readonly StoredCell<Cell, Row>[],
  run: { runId: string; resultsDir: string },
): { responses: CompletedResponse<Cell, Row>[]; missing: number } {
  const responses: CompletedResponse<Cell, Row>[] = [];
  let missing = 0;
  for (const { cell, row } of cells) {
    if (row === null) {
      missing += 1;
      continue;
    }
    responses.push({ cell, row, item: validationItem(cell, row) });
  }
  if (responses.length === 0)
    throw new RgeError(
      `run ${run.runId} has no completed responses in ${run.resultsDir} (none of its ${cells.length} ` +
        `cells has an answer and both verdicts stored); run it first (npx vitest run evals, or rge eval run ` +
        `with the same --config and narrowing) and give its --results-dir`,
    );
  return { responses, missing };
}
