import { describe, expect, it } from 'vitest';
import type { JudgeOutcome, JudgeVerdict, Score } from '../../src/judging/verdict.ts';
import { CaseScores, caseScores, gfsEqual, gfsPrimary, PRIMARY_WEIGHTS } from '../../src/scoring/index.ts';

function verdict(correctness: Score, grounding: Score, calibration: Score): JudgeVerdict {
  const dim = (score: Score) => ({ evidence: ['quote'], rationale: 'because', score });
  return {
    correctness: dim(correctness),
    grounding: dim(grounding),
    calibration: dim(calibration),
    unsupported_claims: [],
  };
}

function scored(judgeId: string, c: Score, g: Score, k: Score): JudgeOutcome {
  return {
    judgeId,
    family: judgeId.split('/')[0] ?? judgeId,
    status: 'scored',
    verdict: verdict(c, g, k),
    raw: '{}',
    attempts: 1,
    error: null,
    latencyMs: 3,
    costUsd: 0,
  };
}

function unscored(judgeId: string): JudgeOutcome {
  return {
    judgeId,
    family: judgeId.split('/')[0] ?? judgeId,
    status: 'unscored',
    verdict: null,
    raw: 'not json',
    attempts: 2,
    error: 'parse failed after one retry',
    latencyMs: 3,
    costUsd: 0,
  };
}

describe('gfsPrimary / gfsEqual (hand-computed)', () => {
  it('g=2, c=1, k=2: primary (0.8 + 0.35 + 0.5) / 2 = 0.825, equal 5/6', () => {
    const s = { correctness: 1, grounding: 2, calibration: 2 };
    expect(gfsPrimary(s)).toBeCloseTo(0.825, 12);
    expect(gfsEqual(s)).toBeCloseTo(5 / 6, 12);
  });
  it('the extremes are 0 and 1', () => {
    expect(gfsPrimary({ correctness: 0, grounding: 0, calibration: 0 })).toBe(0);
    expect(gfsPrimary({ correctness: 2, grounding: 2, calibration: 2 })).toBeCloseTo(1, 12);
    expect(gfsEqual({ correctness: 2, grounding: 2, calibration: 2 })).toBe(1);
  });
  it('each dimension carries its weight: g=2 alone 0.40, c=2 alone 0.35, k=2 alone 0.25', () => {
    expect(gfsPrimary({ correctness: 0, grounding: 2, calibration: 0 })).toBeCloseTo(0.4, 12);
    expect(gfsPrimary({ correctness: 2, grounding: 0, calibration: 0 })).toBeCloseTo(0.35, 12);
    expect(gfsPrimary({ correctness: 0, grounding: 0, calibration: 2 })).toBeCloseTo(0.25, 12);
  });
  it('half points from two judges: c=1.5, g=0.5, k=1 -> primary (0.2 + 0.525 + 0.25) / 2 = 0.4875, equal 0.5', () => {
    const s = { correctness: 1.5, grounding: 0.5, calibration: 1 };
    expect(gfsPrimary(s)).toBeCloseTo(0.4875, 12);
    expect(gfsEqual(s)).toBeCloseTo(0.5, 12);
  });
  it('configurable weights that sum to 1; others are rejected', () => {
    const s = { correctness: 1, grounding: 2, calibration: 2 };
    const third = { correctness: 1 / 3, grounding: 1 / 3, calibration: 1 / 3 };
    expect(gfsPrimary(s, third)).toBeCloseTo(gfsEqual(s), 12);
    expect(gfsPrimary(s, { correctness: 1, grounding: 0, calibration: 0 })).toBeCloseTo(0.5, 12);
    expect(() => gfsPrimary(s, { correctness: 0.5, grounding: 0.5, calibration: 0.5 })).toThrow(/sum to 1/);
    expect(() => gfsPrimary(s, { correctness: 1.2, grounding: -0.2, calibration: 0 })).toThrow();
  });
  it('the default weights are the methodology’s', () => {
    expect(PRIMARY_WEIGHTS).toEqual({ correctness: 0.35, grounding: 0.4, calibration: 0.25 });
  });
  it('scores outside 0-2 are errors, not silently scaled', () => {
    expect(() => gfsEqual({ correctness: 3, grounding: 0, calibration: 0 })).toThrow(RangeError);
    expect(() => gfsPrimary({ correctness: Number.NaN, grounding: 0, calibration: 0 })).toThrow(RangeError);
  });
});

