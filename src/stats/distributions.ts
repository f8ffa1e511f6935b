/**
 * Distribution functions for `src/stats`, written here so the module has no dependency: the error
 * function, the standard normal CDF and quantile, the chi-square(1) survival function and the exact
 * binomial(n, 1/2) CDF. Each is checked against scipy 1.10.1 (`scipy.special.ndtr`, `ndtri`,
 * `scipy.stats.chi2.sf`, `scipy.stats.binom.cdf`) in `test/stats/reference-vectors.json` to a relative
 * error of about 1e-14 or better.
 */

const TWO_OVER_SQRT_PI = 1.1283791670955126; // 2 / sqrt(pi)
const ONE_OVER_SQRT_PI = 0.5641895835477563; // 1 / sqrt(pi)
const LOG_SQRT_2PI = 0.9189385332046728; // log(sqrt(2 pi))
const LOG_2PI = 1.8378770664093453; // log(2 pi)

/** Where erfc switches from 1 - erf (series) to the continued fraction. */
const ERFC_FRACTION_FROM = 1;

/** exp(-x^2) without the rounding error of squaring x (x is split so hi^2 is exact). */
function expMinusSquare(x: number): number {
  const ax = Math.abs(x);
  if (ax > 40) return 0;
  const hi = Math.floor(ax * 65536) / 65536;
  const lo = ax - hi;
  return Math.exp(-hi * hi) * Math.exp(-lo * (2 * hi + lo));
}

/** erf(x) for |x| < ERFC_FRACTION_FROM: Taylor series near 0, the all-positive series beyond. */
function erfSeries(x: number): number {
  const ax = Math.abs(x);
  let sum: number;
  if (ax < 0.5) {
    // erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    const x2 = ax * ax;
    let power = ax; // (-1)^n x^(2n+1) / n!
    sum = ax;
    for (let n = 1; n < 60; n++) {
      power *= -x2 / n;
      const term = power / (2 * n + 1);
      sum += term;
      if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
    }
    sum *= TWO_OVER_SQRT_PI;
  } else {
    // erf(x) = 2/sqrt(pi) * x * exp(-x^2) * sum_n (2 x^2)^n / (1 * 3 * ... * (2n + 1)), all terms positive
    const twoX2 = 2 * ax * ax;
    let term = 1;
    sum = 1;
    for (let n = 1; n < 500; n++) {
      term *= twoX2 / (2 * n + 1);
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    sum *= TWO_OVER_SQRT_PI * ax * expMinusSquare(ax);
  }
  return x < 0 ? -sum : sum;
}

/**
 * erfc(x) * exp(x^2) * sqrt(pi) for x >= ERFC_FRACTION_FROM, by Lentz's method on the continued fraction
 * erfc(x) = exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + (2/2) / (x + (3/2) / (x + ...)))).
 */
function erfcFractionScaled(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let j = 1; j < 5000; j++) {
    const a = j / 2;
    d = x + a * d;
    if (d === 0) d = tiny;
    c = x + a / c;
    if (c === 0) c = tiny;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return 1 / f;
}

/** The error function erf(x), to a few ulp. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  const ax = Math.abs(x);
  if (ax < ERFC_FRACTION_FROM) return erfSeries(x);
  const value = 1 - expMinusSquare(ax) * ONE_OVER_SQRT_PI * erfcFractionScaled(ax);
  return x < 0 ? -value : value;
}

/** The complementary error function erfc(x) = 1 - erf(x), with full relative precision in the upper tail. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 0.5) return 1 - erfSeries(x);
  if (x < ERFC_FRACTION_FROM) return 1 - erfSeries(x);
  if (x > 27.3) return 0; // below the smallest subnormal
  return expMinusSquare(x) * ONE_OVER_SQRT_PI * erfcFractionScaled(x);
}

/**
 * The standard normal CDF Phi(z), as `scipy.special.ndtr`: 0.5 + 0.5 erf(z / sqrt 2) near 0,
 * 0.5 erfc(|z| / sqrt 2) in the tails (full relative precision in the lower tail).
 */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  if (z === Number.POSITIVE_INFINITY) return 1;
  if (z === Number.NEGATIVE_INFINITY) return 0;
  const t = z * Math.SQRT1_2;
  const at = Math.abs(t);
  if (at < Math.SQRT1_2) return 0.5 + 0.5 * erf(t);
  const tail = 0.5 * erfc(at);
  return t > 0 ? 1 - tail : tail;
}

