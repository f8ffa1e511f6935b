import { describe, expect, it } from 'vitest';
import { bonferroni, holm } from '../../src/stats/index.ts';
import { expectClose, reference } from './reference.ts';

describe('bonferroni and holm against statsmodels multipletests 0.13.5', () => {
  for (const c of reference.multitest) {
    it(`${c.p.length} p-values starting ${c.p[0]}`, () => {
      const b = bonferroni(c.p);
      const h = holm(c.p);
      for (const [i, x] of c.bonferroni.entries()) expectClose(b[i] as number, x, 1e-15, `bonferroni[${i}]`);
      for (const [i, x] of c.holm.entries()) expectClose(h[i] as number, x, 1e-15, `holm[${i}]`);
    });
  }
});

describe('multiple comparisons', () => {
  it('textbook values', () => {
    expect(bonferroni([0.01, 0.04, 0.3])).toEqual([0.03, 0.12, 0.8999999999999999]);
    // sorted 0.01, 0.03, 0.04 -> 0.03, 0.06, 0.06 (running maximum)
    expect(holm([0.04, 0.01, 0.03])).toEqual([0.06, 0.03, 0.06]);
  });

  it('Bonferroni is monotone in p and capped at 1; Holm is never above Bonferroni', () => {
    const p = [0.001, 0.2, 0.03, 0.5, 0.03, 0.9, 0.04];
    const b = bonferroni(p);
    const h = holm(p);
    for (let i = 0; i < p.length; i++) {
      expect(b[i]).toBeLessThanOrEqual(1);
      expect(b[i]).toBeGreaterThanOrEqual(p[i] as number);
      expect(h[i]).toBeLessThanOrEqual(b[i] as number);
      expect(h[i]).toBeGreaterThanOrEqual(p[i] as number);
      for (let j = 0; j < p.length; j++) {
        if ((p[i] as number) <= (p[j] as number)) {
          expect(b[i]).toBeLessThanOrEqual(b[j] as number);
          expect(h[i]).toBeLessThanOrEqual(h[j] as number);
        }
      }
    }
  });

  it('empty in, empty out; bad p-values rejected', () => {
    expect(bonferroni([])).toEqual([]);
    expect(holm([])).toEqual([]);
    expect(() => bonferroni([0.1, Number.NaN])).toThrow(RangeError);
    expect(() => holm([1.2])).toThrow(/\[0, 1\]/);
  });
});
