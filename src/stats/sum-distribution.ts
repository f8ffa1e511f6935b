/**
 * The distribution of a resample's unit sum on a score grid, computed once, and resample sums drawn
 * from it: the bootstrap of a mean on grid data (scores k/D, `scoreGrid` in bootstrap.ts) without
 * drawing n items per resample.
 *
 * A resample of n items drawn with replacement from data whose integer units take the values u_l with
 * shares p_l has the unit sum S = sum of n independent draws from that one-draw distribution, whose
 * probabilities are the n-fold convolution of (p_l). Here it is computed as a power of the one-draw
 * distribution's discrete Fourier transform: with the units shifted to start at 0 and divided by
 * their greatest common step g (w_l = (u_l - u_0) / g, at most R), the probability generating function
 * of one draw is f(z) = sum p_l z^(w_l), that of S is f(z)^n, and evaluating f at the N-th roots of
 * unity, raising each value to the n-th power and transforming back (fft.js) gives P(S = s) for every s
 * modulo N. N is the smallest power of two that holds every value S can take (n R + 1), or, when that
 * is larger, a window of values around the mean outside which S falls with probability at most
 * WINDOW_TAIL_MASS (Bernstein's inequality for sums of independent variables bounded by R: P(|S - nm|
 * >= t) <= 2 exp(-t^2 / (2 (n var + R t / 3)))), so that the values outside it, which fold into the
 * window modulo N, move no probability by more than that.
 *
 * Accuracy: each probability is within about (n + log2 N) eps of its exact value, eps = 2^-52 (the
 * n-th power by repeated squaring, then the two transforms); negative round-off is set to 0. A draw
 * inverts the cumulative distribution at a 53-bit uniform, so it takes each sum with its computed
 * probability. Checked against the exact convolution in test/stats/sum-distribution.test.ts.
 */
import FFT from 'fft.js';

/** The probability that a resample's sum falls outside the window computed (Bernstein's bound). */
export const WINDOW_TAIL_MASS = 1e-15;

/** A grid's distinct units, ascending, with how many items hold each; n = the sum of the counts. */
export interface GridLevels {
  units: Float64Array;
  counts: Float64Array;
}

/** The resample sum's distribution: P(S <= origin + step (window + j)) = cdf[j], j = 0 .. N - 1. */
export interface SumDistribution {
  /** n u_0: the sum when every draw takes the smallest unit */
  origin: number;
  /** g: the greatest common step between the units */
  step: number;
  /** the first value of (S - origin) / step the table holds */
  window: number;
  /** cumulative probabilities over the window; the last is the total (1 up to round-off) */
  cdf: Float64Array;
}

function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y > 0) [x, y] = [y, x % y];
  return x;
}

interface Shape {
  /** n */
  draws: number;
  step: number;
  /** (u_l - u_0) / step */
  steps: Float64Array;
  shares: Float64Array;
  /** the table's size, a power of two */
  size: number;
  window: number;
}

function shape(levels: GridLevels): Shape {
  const { units, counts } = levels;
  const first = units[0] as number;
  let draws = 0;
  let step = 0;
  for (let l = 0; l < units.length; l++) {
    draws += counts[l] as number;
    step = gcd(step, (units[l] as number) - first);
  }
  if (step === 0) step = 1; // one level: S is n u_0
  const steps = new Float64Array(units.length);
  const shares = new Float64Array(units.length);
  let mean = 0;
  for (let l = 0; l < units.length; l++) {
    steps[l] = ((units[l] as number) - first) / step;
    shares[l] = (counts[l] as number) / draws;
    mean += (shares[l] as number) * (steps[l] as number);
  }
  let variance = 0;
  for (let l = 0; l < units.length; l++)
    variance += (shares[l] as number) * ((steps[l] as number) - mean) ** 2;
  const range = steps[steps.length - 1] as number;
  const values = draws * range + 1;
  // Bernstein: t^2 = 2 L (n var + R t / 3), L = ln(2 / tail mass), solved for t
  const log = Math.log(2 / WINDOW_TAIL_MASS);
  const halfWidth = (log * range) / 3 + Math.sqrt(((log * range) / 3) ** 2 + 2 * log * draws * variance);
  const span = Math.min(values, Math.ceil(2 * halfWidth) + 3);
  let size = 4;
  while (size < span) size *= 2;
  const centre = draws * mean;
  const window = Math.max(0, Math.min(values - size, Math.floor(centre - (size - 1) / 2)));
  return { draws, step, steps, shares, size, window };
}

/** The table size N the distribution of `levels`' resample sum needs (for choosing a kernel). */
export function sumDistributionSize(levels: GridLevels): number {
  return shape(levels).size;
}

/** (re, im)^n by repeated squaring, into out[at], out[at + 1]. */
function complexPower(re: number, im: number, n: number, out: Float64Array, at: number): void {
  let rRe = 1;
  let rIm = 0;
  let bRe = re;
  let bIm = im;
  for (let e = n; e > 0; e = Math.floor(e / 2)) {
    if (e % 2 === 1) {
      const t = rRe * bRe - rIm * bIm;
      rIm = rRe * bIm + rIm * bRe;
      rRe = t;
    }
    const t = bRe * bRe - bIm * bIm;
    bIm = 2 * bRe * bIm;
    bRe = t;
  }
  out[at] = rRe;
  out[at + 1] = rIm;
}

export function sumDistribution(levels: GridLevels): SumDistribution {
  const { draws, step, steps, shares, size, window } = shape(levels);
  const fft = new FFT(size);
  const one = new Float64Array(2 * size);
  for (let l = 0; l < steps.length; l++) {
    const at = 2 * ((steps[l] as number) % size);
    one[at] = (one[at] as number) + (shares[l] as number);
  }
  const transform = new Float64Array(2 * size);
  fft.transform(transform, one);
  // f(w^k)^n; the input is real, so the value at N - k is the conjugate of that at k
  const power = new Float64Array(2 * size);
  for (let k = 0; k <= size / 2; k++) {
    complexPower(transform[2 * k] as number, transform[2 * k + 1] as number, draws, power, 2 * k);
    if (k > 0 && k < size / 2) {
      power[2 * (size - k)] = power[2 * k] as number;
      power[2 * (size - k) + 1] = -(power[2 * k + 1] as number);
    }
  }
  const probabilities = new Float64Array(2 * size);
  fft.inverseTransform(probabilities, power);
  const cdf = new Float64Array(size);
  let total = 0;
  for (let j = 0; j < size; j++) {
    const p = probabilities[2 * ((window + j) % size)] as number;
    if (p > 0) total += p;
    cdf[j] = total;
  }
  return { origin: draws * (levels.units[0] as number), step, window, cdf };
}

/**
 * Fills `out` with resample sums drawn from `distribution`: each the smallest sum whose cumulative
 * probability exceeds u times the total, u = `uniform53()` in [0, 1).
 */
export function drawSums(distribution: SumDistribution, uniform53: () => number, out: Float64Array): void {
  const { cdf, origin, step, window } = distribution;
  const total = cdf[cdf.length - 1] as number;
  for (let b = 0; b < out.length; b++) {
    const u = uniform53() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] as number) > u) hi = mid;
      else lo = mid + 1;
    }
    out[b] = origin + step * (window + lo);
  }
}
