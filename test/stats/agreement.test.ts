/**
 * Agreement on an ordinal rubric: Cohen's kappa unweighted, linear and quadratic (`cohenKappa`),
 * Krippendorff's alpha nominal, ordinal and interval (`krippendorffAlpha`) and Fleiss' kappa
 * (`fleissKappa`) against `../shared/oracle/agreement.json` (scikit-learn 1.2.1, fast-krippendorff at
 * b1eb616, statsmodels 0.13.5) to 1e-9, undefined values (null there) NaN here with a reason; and, with no
 * shared data, Krippendorff's own worked example (4 coders, 12 units, missing ratings; Krippendorff 2011,
 * "Computing Krippendorff's alpha-reliability": nominal 0.743, ordinal 0.815, interval 0.849).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agreementFigures,
  alphaInterval,
  cohenKappa,
  fleissKappa,
  kappaInterval,
  krippendorffAlpha,
  krippendorffAlphaDetail,
  type MeasurementLevel,
} from '../../src/stats/index.ts';
import { sharedOracle } from '../helpers/shared.ts';

interface OracleCase {
  id: string;
  scale: number[];
  raters: (number | null)[][];
  cohen?: { unweighted: number | null; linear: number | null; quadratic: number | null } | null;
  cohen_complete_pairs?: { unweighted: number; linear: number; quadratic: number };
  krippendorff: Record<MeasurementLevel, number | null>;
  fleiss: number | null;
}

const cases: OracleCase[] = sharedOracle
  ? (JSON.parse(readFileSync(join(sharedOracle, 'agreement.json'), 'utf8')) as { cases: OracleCase[] }).cases
  : [];
const LEVELS: MeasurementLevel[] = ['nominal', 'ordinal', 'interval'];
const WEIGHTS = { unweighted: 'none', linear: 'linear', quadratic: 'quadratic' } as const;

/** Within 1e-9 of the oracle, or NaN where the oracle's value is undefined (null). */
function matches(got: number, want: number | null, what: string): void {
  if (want === null) expect(got, `${what}: undefined in the oracle`).toBeNaN();
  else expect(Math.abs(got - want), `${what}: got ${got}, want ${want}`).toBeLessThanOrEqual(1e-9);
}

describe.skipIf(sharedOracle === null)('agreement against ../shared/oracle/agreement.json', () => {
  it('has the 44 cases', () => {
    expect(cases.length).toBe(44);
  });
  for (const c of cases) {
    it(`${c.id}: Krippendorff's alpha, nominal/ordinal/interval`, () => {
      for (const level of LEVELS) {
        const detail = krippendorffAlphaDetail(c.raters, { level, values: c.scale });
        matches(detail.alpha, c.krippendorff[level], `${c.id} ${level}`);
        expect(detail.undefinedReason === null).toBe(c.krippendorff[level] !== null);
      }
    });
    const complete = c.raters.every((r) => r.every((x) => x !== null));
    it(`${c.id}: Cohen's kappa (two complete raters) and Fleiss' kappa (complete data)`, () => {
      if (c.raters.length === 2) {
        const pairs =
          c.raters[0]?.flatMap((x, i) => {
            const y = c.raters[1]?.[i] ?? null;
            return x === null || y === null ? [] : [[x, y] as const];
          }) ?? [];
        const want = complete ? c.cohen : c.cohen_complete_pairs;
        expect(want, `${c.id}: the oracle gives Cohen's kappa`).toBeTruthy();
        for (const [name, weights] of Object.entries(WEIGHTS)) {
          const got = cohenKappa(
            pairs.map((p) => p[0]),
            pairs.map((p) => p[1]),
            { weights, labels: c.scale },
          );
          matches(got, want?.[name as keyof typeof WEIGHTS] ?? null, `${c.id} cohen ${name}`);
        }
      }
      if (complete) matches(fleissKappa(c.raters, { values: c.scale }), c.fleiss, `${c.id} fleiss`);
      else
        expect(() => fleissKappa(c.raters, { values: c.scale })).toThrow(
          /needs every item rated by every rater/,
        );
    });
  }
});

// Krippendorff (2011), section C: 4 observers, 12 units, values 1-5, null = not rated.
const K2011 = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
];

