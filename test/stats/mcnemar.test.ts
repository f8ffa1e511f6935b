import { describe, expect, it } from 'vitest';
import { mcnemar } from '../../src/stats/index.ts';
import { expectClose, expectRelative, reference } from './reference.ts';

describe('mcnemar against statsmodels 0.13.5', () => {
  for (const c of reference.mcnemar) {
    const discordant = c.table[0][1] + c.table[1][0];
    it(c.name, () => {
      const exact = mcnemar({ table: c.table }, { exact: true });
      const corrected = mcnemar({ table: c.table }, { exact: false, correction: true });
      const plain = mcnemar({ table: c.table }, { exact: false, correction: false });
      expect(exact.n01).toBe(c.table[0][1]);
      expect(exact.n10).toBe(c.table[1][0]);
      if (discordant === 0) {
        // statsmodels: exact p = 1; chi-square inf / NaN. Ours: statistic 0, p = 1, documented.
        expect(c.exact.pValue).toBe(1);
        for (const r of [exact, corrected, plain]) {
          expect(r).toMatchObject({ statistic: 0, pValue: 1, method: 'no-discordant-pairs' });
        }
        return;
      }
      expect(exact.method).toBe('exact-binomial');
      expect(exact.statistic).toBe(c.exact.statistic);
      // scipy's own binom.cdf is off by 2e-13 (relative) at n = 2,003,000: ours is 0.03408836507943941 and a
      // 30-digit mpmath sum gives 0.0340883650794393832, so large n gets a looser bound
      const tol = discordant > 100_000 ? 1e-12 : c.exact.pValue > 1e-20 ? 1e-13 : 1e-10;
      expectRelative(exact.pValue, c.exact.pValue, tol, 'exact p');
      expect(corrected.method).toBe('chi-square-corrected');
      expectClose(corrected.statistic, c.chi2corrected.statistic, 1e-14, 'corrected statistic');
      expectRelative(corrected.pValue, c.chi2corrected.pValue, 1e-12, 'corrected p');
      expect(plain.method).toBe('chi-square');
      expectClose(plain.statistic, c.chi2.statistic, 1e-14, 'statistic');
      expectRelative(plain.pValue, c.chi2.pValue, 1e-12, 'p');
      // default: exact below 25 discordant pairs, corrected chi-square from 25
      const byDefault = mcnemar({ table: c.table });
      expect(byDefault).toEqual(discordant < 25 ? exact : corrected);
    });
  }
});

describe('mcnemar', () => {
  it('counts discordant pairs from paired booleans: n01 = a false, b true', () => {
    const a = [true, true, false, false, false, true, false];
    const b = [true, false, true, true, false, true, true];
    const r = mcnemar({ a, b });
    expect(r).toMatchObject({ n01: 3, n10: 1, statistic: 1, method: 'exact-binomial' });
    // 2 * P(X <= 1), X ~ Bin(4, 1/2) = 2 * 5/16
    expect(r.pValue).toBe(0.625);
    expect(r).toEqual(
      mcnemar({
        table: [
          [1, 3],
          [1, 2],
        ],
      }),
    );
  });

  it('textbook: 2 vs 3 discordant is p = 1; 0 vs 10 is 2 / 1024', () => {
    expect(
      mcnemar({
        table: [
          [0, 2],
          [3, 0],
        ],
      }).pValue,
    ).toBe(1);
    expect(
      mcnemar({
        table: [
          [0, 0],
          [10, 0],
        ],
      }).pValue,
    ).toBe(2 / 1024);
  });

  it('rejects malformed input', () => {
    expect(() => mcnemar({ a: [true], b: [true, false] })).toThrow(/same length/);
    expect(() => mcnemar({ a: [], b: [] })).toThrow(/empty/);
    expect(() =>
      mcnemar({
        table: [
          [1, -1],
          [2, 3],
        ],
      }),
    ).toThrow(RangeError);
    expect(() =>
      mcnemar({
        table: [
          [1, Number.NaN],
          [2, 3],
        ],
      }),
    ).toThrow(RangeError);
    expect(() =>
      mcnemar(
        {
          table: [
            [1, 1.5],
            [2, 3],
          ],
        },
        { exact: true },
      ),
    ).toThrow(/whole counts/);
    // @ts-expect-error: not booleans
    expect(() => mcnemar({ a: [1], b: [0] })).toThrow(TypeError);
    // @ts-expect-error: not 2 x 2
    expect(() => mcnemar({ table: [[1, 2, 3]] })).toThrow(TypeError);
  });
});