// Acklam's rational approximation to the normal quantile (relative error < 1.15e-9), refined below.
const ACKLAM_A = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
  2.506628277459239,
] as const;
const ACKLAM_B = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1,
] as const;
const ACKLAM_C = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
] as const;
const ACKLAM_D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416] as const;

function acklamLowerTail(q: number): number {
  const [a0, a1, a2, a3, a4, a5] = ACKLAM_A;
  const [b0, b1, b2, b3, b4] = ACKLAM_B;
  const [c0, c1, c2, c3, c4, c5] = ACKLAM_C;
  const [d0, d1, d2, d3] = ACKLAM_D;
  if (q < 0.02425) {
    const r = Math.sqrt(-2 * Math.log(q));
    return (
      (((((c0 * r + c1) * r + c2) * r + c3) * r + c4) * r + c5) /
      ((((d0 * r + d1) * r + d2) * r + d3) * r + 1)
    );
  }
  const r = q - 0.5;
  const s = r * r;
  return (
    ((((((a0 * s + a1) * s + a2) * s + a3) * s + a4) * s + a5) * r) /
    (((((b0 * s + b1) * s + b2) * s + b3) * s + b4) * s + 1)
  );
}

/**
 * The standard normal quantile Phi^-1(p), as `scipy.special.ndtri`: Acklam's approximation then Halley
 * steps against `normalCdf`, solved in the lower tail (p > 1/2 by symmetry, 1 - p being exact there),
 * so it is accurate to a few ulp. -Infinity at 0, +Infinity at 1, NaN outside [0, 1].
 */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p === 0.5) return 0;
  const upper = p > 0.5;
  const q = upper ? 1 - p : p; // exact for p in [1/2, 1]
  let x = acklamLowerTail(q);
  for (let step = 0; step < 3; step++) {
    const e = normalCdf(x) - q;
    // e / phi(x), with phi(x) = exp(-x^2/2) / sqrt(2 pi)
    const u = e * Math.exp(LOG_SQRT_2PI + (x * x) / 2);
    const next = x - u / (1 + (x * u) / 2);
    if (next === x || !Number.isFinite(next)) break;
    x = next;
  }
  return upper ? -x : x;
}

/**
 * The chi-square survival function with 1 degree of freedom, P(X > x) = erfc(sqrt(x / 2)), as
 * `scipy.stats.chi2.sf(x, 1)`. In the far tail exp(-x/2) is taken from x directly, so precision holds.
 */
export function chiSquare1Survival(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x <= 0) return 1;
  if (x === Number.POSITIVE_INFINITY) return 0;
  const y = Math.sqrt(x / 2);
  if (y < ERFC_FRACTION_FROM) return erfc(y);
  return Math.exp(-x / 2) * ONE_OVER_SQRT_PI * erfcFractionScaled(y);
}

const LOG_FACTORIAL_SMALL: number[] = [];
{
  let factorial = 1;
  for (let k = 0; k <= 16; k++) {
    if (k > 0) factorial *= k; // exact up to 18!
    LOG_FACTORIAL_SMALL.push(Math.log(factorial));
  }
}

/** Stirling's error log(n!) - (n + 1/2) log n + n - log sqrt(2 pi), for integers n >= 1 (Loader 2000). */
function stirlingError(n: number): number {
  if (n <= 15) return (LOG_FACTORIAL_SMALL[n] as number) - (n + 0.5) * Math.log(n) + n - LOG_SQRT_2PI;
  const nn = n * n;
  return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / 1188 / nn) / nn) / nn) / nn) / n;
}