describe("Krippendorff's alpha without shared data", () => {
  it("reproduces Krippendorff's worked example (missing ratings, a unit rated once)", () => {
    expect(krippendorffAlpha(K2011, { level: 'nominal' })).toBeCloseTo(0.743, 3);
    expect(krippendorffAlpha(K2011, { level: 'ordinal' })).toBeCloseTo(0.815, 3);
    expect(krippendorffAlpha(K2011, { level: 'interval' })).toBeCloseTo(0.849, 3);
    const detail = krippendorffAlphaDetail(K2011, { level: 'nominal' });
    expect(detail.pairableItems).toBe(11); // the last unit has one rating and drops out
    expect(detail.pairableValues).toBe(40);
  });

  it('ordinal alpha charges a 0-vs-2 disagreement more than a 1-vs-2 one; nominal does not', () => {
    const truth = [0, 1, 2, 2, 1, 0, 2, 1, 0, 2, 1, 0];
    const near = truth.map((x, i) => (i === 3 ? 1 : x));
    const far = truth.map((x, i) => (i === 3 ? 0 : x));
    expect(krippendorffAlpha([truth, near], { level: 'nominal', values: [0, 1, 2] })).toBeCloseTo(
      krippendorffAlpha([truth, far], { level: 'nominal', values: [0, 1, 2] }),
      12,
    );
    expect(krippendorffAlpha([truth, near], { level: 'ordinal', values: [0, 1, 2] })).toBeGreaterThan(
      krippendorffAlpha([truth, far], { level: 'ordinal', values: [0, 1, 2] }),
    );
  });

  it('is undefined (NaN) with a reason when nothing pairs or one category holds every rating', () => {
    const lone = krippendorffAlphaDetail([
      [1, null],
      [null, 2],
    ]);
    expect(lone.alpha).toBeNaN();
    expect(lone.undefinedReason).toMatch(/no item has two ratings/);
    const one = krippendorffAlphaDetail(
      [
        [2, 2, 2],
        [2, 2, 2],
      ],
      { values: [0, 1, 2] },
    );
    expect(one.alpha).toBeNaN();
    expect(one.undefinedReason).toMatch(/one category/);
    expect(
      fleissKappa([
        [1, 1],
        [1, 1],
        [1, 1],
      ]),
    ).toBeNaN();
  });

  it('refuses bad input, naming the rater and item', () => {
    expect(() => krippendorffAlpha([[0, 1]])).toThrow(/at least two raters/);
    expect(() => krippendorffAlpha([[0, 1], [0]])).toThrow(/raters\[1\] rates 1 items/);
    expect(() =>
      krippendorffAlpha(
        [
          [0, 1],
          [0, 3],
        ],
        { values: [0, 1, 2] },
      ),
    ).toThrow(/raters\[1\]\[1\] is 3, which is not in values/);
    expect(() =>
      krippendorffAlpha([
        [0, Number.NaN],
        [0, 1],
      ]),
    ).toThrow(/raters\[0\]\[1\] is NaN/);
    expect(() =>
      krippendorffAlpha(
        [
          [0, 1],
          [0, 1],
        ],
        { level: 'ratio' as MeasurementLevel },
      ),
    ).toThrow(/level must be/);
  });
});

describe('agreementFigures: kappa, quadratic kappa and ordinal alpha, each with its interval', () => {
  // 60 items on 0/1/2; the judge is off by one on 12 of them, never by two
  const human = Array.from({ length: 60 }, (_, i) => i % 3);
  const judge = human.map((x, i) => (i % 5 === 0 ? (x === 2 ? 1 : x + 1) : x));
  const clusters = human.map((_, i) => `q${Math.floor(i / 2)}`);

  it('gives the three measures with intervals around their values, seeded', () => {
    const figures = agreementFigures(human, judge, 3, { seed: 'agree', clusters, resamples: 500 });
    expect(figures.map((f) => f.measure)).toEqual(['kappa', 'kappa-quadratic', 'alpha-ordinal']);
    expect(figures[0]?.value).toBeCloseTo(cohenKappa(human, judge, { labels: [0, 1, 2] }), 12);
    expect(figures[2]?.value).toBeCloseTo(
      krippendorffAlpha([human, judge], { level: 'ordinal', values: [0, 1, 2] }),
      12,
    );
    for (const f of figures) {
      expect(f.ci?.low).toBeLessThanOrEqual(f.value);
      expect(f.ci?.high).toBeGreaterThanOrEqual(f.value);
      expect(f.ci?.clusters).toBe(30);
    }
    // off-by-one disagreements only: the ordinal measures credit the near misses
    expect(figures[1]?.value).toBeGreaterThan(figures[0]?.value ?? 1);
    expect(agreementFigures(human, judge, 3, { seed: 'agree', clusters, resamples: 500 })).toEqual(figures);
  });

  it('is NaN with no interval where undefined', () => {
    const [kappa, quadratic, alpha] = agreementFigures([1, 1, 1], [1, 1, 1], 3, {
      seed: 's',
      resamples: 100,
    });
    for (const f of [kappa, quadratic, alpha]) {
      expect(f?.value).toBeNaN();
      expect(f?.ci).toBeNull();
    }
  });
});

describe('alphaInterval: alpha of any number of raters with its bootstrap interval', () => {
  const a = Array.from({ length: 40 }, (_, i) => (i * 7) % 3);
  const b = a.map((x, i) => (i % 4 === 0 ? Math.min(2, x + 1) : x));
  const clusters = a.map((_, i) => `q${i % 20}`);

  it('two raters: the same interval as kappaInterval with the alpha measure (same draws, same statistic)', () => {
    const opts = { seed: 'alpha', clusters, resamples: 400 };
    expect(alphaInterval([a, b], { ...opts, level: 'ordinal', values: [0, 1, 2] })).toEqual(
      kappaInterval(a, b, 3, { ...opts, measure: 'alpha-ordinal' }),
    );
  });

  it('three raters with missing ratings: an interval around the estimate; null where alpha is undefined', () => {
    const c = b.map((x, i) => (i % 6 === 0 ? null : x));
    const raters = [a, b, c];
    const estimate = krippendorffAlpha(raters, { level: 'ordinal' });
    const ci = alphaInterval(raters, { level: 'ordinal', seed: 'three', clusters, resamples: 400 });
    expect(ci?.low).toBeLessThanOrEqual(estimate);
    expect(ci?.high).toBeGreaterThanOrEqual(estimate);
    expect(ci?.low).toBeLessThan(ci?.high ?? Number.NaN);
    expect(ci?.clusters).toBe(20);
    expect(
      alphaInterval(
        [
          [1, 1],
          [1, 1],
        ],
        { level: 'ordinal', seed: 's' },
      ),
    ).toBeNull();
  });
});
