import { describe, expect, it } from 'vitest';
import { varianceDecomposition } from '../../src/stats/index.ts';
import { expectClose, reference } from './reference.ts';

describe('varianceDecomposition against numpy 1.24 (ddof = 1)', () => {
  for (const c of reference.variance) {
    it(c.name, () => {
      const r = varianceDecomposition(c.rows);
      expectClose(r.withinQuestionVariance, c.withinQuestionVariance, 1e-14, 'within variance');
      expectClose(r.withinQuestionSD, c.withinQuestionSD, 1e-14, 'within SD');
      expectClose(r.betweenQuestionVariance, c.betweenQuestionVariance, 1e-14, 'between variance');
      expect(Object.keys(r.perQuestionSD).sort()).toEqual(Object.keys(c.perQuestionSD).sort());
      for (const [q, sd] of Object.entries(c.perQuestionSD)) {
        expectClose(r.perQuestionSD[q] as number, sd, 1e-14, q);
      }
    });
  }
});

describe('varianceDecomposition', () => {
  it('hand-computed: two questions with 3 runs, one with 1', () => {
    const rows = [
      { question: 'a', run: 0, value: 1 },
      { question: 'a', run: 1, value: 2 },
      { question: 'a', run: 2, value: 3 }, // mean 2, var 1
      { question: 'b', run: 0, value: 4 },
      { question: 'b', run: 1, value: 4 },
      { question: 'b', run: 2, value: 7 }, // mean 5, var 3
      { question: 'c', run: 0, value: 8 }, // mean 8, single run
    ];
    const r = varianceDecomposition(rows);
    expect(r.perQuestionSD.a).toBe(1);
    expect(r.perQuestionSD.b).toBeCloseTo(Math.sqrt(3), 15);
    expect(r.perQuestionSD.c).toBeNaN();
    expect(r.withinQuestionVariance).toBe(2); // (1 + 3) / 2; c has one run and is left out
    expect(r.withinQuestionSD).toBeCloseTo(Math.SQRT2, 15);
    expect(r.betweenQuestionVariance).toBe(9); // means 2, 5, 8
  });

  it('keeps any question id, even "__proto__"', () => {
    const r = varianceDecomposition([
      { question: '__proto__', run: 0, value: 1 },
      { question: '__proto__', run: 1, value: 3 },
    ]);
    expect(Object.keys(r.perQuestionSD)).toEqual(['__proto__']);
    expect(r.withinQuestionVariance).toBe(2);
  });

  it('NaN terms where undefined; errors on bad rows', () => {
    const single = varianceDecomposition([{ question: 'a', run: 0, value: 1 }]);
    expect(single.withinQuestionVariance).toBeNaN();
    expect(single.betweenQuestionVariance).toBeNaN();
    expect(() => varianceDecomposition([])).toThrow(/empty/);
    expect(() => varianceDecomposition([{ question: 'a', run: 0, value: Number.NaN }])).toThrow(RangeError);
    expect(() =>
      varianceDecomposition([
        { question: 'a', run: 0, value: 1 },
        { question: 'a', run: 0, value: 2 },
      ]),
    ).toThrow(/run 0 twice/);
  });
});