/** Loader's deviance term x log(x / m) + m - x, computed without cancellation when x is near m. */
function devianceTerm(x: number, m: number): number {
  if (Math.abs(x - m) < 0.1 * (x + m)) {
    let v = (x - m) / (x + m);
    let s = (x - m) * v;
    let ej = 2 * x * v;
    v *= v;
    for (let j = 1; j < 1000; j++) {
      ej *= v;
      const s1 = s + ej / (2 * j + 1);
      if (s1 === s) return s1;
      s = s1;
    }
    return s;
  }
  return x * Math.log(x / m) + m - x;
}

/** P(X = k) for X ~ Binomial(n, 1/2), by Loader's saddle-point expansion (relative error ~1e-15). */
function binomialHalfProbability(k: number, n: number): number {
  if (k < 0 || k > n) return 0;
  if (k === 0 || k === n) return 2 ** -n;
  const half = n / 2;
  const lc =
    stirlingError(n) -
    stirlingError(k) -
    stirlingError(n - k) -
    devianceTerm(k, half) -
    devianceTerm(n - k, half);
  const lf = LOG_2PI + Math.log(k) + Math.log1p(-k / n);
  return Math.exp(lc - 0.5 * lf);
}

/**
 * The exact binomial CDF P(X <= k) for X ~ Binomial(n, 1/2), as `scipy.stats.binom.cdf(k, n, 0.5)`.
 * The largest term comes from Loader's saddle-point formula and the rest by the exact ratio
 * P(X = j - 1) / P(X = j) = j / (n - j + 1), summed from the largest down until they no longer count,
 * so large n (millions) costs O(sqrt n) and keeps ~1e-14 relative precision. k above n/2 uses the
 * symmetry P(X <= k) = 1 - P(X <= n - k - 1). For n <= 50 the sum of coefficients is exact.
 */
export function binomialHalfCdf(k: number, n: number): number {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`binomialHalfCdf: n must be a non-negative integer, got ${n}`);
  const m = Math.floor(k);
  if (m < 0) return 0;
  if (m >= n) return 1;
  if (2 * m > n) return 1 - binomialHalfCdf(n - m - 1, n);
  if (n <= 50) {
    // exact: j * C(n, j) (< 2^53 for n <= 50) and the sum of coefficients are integers a double holds
    let coefficient = 1;
    let count = 1;
    for (let j = 1; j <= m; j++) {
      coefficient = (coefficient * (n - j + 1)) / j;
      count += coefficient;
    }
    return count * 2 ** -n;
  }
  let term = 1;
  let sum = 1;
  for (let j = m; j >= 1; j--) {
    term *= j / (n - j + 1);
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return binomialHalfProbability(m, n) * sum;
}

/**
 * P(X = k) for X ~ Binomial(n, p), as `scipy.stats.binom.pmf(k, n, p)`: Loader's saddle-point
 * expansion (R's dbinom_raw; relative error ~1e-15 for every k, n), with q = 1 - p given apart so a
 * p near 1 loses nothing. k and n are integers, 0 <= p <= 1.
 */
export function binomialProbability(k: number, n: number, p: number, q = 1 - p): number {
  if (k < 0 || k > n) return 0;
  if (p === 0) return k === 0 ? 1 : 0;
  if (q === 0) return k === n ? 1 : 0;
  if (k === 0) {
    if (n === 0) return 1;
    return Math.exp(p < 0.1 ? -devianceTerm(n, n * q) - n * p : n * Math.log(q));
  }
  if (k === n) return Math.exp(q < 0.1 ? -devianceTerm(n, n * p) - n * q : n * Math.log(p));
  const lc =
    stirlingError(n) -
    stirlingError(k) -
    stirlingError(n - k) -
    devianceTerm(k, n * p) -
    devianceTerm(n - k, n * q);
  const lf = LOG_2PI + Math.log(k) + Math.log1p(-k / n);
  return Math.exp(lc - 0.5 * lf);
}
