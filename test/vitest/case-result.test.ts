/**
 * A case as `rge eval run --json` lists it (src/vitest/run.ts `caseResult`): a case with a row carries its
 * cell and scores; a case that failed without a row carries its cell from its failure record
 * (`rgeFailure`, src/vitest/meta.ts), and whether its subject gave no answer, never nulls for its ids.
 */
import { describe, expect, it } from 'vitest';
import type { RgeCaseFailure, RgeCaseMeta } from '../../src/vitest/meta.ts';
import { caseResult } from '../../src/vitest/run.ts';

const failed = (message: string) => ({ state: 'failed', errors: [{ message }] });

describe('a case in --json', () => {
  it('a case the subject gave no answer for: its subject, question id, run index and category', () => {
    const failure: RgeCaseFailure = {
      subject_id: 'app',
      question_id: 'gd-002',
      run_index: 1,
      category: 'grounded-direct',
      by: 'subject',
    };
    const message = 'app/gd-002/run 1: no answer: module app.ts: question gd-002: the function threw: down';
    expect(caseResult('app › grounded-direct › gd-002 › run 1', failed(message), failure)).toEqual({
      name: 'app › grounded-direct › gd-002 › run 1',
      subject: 'app',
      question_id: 'gd-002',
      run_index: 1,
      category: 'grounded-direct',
      state: 'failed',
      failures: [message],
      scores: null,
      no_answer: true,
    });
    // a case the run stopped before: its ids too, and not the subject's failure
    expect(caseResult('x', failed('cap'), { ...failure, by: 'run' })).toMatchObject({
      subject: 'app',
      question_id: 'gd-002',
      no_answer: false,
    });
  });

  it('a case with a row: its cell and scores, as before', () => {
    const meta: RgeCaseMeta = {
      subject_id: 'app',
      question_id: 'gd-001',
      run_index: 0,
      prompt_hash: 'h',
      category: 'grounded-direct',
      reused: false,
      scores: { correctness: 2, grounding: 1, calibration: 2, gfs: 0.8 },
    };
    const result = caseResult('n', { state: 'passed' }, meta);
    expect(result).toMatchObject({
      subject: 'app',
      question_id: 'gd-001',
      run_index: 0,
      scores: meta.scores,
    });
    expect(result).not.toHaveProperty('no_answer');
  });
});