describe('caseScores', () => {
  it('two scoring judges: the mean per dimension and both GFS values', () => {
    const s = caseScores([scored('heuristic/numeric', 2, 2, 2), scored('heuristic/lexical', 0, 2, 2)]);
    // c = 1, g = 2, k = 2 -> 0.825 and 5/6; c differs by 2 -> contested on correctness
    expect(s).toMatchObject({
      correctness: 1,
      grounding: 2,
      calibration: 2,
      scoredJudges: 2,
      partial: false,
    });
    expect(s.gfsPrimary).toBeCloseTo(0.825, 12);
    expect(s.gfsEqual).toBeCloseTo(5 / 6, 12);
    expect(s.contested).toBe(true);
    expect(s.contestedDimensions).toEqual(['correctness']);
    expect(CaseScores.parse(s)).toEqual(s);
  });
  it('a difference of exactly 1 is not contested; more than one dimension can be', () => {
    const close = caseScores([scored('a/x', 2, 1, 0), scored('b/y', 1, 2, 1)]);
    expect(close.contested).toBe(false);
    expect(close.contestedDimensions).toEqual([]);
    expect(close).toMatchObject({ correctness: 1.5, grounding: 1.5, calibration: 0.5 });
    const far = caseScores([scored('a/x', 0, 2, 0), scored('b/y', 2, 0, 1)]);
    expect(far.contestedDimensions).toEqual(['correctness', 'grounding']);
  });
  it('one judge unscored: the other judge’s scores, partial, never contested', () => {
    const s = caseScores([unscored('heuristic/numeric'), scored('heuristic/lexical', 2, 1, 2)]);
    expect(s).toMatchObject({
      correctness: 2,
      grounding: 1,
      calibration: 2,
      scoredJudges: 1,
      partial: true,
      unscored: false,
    });
    expect(s.contested).toBe(false);
    expect(s.gfsPrimary).toBeCloseTo((0.4 * 1 + 0.35 * 2 + 0.25 * 2) / 2, 12);
    expect(CaseScores.parse(s)).toEqual(s);
  });
  it('both unscored: null scores and unscored, never 0', () => {
    const s = caseScores([unscored('a/x'), unscored('b/y')]);
    expect(s).toEqual({
      correctness: null,
      grounding: null,
      calibration: null,
      gfsPrimary: null,
      gfsEqual: null,
      scoredJudges: 0,
      partial: false,
      unscored: true,
      contested: false,
      contestedDimensions: [],
    });
    expect(CaseScores.parse(s)).toEqual(s);
    expect(caseScores([]).unscored).toBe(true);
  });
  it('an outcome marked scored but without a verdict counts as unscored', () => {
    const broken = { ...scored('a/x', 2, 2, 2), verdict: null };
    const s = caseScores([broken, scored('b/y', 0, 0, 0)]);
    expect(s).toMatchObject({
      correctness: 0,
      grounding: 0,
      calibration: 0,
      partial: true,
      gfsPrimary: 0,
      gfsEqual: 0,
    });
  });
  it('weights pass through to the primary GFS', () => {
    const s = caseScores([scored('a/x', 1, 2, 2), scored('b/y', 1, 2, 2)], {
      correctness: 1 / 3,
      grounding: 1 / 3,
      calibration: 1 / 3,
    });
    expect(s.gfsPrimary).toBeCloseTo(5 / 6, 12);
  });
  it('the schema rejects scores off the scale', () => {
    const s = caseScores([scored('a/x', 1, 2, 2), scored('b/y', 1, 2, 2)]);
    expect(CaseScores.safeParse({ ...s, grounding: 3 }).success).toBe(false);
    expect(CaseScores.safeParse({ ...s, gfsEqual: 1.2 }).success).toBe(false);
  });
});
