/**
 * kappaInterval: Cohen's kappa with a BCa bootstrap interval over items, over clusters of items (a
 * question's runs), and as the mean over strata (subjects, each with its own pair of judges).
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { cohenKappa, KAPPA_MIN_N, kappaInterval } from '../../src/stats/index.ts';

/** n items of 0/1/2 labels on which two raters agree with probability `agree` (seeded). */
function raters(n: number, agree: number, seed: string): { a: number[]; b: number[] } {
  const rng = seedrandom(seed);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = Math.floor(rng() * 3);
    a.push(x);
    b.push(rng() < agree ? x : (x + 1 + Math.floor(rng() * 2)) % 3);
  }
  return { a, b };
}

const LABELS = { labels: [0, 1, 2] };

describe('kappaInterval', () => {
  it('holds the estimate, is seeded, and is null where kappa is undefined', () => {
    const { a, b } = raters(60, 0.8, 'x');
    const ci = kappaInterval(a, b, 3, { seed: 's' });
    const kappa = cohenKappa(a, b, LABELS);
    expect(ci).not.toBeNull();
    expect(ci?.low).toBeLessThan(kappa);
    expect(ci?.high).toBeGreaterThan(kappa);
    expect(ci?.clusters).toBe(60);
    expect(kappaInterval(a, b, 3, { seed: 's' })).toEqual(ci);
    expect(kappaInterval(a, b, 3, { seed: 't' })).not.toEqual(ci);
    expect(kappaInterval([1, 1, 1], [1, 1, 1], 3, { seed: 's' })).toBeNull();
    expect(kappaInterval([], [], 3, { seed: 's' })).toBeNull();
    expect(() => kappaInterval([1], [1, 2], 3, { seed: 's' })).toThrow(RangeError);
    expect(() => kappaInterval([1, 2], [1, 2], 3, { seed: 's', clusters: ['q'] })).toThrow(/clusters/);
  });

  it("resamples whole clusters: three identical runs of each question give the questions' own interval", () => {
    const { a, b } = raters(40, 0.8, 'runs');
    const byItem = kappaInterval(a, b, 3, { seed: 'c' });
    // each question answered three times, identically: 120 rows that are 40 independent observations
    const a3 = a.flatMap((x) => [x, x, x]);
    const b3 = b.flatMap((x) => [x, x, x]);
    const clusters = a.flatMap((_, i) => [`q${i}`, `q${i}`, `q${i}`]);
    const byQuestion = kappaInterval(a3, b3, 3, { seed: 'c', clusters });
    expect(byQuestion).toMatchObject({ low: byItem?.low, high: byItem?.high, clusters: 40 });
    // taking the 120 rows for independent items understates the width
    const naive = kappaInterval(a3, b3, 3, { seed: 'c' });
    expect((naive?.high ?? 0) - (naive?.low ?? 0)).toBeLessThan(
      ((byItem?.high ?? 0) - (byItem?.low ?? 0)) * 0.7,
    );
  });

  it('with strata: the mean over strata of each stratum’s kappa, undefined strata left out', () => {
    const s1 = raters(50, 0.9, 's1');
    const s2 = raters(50, 0.6, 's2');
    const a = [...s1.a, ...s2.a, 1, 1];
    const b = [...s1.b, ...s2.b, 1, 1];
    const strata = [...s1.a.map(() => 0), ...s2.a.map(() => 1), 2, 2];
    const mean = (cohenKappa(s1.a, s1.b, LABELS) + cohenKappa(s2.a, s2.b, LABELS)) / 2;
    const ci = kappaInterval(a, b, 3, { seed: 'm', strata });
    expect(ci).not.toBeNull();
    expect(ci?.low).toBeLessThan(mean);
    expect(ci?.high).toBeGreaterThan(mean);
    // pooled over the strata it is another figure
    expect(cohenKappa(a, b, LABELS)).not.toBeCloseTo(mean, 3);
  });

  it(`at n = ${KAPPA_MIN_N} (the warning's bound) a kappa near 0.75 has an interval about 0.4 wide`, () => {
    const widths: number[] = [];
    for (let t = 0; t < 15; t++) {
      const { a, b } = raters(KAPPA_MIN_N, 0.83, `w${t}`);
      const ci = kappaInterval(a, b, 3, { seed: `w${t}` });
      if (ci) widths.push(ci.high - ci.low);
    }
    widths.sort((x, y) => x - y);
    const median = widths[Math.floor(widths.length / 2)] as number;
    expect(median).toBeGreaterThan(0.3);
    expect(median).toBeLessThan(0.5);
  });
});
