/**
 * The panel as vitest-evals judges (src/vitest/evals-harness.ts), by hand: a dimension's 0-2 score
 * halved with the judge's rationale and evidence; an unscored verdict a null score with its raw reply,
 * never a 0; the GFS as it is; vitest-evals' average taken over the scores there are.
 */
import { describe, expect, it } from 'vitest';
import type { JudgeOutcome } from '../../src/judging/verdict.ts';
import type { CaseRow } from '../../src/run/case/case.ts';
import { dimensionScore, gatingNote, gfsScore, headlineGfs } from '../../src/vitest/evals-harness.ts';

const dimension = (score: 0 | 1 | 2, rationale: string) => ({
  evidence: ['Rs 5,237.15 crore'],
  rationale,
  score,
});

const scored: JudgeOutcome = {
  judgeId: 'heuristic/numeric',
  family: 'rge-heuristic-numeric',
  status: 'scored',
  verdict: {
    correctness: dimension(1, 'one of two figures matches'),
    grounding: dimension(2, 'every claim is in a chunk'),
    calibration: dimension(0, 'asserts without hedging'),
    unsupported_claims: [],
  },
  raw: '{}',
  attempts: 1,
  error: null,
  latencyMs: 3,
  costUsd: 0,
};

const unscored: JudgeOutcome = {
  ...scored,
  status: 'unscored',
  verdict: null,
  raw: 'I think the answer is fine',
  attempts: 2,
  error: 'no JSON object in the reply',
};

describe('the panel as vitest-evals judges', () => {
  it("halves a dimension's rubric score and keeps the judge's rationale and evidence", () => {
    expect(dimensionScore(scored, 'correctness')).toEqual({
      score: 0.5,
      metadata: {
        rationale: 'one of two figures matches',
        judge: 'heuristic/numeric',
        family: 'rge-heuristic-numeric',
        rubricScore: 1,
        evidence: ['Rs 5,237.15 crore'],
      },
    });
    expect(dimensionScore(scored, 'grounding').score).toBe(1);
    expect(dimensionScore(scored, 'calibration').score).toBe(0);
  });

  it('records an unscored verdict as a null score with the reply, never as 0', () => {
    const r = dimensionScore(unscored, 'grounding');
    expect(r.score).toBeNull();
    expect(r.metadata).toMatchObject({
      rationale: 'unscored: no JSON object in the reply',
      output: 'I think the answer is fine',
      attempts: 2,
    });
  });

  it('gives the GFS as it is, null when no judge scored', () => {
    const row = (gfs: number | null, contested: boolean) =>
      ({
        verdicts: [scored, unscored],
        scores: {
          correctness: 1,
          grounding: 2,
          calibration: 0,
          gfsPrimary: gfs,
          gfsEqual: gfs,
          scoredJudges: gfs === null ? 0 : 1,
          partial: gfs !== null,
          unscored: gfs === null,
          contested,
          contestedDimensions: contested ? ['grounding'] : [],
        },
      }) as unknown as CaseRow;
    expect(gfsScore(row(0.625, true))).toMatchObject({
      score: 0.625,
      metadata: { rationale: 'GFS 0.625; 1 of 2 panel judges scored; contested on grounding', partial: true },
    });
    expect(gfsScore(row(null, false))).toMatchObject({
      score: null,
      metadata: { rationale: 'unscored: 0 of 2 panel judges scored' },
    });
  });

  it("says on the GFS row whether the run gates the case or only records it, with the question's gold", () => {
    const row = {
      verdicts: [scored, scored],
      question: {
        text: 'q',
        gold_answer: 'Rs 319.17 crore',
        gold_quotes: ['R&D was Rs 319.17 crore.', 'FY24.'],
      },
      scores: {
        gfsPrimary: 0.4,
        gfsEqual: 0.33,
        scoredJudges: 2,
        partial: false,
        contested: false,
        contestedDimensions: [],
      },
    } as unknown as CaseRow;
    const ungated = gfsScore(row, { correctness: null, grounding: null, calibration: null, gfs: null });
    expect(ungated.metadata).toMatchObject({
      rationale:
        'GFS 0.400, recorded, not gated (every threshold is null); 2 of 2 panel judges scored. ' +
        'Gold answer: Rs 319.17 crore. Gold quotes: \u201cR&D was Rs 319.17 crore.\u201d \u201cFY24.\u201d',
      gated: false,
      gold_answer: 'Rs 319.17 crore',
      gold_quotes: ['R&D was Rs 319.17 crore.', 'FY24.'],
    });
    const gated = gfsScore(row, { correctness: null, grounding: null, calibration: null, gfs: 0.9 });
    expect(gated.metadata).toMatchObject({ gated: true, gating: 'gated: gfs >= 0.9' });
    expect(gated.metadata?.rationale).toMatch(/^GFS 0\.400; 2 of 2 panel judges scored\. Gold answer: /);
  });

  it("headlines a case's GFS in vitest-evals, else the mean of the scores there are", () => {
    const task = {
      meta: {
        eval: {
          scores: [
            { name: 'j1 correctness', score: 1 },
            { name: 'GFS', score: 0.4 },
          ],
          avgScore: 0.7,
        },
      },
    };
    headlineGfs(task);
    expect(task.meta.eval.avgScore).toBe(0.4);
    const unscoredGfs = {
      meta: {
        eval: {
          scores: [
            { name: 'a', score: 1 },
            { name: 'b', score: null },
            { name: 'GFS', score: 0.5 },
          ],
          avgScore: 0,
        },
      },
    };
    headlineGfs(unscoredGfs);
    expect(unscoredGfs.meta.eval.avgScore).toBe(0.5);
    const noGfs = {
      meta: { eval: { scores: [{ score: 1 }, { score: null }, { score: 0.5 }], avgScore: 0.5 } },
    };
    headlineGfs(noGfs);
    expect(noGfs.meta.eval.avgScore).toBe(0.75);
    const none = { meta: { eval: { scores: [{ score: null }], avgScore: 0 } } };
    headlineGfs(none);
    expect(none.meta.eval.avgScore).toBe(0);
  });

  it('says in the metadata when nothing is gated', () => {
    expect(gatingNote({ correctness: null, grounding: null, calibration: null, gfs: null })).toMatch(
      /^not gated/,
    );
    expect(gatingNote({ correctness: null, grounding: 0.8, calibration: null, gfs: 0.6 })).toBe(
      'gated: grounding >= 0.8, gfs >= 0.6',
    );
  });
});
