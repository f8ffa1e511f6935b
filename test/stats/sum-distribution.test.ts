/**
 * The resample sum's distribution (src/stats/sum-distribution.ts) against exact ones: the n-fold
 * convolution computed term by term (small n, whole support), and the binomial by log-factorials for
 * two levels at large n, where the table is a window around the mean. Then the draws: their shares of
 * each sum against the probabilities.
 */
import { describe, expect, it } from 'vitest';
import { resamplingState, uniform53 } from '../../src/stats/resampling.ts';
import {
  drawSums,
  type GridLevels,
  sumDistribution,
  sumDistributionSize,
  WINDOW_TAIL_MASS,
} from '../../src/stats/sum-distribution.ts';

function levels(units: number[], counts: number[]): GridLevels {
  return { units: Float64Array.from(units), counts: Float64Array.from(counts) };
}

/** P(S = s) for every s from n u_0 to n u_max, by convolving one draw's pmf n times. */
function convolved(units: number[], counts: number[]): { origin: number; pmf: Float64Array } {
  const n = counts.reduce((a, b) => a + b, 0);
  const lo = units[0] as number;
  const span = (units.at(-1) as number) - lo;
  const one = new Float64Array(span + 1);
  units.forEach((u, l) => {
    one[u - lo] = (counts[l] as number) / n;
  });
  let pmf = Float64Array.of(1);
  for (let d = 0; d < n; d++) {
    const next = new Float64Array(pmf.length + span);
    for (let s = 0; s < pmf.length; s++)
      for (let j = 0; j <= span; j++)
        next[s + j] = (next[s + j] as number) + (pmf[s] as number) * (one[j] as number);
    pmf = next;
  }
  return { origin: n * lo, pmf };
}

/** P(S = origin + step (window + j)) from the table. */
function tablePmf(cdf: Float64Array): Float64Array {
  return cdf.map((c, j) => c - (j > 0 ? (cdf[j - 1] as number) : 0));
}

describe('sumDistribution', () => {
  it('equals the n-fold convolution over the whole support (small n, units with a common step)', () => {
    // GFS-like units on a 0.025 grid (0..40), and a grid whose units share the step 3
    const cases: [number[], number[]][] = [
      [
        [0, 5, 8, 13, 20, 27, 33, 40],
        [3, 5, 2, 7, 9, 4, 6, 11],
      ],
      [
        [6, 9, 15, 21],
        [10, 1, 4, 5],
      ],
    ];
    for (const [units, counts] of cases) {
      const table = sumDistribution(levels(units, counts));
      const exact = convolved(units, counts);
      const pmf = tablePmf(table.cdf);
      let worst = 0;
      let mass = 0;
      for (let j = 0; j < pmf.length; j++) {
        const s = table.origin + table.step * (table.window + j);
        const want = (s - exact.origin) % 1 === 0 ? (exact.pmf[s - exact.origin] ?? 0) : 0;
        worst = Math.max(worst, Math.abs((pmf[j] as number) - want));
        mass += want;
      }
      expect(worst, `${units}`).toBeLessThan(1e-14);
      // the table holds every sum the resample can take
      expect(mass).toBeCloseTo(1, 13);
    }
  });

  it('a window around the mean at large n: the binomial, with what lies outside below the tail bound', () => {
    const n = 5000;
    const ones = 1700;
    const table = sumDistribution(levels([0, 1], [n - ones, ones]));
    expect(table.cdf.length).toBeLessThan(n + 1); // a window, not the whole support
    expect(table.cdf.length).toBe(sumDistributionSize(levels([0, 1], [n - ones, ones])));
    const p = ones / n;
    const logFactorial = [0];
    for (let i = 1; i <= n; i++) logFactorial.push((logFactorial[i - 1] as number) + Math.log(i));
    const binomial = (k: number) =>
      Math.exp(
        (logFactorial[n] as number) -
          (logFactorial[k] as number) -
          (logFactorial[n - k] as number) +
          k * Math.log(p) +
          (n - k) * Math.log1p(-p),
      );
    const pmf = tablePmf(table.cdf);
    let inside = 0;
    let worst = 0;
    for (let j = 0; j < pmf.length; j++) {
      const k = table.window + j;
      inside += binomial(k);
      worst = Math.max(worst, Math.abs((pmf[j] as number) - binomial(k)));
    }
    // the documented accuracy: (n + log2 N) eps, the n-th powers' round-off dominating
    expect(worst).toBeLessThan((n + Math.log2(table.cdf.length)) * Number.EPSILON);
    expect(1 - inside).toBeLessThan(WINDOW_TAIL_MASS + 1e-13);
  });
});

describe('drawSums', () => {
  it('draws each sum with its probability', () => {
    const units = [0, 2, 3, 7];
    const counts = [4, 3, 2, 1];
    const table = sumDistribution(levels(units, counts));
    const pmf = tablePmf(table.cdf);
    const draws = 200_000;
    const out = new Float64Array(draws);
    const state = resamplingState('draws');
    drawSums(table, () => uniform53(state, 0), out);
    const seen = new Map<number, number>();
    for (const s of out) seen.set(s, (seen.get(s) ?? 0) + 1);
    for (let j = 0; j < pmf.length; j++) {
      const s = table.origin + table.step * (table.window + j);
      const p = pmf[j] as number;
      const share = (seen.get(s) ?? 0) / draws;
      // 5 standard deviations of a share of `draws`
      expect(Math.abs(share - p), `sum ${s}`).toBeLessThanOrEqual(
        5 * Math.sqrt((p * (1 - p)) / draws) + 1e-12,
      );
    }
    // every draw is a sum the table holds
    for (const s of seen.keys()) expect((s - table.origin) % table.step).toBe(0);
  });

  it('is reproducible from the seed', () => {
    const table = sumDistribution(levels([0, 1, 4], [5, 5, 2]));
    const draw = (seed: string) => {
      const out = new Float64Array(50);
      const state = resamplingState(seed);
      drawSums(table, () => uniform53(state, 0), out);
      return Array.from(out);
    };
    expect(draw('a')).toEqual(draw('a'));
    expect(draw('a')).not.toEqual(draw('b'));
  });
});
