/**
 * Two judges compared on the same human labels (`compareJudges`, `rge judge agree --compare A,B`): the
 * differences in kappa and alpha with paired bootstrap intervals, and McNemar on agreement. A judge
 * planted better is told apart from a worse one; two identical judges differ by exactly 0; the paired
 * interval is narrower than what two independent intervals would say.
 */
import { describe, expect, it } from 'vitest';
import type { JudgeOutcome, JudgeVerdict } from '../../src/judging/verdict.ts';
import { cohenKappa, kappaInterval, krippendorffAlpha, mcnemar } from '../../src/stats/index.ts';
import { type AgreementItem, compareJudges, formatComparison } from '../../src/validation/index.ts';

/** A grounding verdict (AttributionBench: attributable when grounding >= 1). */
const verdict = (attributable: boolean): JudgeVerdict => ({
  correctness: { evidence: [], rationale: '', score: 2 },
  grounding: { evidence: [], rationale: '', score: attributable ? 2 : 0 },
  calibration: { evidence: [], rationale: '', score: 2 },
  unsupported_claims: [],
});
const outcome = (attributable: boolean | null): JudgeOutcome => ({
  judgeId: 'j',
  family: 'f',
  status: attributable === null ? 'unscored' : 'scored',
  verdict: attributable === null ? null : verdict(attributable),
  raw: '',
  attempts: 1,
  error: null,
  latencyMs: 0,
  costUsd: 0,
});

const N = 300;
const human = Array.from({ length: N }, (_, i) => ((i * 37) % 5 < 2 ? 1 : 0));
const items = human.map(
  (h, i) => ({ id: `i${i}`, human: h, subset: 's', input: {} as AgreementItem['input'] }) as AgreementItem,
);
// A wrong on every 20th item, B on every 4th: A agrees with people 95%, B 75%
const judgeA = human.map((h, i) => (i % 20 === 7 ? h === 0 : h === 1));
const judgeB = human.map((h, i) => (i % 4 === 1 ? h === 0 : h === 1));

describe('compareJudges', () => {
  const c = compareJudges('attributionbench', ['A', 'B'], items, [judgeA.map(outcome), judgeB.map(outcome)], {
    resamples: 1000,
  });

  it('gives each judge its kappa and alpha against the people, and A - B with a paired interval', () => {
    const a = judgeA.map(Number);
    const b = judgeB.map(Number);
    const [kappa, alpha] = c.measures;
    expect(kappa?.measure).toBe('kappa');
    expect(kappa?.a).toBeCloseTo(cohenKappa(human, a, { labels: [0, 1] }), 12);
    expect(kappa?.b).toBeCloseTo(cohenKappa(human, b, { labels: [0, 1] }), 12);
    expect(alpha?.measure).toBe('alpha-ordinal');
    expect(alpha?.a).toBeCloseTo(krippendorffAlpha([human, a], { level: 'ordinal', values: [0, 1] }), 12);
    for (const m of c.measures) {
      expect(m.difference).toBeCloseTo(m.a - m.b, 12);
      expect(m.low).toBeGreaterThan(0); // the planted difference is real
      expect(m.low).toBeLessThanOrEqual(m.difference);
      expect(m.high).toBeGreaterThanOrEqual(m.difference);
    }
    expect(c.accuracy[0]).toBeCloseTo(0.95, 2);
    expect(c.accuracy[1]).toBeCloseTo(0.75, 2);
    expect(c.seed).toBe('compare:A:B:attributionbench');
  });

  it('McNemar on agreement counts where one judge matches the people and the other does not', () => {
    const agreeA = human.map((h, i) => Number(judgeA[i]) === h);
    const agreeB = human.map((h, i) => Number(judgeB[i]) === h);
    expect(c.mcnemar).toEqual(mcnemar({ a: agreeA, b: agreeB }));
    expect(c.mcnemar?.n10).toBeGreaterThan(c.mcnemar?.n01 ?? Number.NaN);
    expect(c.mcnemar?.pValue).toBeLessThan(0.001);
    expect(formatComparison(c)).toMatch(/A - B \+0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \(excludes 0\)/);
  });

  it("pairing: the interval of A - B is narrower than the two judges' own intervals side by side", () => {
    const a = judgeA.map(Number);
    const near = human.map((h, i) => (i % 20 === 7 || i % 40 === 3 ? 1 - h : h)); // A and a few more misses
    const paired = compareJudges(
      'attributionbench',
      ['A', 'A2'],
      items,
      [judgeA.map(outcome), near.map((x) => outcome(x === 1))],
      {
        resamples: 1000,
      },
    ).measures[0];
    const own = kappaInterval(human, a, 2, { seed: 'x', resamples: 1000 });
    const ownWidth = (own?.high ?? 0) - (own?.low ?? 0);
    expect((paired?.high ?? 0) - (paired?.low ?? 0)).toBeLessThan(ownWidth);
  });

  it('two identical judges differ by exactly 0, with no discordant items; unscored items are left out', () => {
    const withGap = judgeA.map((x, i) => (i === 0 ? null : x));
    const same = compareJudges(
      'attributionbench',
      ['A', 'A'],
      items,
      [withGap.map(outcome), judgeA.map(outcome)],
      {
        resamples: 200,
      },
    );
    expect(same.n).toBe(N - 1);
    expect(same.unscored).toBe(1);
    for (const m of same.measures) expect([m.difference, m.low, m.high]).toEqual([0, 0, 0]);
    expect(same.mcnemar?.method).toBe('no-discordant-pairs');
  });
});
