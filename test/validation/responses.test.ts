/**
 * A run's completed responses from the cells and case rows its caller read: each complete cell becomes
 * the validation item of its case, an incomplete one (no case row) is counted, and a run with none is an
 * error that says to run it first.
 */
import { describe, expect, it } from 'vitest';
import { Question } from '../../src/questions/schema.ts';
import { completedResponses, type ResponseCell, type ResponseRow } from '../../src/validation/index.ts';
import { handItem } from './hand-sample.ts';

/** The cell and case row a run would hold for the hand-written item `i`. */
function stored(i: number): { cell: ResponseCell; row: ResponseRow } {
  const item = handItem(i);
  const question = Question.parse({
    version: 1,
    id: item.question_id,
    category: item.category,
    text: item.question,
    gold_answer: item.gold_answer,
    gold_chunk_ids: item.expected_behavior === 'refuse' ? [] : [item.chunks[0]?.id],
    gold_quotes: item.gold_quotes,
    expected_behavior: item.expected_behavior,
    companies: ['acme'],
    fiscal_years: ['FY24'],
    difficulty: 'easy',
    authoring_notes: 'by hand',
    must_include: [],
    must_not_include: [],
    numeric_gold: [],
    distractor: null,
    source: { dataset: 'rge-fixture', ref: item.question_id },
  });
  return {
    cell: { id: item.item_id, question, runIndex: item.run_index, chunks: item.chunks },
    row: {
      answer_key: item.answer_key,
      subject_id: item.subject_id,
      model: item.model,
      answer: item.answer,
      verdicts: item.verdicts,
    },
  };
}

describe('completedResponses', () => {
  it('gives each complete cell its validation item and counts the cells without a case row', () => {
    // hand items 0 and 1 are grounded questions (2 is adversarial, which would need a distractor)
    const one = stored(0);
    const two = stored(1);
    const { responses, missing } = completedResponses([one, { cell: stored(4).cell, row: null }, two], {
      runId: 'fixture-abc',
      resultsDir: '/results',
    });
    expect(missing).toBe(1);
    expect(responses.map((r) => r.item)).toEqual([handItem(0), handItem(1)]);
    expect(responses[0]?.cell).toBe(one.cell);
    expect(responses[1]?.row).toBe(two.row);
  });

  it('is an error naming the run and its results folder when no cell is complete', () => {
    expect(() =>
      completedResponses([{ cell: stored(0).cell, row: null }], {
        runId: 'fixture-abc',
        resultsDir: '/results',
      }),
    ).toThrow(
      'run fixture-abc has no completed responses in /results (none of its 1 cells has an answer and both verdicts stored); run it first',
    );
  });
});
