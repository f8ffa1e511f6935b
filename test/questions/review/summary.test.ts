/**
 * The review summary against hand-computed references. Wilson score interval, z = 1.959963984540054:
 * centre (p + z^2/2n) / (1 + z^2/n), half-width z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/4n^2), as
 * statsmodels' `proportion_confint(k, n, method='wilson')`:
 *   15 of 60 -> (0.157765225, 0.372320701);  45 of 60 -> (0.627679299, 0.842234775)
 *   0 of 10  -> (0, z^2 / (10 + z^2) = 0.277532800)
 */
import { describe, expect, it } from 'vitest';
import {
  formatReviewSummary,
  type ReviewDecision,
  reviewSummary,
} from '../../../src/questions/review/index.ts';

type D = Pick<ReviewDecision, 'decision' | 'reason'>;

/** 200 ids; the first `decisions.length` decided in order. */
function review(decisions: D[], total = 200) {
  const order = Array.from({ length: total }, (_, i) => `gen-${i}`);
  return { order, decided: new Map(decisions.map((d, i) => [`gen-${i}`, d])) };
}

const many = (n: number, d: D) => Array.from({ length: n }, () => d);
// 60 reviewed: 45 accepted, 7 edited, 8 rejected (3 wrong-answer, 5 bad-quote)
const SIXTY: D[] = [
  ...many(45, { decision: 'accepted' }),
  ...many(7, { decision: 'edited' }),
  ...many(3, { decision: 'rejected', reason: 'wrong-answer' }),
  ...many(5, { decision: 'rejected', reason: 'bad-quote' }),
];

describe('reviewSummary', () => {
  it('counts, the error rate with its Wilson interval, and the projection to the unreviewed', () => {
    const s = reviewSummary({ ...review(SIXTY), reviewOrder: { order: 'random', seed: 'abc' } });
    expect(s).toMatchObject({
      total: 200,
      reviewed: 60,
      accepted: 45,
      edited: 7,
      rejected: 8,
      unreviewed: 140,
    });
    expect(s.rejectedBy).toMatchObject({ 'wrong-answer': 3, 'bad-quote': 5, ambiguous: 0 });
    expect(s.errorRate.successes).toBe(15);
    expect(s.errorRate.share).toBe(0.25);
    expect(s.errorRate.low).toBeCloseTo(0.157765225, 8);
    expect(s.errorRate.high).toBeCloseTo(0.372320701, 8);
    // kept: 52 of 60
    expect(s.kept.successes).toBe(52);
    // 0.157765 * 140 = 22.09 (floor 22), 0.372321 * 140 = 52.12 (ceil 53)
    expect(s.projection).toEqual({ unreviewed: 140, low: 22, high: 53 });
    expect(s.sample).toMatchObject({ order: 'random', seed: 'abc', prefix: true });
  });

  it('the acceptance interval of 45 of 60 and an interval that touches 0', () => {
    const s = reviewSummary({
      ...review([
        ...many(45, { decision: 'accepted' }),
        ...many(15, { decision: 'rejected', reason: 'duplicate' }),
      ]),
      reviewOrder: null,
    });
    expect(s.kept.low).toBeCloseTo(0.627679299, 8);
    expect(s.kept.high).toBeCloseTo(0.842234775, 8);
    const none = reviewSummary({ ...review(many(10, { decision: 'accepted' }), 10 + 90), reviewOrder: null });
    expect(none.errorRate.low).toBeCloseTo(0, 12); // the formula's rounding: 2.8e-17
    expect(none.errorRate.high).toBeCloseTo(0.2775328, 7);
    expect(none.projection).toEqual({ unreviewed: 90, low: 0, high: 25 }); // 0.27753 * 90 = 24.98
  });

  it('says what the projection assumes: random and in order, random with skips, file order', () => {
    const lines = formatReviewSummary(
      reviewSummary({ ...review(SIXTY), reviewOrder: { order: 'random', seed: 'abc' } }),
    );
    expect(lines).toEqual([
      'reviewed 60 of 200 (140 unreviewed): 45 accepted, 7 edited, 8 rejected (wrong-answer 3, bad-quote 5)',
      'kept (accepted or edited): 52 of 60 = 86.7% (95% Wilson interval 75.8% to 93.1%)',
      'generator error rate (edited or rejected): 15 of 60 = 25.0% (95% Wilson interval 15.8% to 37.2%)',
      "of the 140 unreviewed, between 22 and 53 are expected to need a fix (the error rate's interval times 140; " +
        'the 60 reviewed are the first of a seeded random order (seed abc): a random sample of all)',
    ]);
    const skipped = review(SIXTY);
    skipped.decided.delete('gen-0');
    skipped.decided.set('gen-150', { decision: 'accepted' });
    const s = reviewSummary({ ...skipped, reviewOrder: { order: 'random', seed: 'abc' } });
    expect(s.sample.prefix).toBe(false);
    expect(s.sample.assumption).toContain('skipped ones are no different');
    const file = reviewSummary({ ...review(SIXTY), reviewOrder: { order: 'file', seed: null } });
    expect(file.sample.assumption).toContain('assumes the order of the file is unrelated to quality');
  });

  it('before any review: counts only, no interval, no projection', () => {
    const s = reviewSummary({ ...review([], 4), reviewOrder: { order: 'random', seed: 'x' } });
    expect(s.errorRate.low).toBeNull();
    expect(s.projection).toBeNull();
    expect(formatReviewSummary(s)).toEqual([
      'reviewed 0 of 4 (4 unreviewed): 0 accepted, 0 edited, 0 rejected',
    ]);
  });
});
