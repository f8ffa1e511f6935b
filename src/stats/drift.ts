/**
 * Drift between two windows of logged traffic (issue 56): the per-case scores of window A (say last
 * week) and window B (this week) are two INDEPENDENT samples, different cases with no pairing, so the
 * test is the two-sample permutation test on the difference of means d = mean(B) - mean(A), not the
 * gate's paired sign-flip test (signflip.ts).
 *
 * Under H0 (the two windows' scores are exchangeable) every split of the pooled N = nA + nB scores into
 * nA and nB is equally likely. d decreases in the sum of A's scores (d = T / nB - sA (1 / nA + 1 / nB),
 * T the pooled total), so the p-values are tail probabilities of sA over the splits:
 * - `pLess` = P(d* <= d) = P(sA* >= sA): small when B dropped (scipy's alternative='less' for the
 *   statistic mean(B) - mean(A));
 * - `pGreater` = P(d* >= d), and `pTwoSided` = min(1, 2 min(pLess, pGreater)), as scipy defines it.
 *
 * Three ways to the distribution of sA*, the first that applies:
 * - `exact-grid`: the scores lie on a grid (grounding 0/1/2, a panel mean on halves, GFS on 1/80:
 *   `scoreGrid`), so sA is an integer number of grid steps, and its exact distribution over all
 *   C(N, nA) splits is computed by dynamic programming over the grid's levels: P_L(k, s), the chance
 *   that a uniform k-subset of the items of the first L levels sums to s, gains a level of c items of
 *   step w by P_{L+1}(k, s) = sum_j h(j) P_L(k - j, s - j w), h the hypergeometric probability of taking
 *   j of the c items (probabilities, never counts, so nothing overflows). Its work is the sum over
 *   levels of (nA + 1)(nA R + 1)(c + 1), R the widest step; it runs when that is at most `maxWork`;
 * - `exact-splits`: every one of the C(N, nA) splits enumerated when there are at most `maxSplits`;
 * - `monte-carlo`: `resamples` seeded random splits (a partial Fisher-Yates shuffle on xoshiro128**
 *   seeded by seedrandom's Alea: resampling.ts), each p-value (b + 1) / (m + 1), b the resamples at
 *   least as extreme (Phipson and Smyth 2010, SAGMB 9: 39): its level is exact.
 * On the grid, ties are exact (integer sums); off it a split ties the observed one within 1e-9 relative.
 *
 * The interval of d is the normal approximation with Welch's standard error,
 * d -/+ z(1 - (1 - confidence) / 2) sqrt(varA / nA + varB / nB) (sample variances, n - 1). The minimal
 * detectable difference is that of the one-sided test the drift gate runs: (z(1 - alpha) + z(power)) SE
 * (`minimalDetectableDifference` at level 2 alpha, power.ts).
 */
import { scoreGrid } from './bootstrap.ts';
import { normalQuantile } from './distributions.ts';
import { minimalDetectableDifference } from './power.ts';
import { resamplingState, uniform53 } from './resampling.ts';
import { logGamma } from './student.ts';
import { assertFiniteNumbers } from './validate.ts';

export type DriftMethod = 'exact-grid' | 'exact-splits' | 'monte-carlo';

export interface DriftOptions {
  /** seeds the Monte Carlo splits (recorded; unused by the exact methods) */
  seed: string;
  /** random splits when no exact method applies; default 9999 */
  resamples?: number;
  /** the interval's level; default 0.95 */
  confidence?: number;
  /** the one-sided level of the gate, for the MDD; default 0.05 */
  alpha?: number;
  /** the power of the MDD; default 0.8 */
  power?: number;
  /** the most splits `exact-splits` enumerates; default 200000 */
  maxSplits?: number;
  /** the most work `exact-grid` does (see the module comment); default 200 million (about 0.2 s) */
  maxWork?: number;
}

export interface DriftResult {
  nA: number;
  nB: number;
  meanA: number;
  meanB: number;
  /** mean(B) - mean(A): negative when B dropped */
  difference: number;
  /** Welch's standard error of the difference (NaN when a window has fewer than two scores) */
  standardError: number;
  low: number;
  high: number;
  confidence: number;
  /** P(d* <= d): small when B is lower than A */
  pLess: number;
  /** P(d* >= d): small when B is higher than A */
  pGreater: number;
  /** min(1, 2 min(pLess, pGreater)) */
  pTwoSided: number;
  method: DriftMethod;
  /** the splits behind the p-values: C(N, nA) when exact, else the random ones drawn */
  splits: number;
  /** the one-sided minimal detectable difference at `alpha` with `power` */
  mdd: number;
  alpha: number;
  power: number;
  seed: string;
}

const DEFAULTS = { resamples: 9999, confidence: 0.95, alpha: 0.05, power: 0.8, maxSplits: 200_000 };
const DEFAULT_MAX_WORK = 200_000_000;
/** How close (relative) two split sums off the grid are to count as a tie. */
const TIE_TOLERANCE = 1e-9;

const logChoose = (n: number, k: number): number => logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);

/** The tails of sA*: P(sA* >= sA) (`atLeast`) and P(sA* <= sA) (`atMost`), with the splits behind them. */
interface Tails {
  atLeast: number;
  atMost: number;
  splits: number;
}

/** Grid levels of the pooled scores: each distinct step (units above the least, over their gcd) and its count. */
function gridLevels(units: Float64Array): { steps: Int32Array; levels: [number, number][] } {
  let least = Number.POSITIVE_INFINITY;
  for (const u of units) least = Math.min(least, u);
  let g = 0;
  for (const u of units) {
    let [x, y] = [g, u - least];
    while (y > 0) [x, y] = [y, x % y];
    g = x;
  }
  const step = g === 0 ? 1 : g;
  const steps = Int32Array.from(units, (u) => (u - least) / step);
  const counts = new Map<number, number>();
  for (const w of steps) counts.set(w, (counts.get(w) ?? 0) + 1);
  return { steps, levels: [...counts.entries()].sort((a, b) => a[0] - b[0]) };
}

/** The work of the grid's dynamic program (module comment), to decide whether it runs. */
function gridWork(nA: number, levels: readonly [number, number][]): number {
  const widest = levels.reduce((m, [w]) => Math.max(m, w), 0);
  return levels.reduce((sum, [, c]) => sum + (nA + 1) * (nA * widest + 1) * (c + 1), 0);
}

/** The exact distribution of sA* (in grid steps) over all C(N, nA) splits: P[s], s = 0 .. nA R. */
function gridDistribution(nA: number, levels: readonly [number, number][]): Float64Array {
  const widest = levels.reduce((m, [w]) => Math.max(m, w), 0);
  const width = nA * widest + 1;
  let p = new Float64Array((nA + 1) * width);
  p[0] = 1;
  let seen = 0;
  for (const [w, c] of levels) {
    const next = new Float64Array((nA + 1) * width);
    const total = seen + c;
    for (let k = 0; k <= Math.min(nA, total); k++) {
      const logAll = logChoose(total, k);
      for (let j = Math.max(0, k - seen); j <= Math.min(c, k); j++) {
        const h = Math.exp(logChoose(c, j) + logChoose(seen, k - j) - logAll);
        if (h === 0) continue;
        const from = (k - j) * width;
        const to = k * width + j * w;
        for (let s = 0; s + j * w < width; s++) {
          const q = p[from + s] as number;
          if (q !== 0) next[to + s] = (next[to + s] as number) + h * q;
        }
      }
    }
    p = next;
    seen = total;
  }
  return p.slice(nA * width, (nA + 1) * width);
}

/** Tails of sA* from the grid's exact distribution. */
function gridTails(steps: Int32Array, nA: number, levels: readonly [number, number][]): Tails {
  const dist = gridDistribution(nA, levels);
  let observed = 0;
  for (let i = 0; i < nA; i++) observed += steps[i] as number;
  let atLeast = 0;
  let atMost = 0;
  dist.forEach((q, s) => {
    if (s >= observed) atLeast += q;
    if (s <= observed) atMost += q;
  });
  return {
    atLeast: Math.min(1, atLeast),
    atMost: Math.min(1, atMost),
    splits: Math.round(Math.exp(logChoose(steps.length, nA))),
  };
}

/** Tails of sA* over every split (combinations of nA of the N pooled scores, in lexicographic order). */
function splitTails(pooled: readonly number[], nA: number): Tails {
  const n = pooled.length;
  let observed = 0;
  for (let i = 0; i < nA; i++) observed += pooled[i] as number;
  const tol = TIE_TOLERANCE * Math.max(1, Math.abs(observed));
  const pick = Array.from({ length: nA }, (_, i) => i);
  let atLeast = 0;
  let atMost = 0;
  let splits = 0;
  for (;;) {
    let s = 0;
    for (const i of pick) s += pooled[i] as number;
    if (s >= observed - tol) atLeast++;
    if (s <= observed + tol) atMost++;
    splits++;
    let i = nA - 1;
    while (i >= 0 && pick[i] === n - nA + i) i--;
    if (i < 0) break;
    pick[i] = (pick[i] as number) + 1;
    for (let j = i + 1; j < nA; j++) pick[j] = (pick[j - 1] as number) + 1;
  }
  return { atLeast: atLeast / splits, atMost: atMost / splits, splits };
}

/** Tails of sA* from `resamples` seeded random splits, each p-value (b + 1) / (m + 1). */
function monteCarloTails(pooled: readonly number[], nA: number, resamples: number, seed: string): Tails {
  const n = pooled.length;
  const work = Float64Array.from(pooled);
  let observed = 0;
  for (let i = 0; i < nA; i++) observed += pooled[i] as number;
  const tol = TIE_TOLERANCE * Math.max(1, Math.abs(observed));
  const state = resamplingState(seed);
  let atLeast = 0;
  let atMost = 0;
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    // the first nA places of a partial Fisher-Yates shuffle are a uniform nA-subset
    for (let i = 0; i < nA; i++) {
      const j = i + Math.floor(uniform53(state, 0) * (n - i));
      const x = work[j] as number;
      work[j] = work[i] as number;
      work[i] = x;
      s += x;
    }
    if (s >= observed - tol) atLeast++;
    if (s <= observed + tol) atMost++;
  }
  return {
    atLeast: (atLeast + 1) / (resamples + 1),
    atMost: (atMost + 1) / (resamples + 1),
    splits: resamples,
  };
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: readonly number[], m: number) =>
  xs.length < 2 ? Number.NaN : xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);

/** How the p-values are computed for these windows: the first method that applies (module comment). */
function tailsOf(
  a: readonly number[],
  b: readonly number[],
  o: Required<DriftOptions>,
): Tails & { method: DriftMethod } {
  const pooled = [...a, ...b];
  const grid = scoreGrid(pooled);
  if (grid) {
    const { steps, levels } = gridLevels(grid.units);
    if (gridWork(a.length, levels) <= o.maxWork)
      return { ...gridTails(steps, a.length, levels), method: 'exact-grid' };
  }
  if (logChoose(pooled.length, a.length) <= Math.log(o.maxSplits) + 1e-9)
    return { ...splitTails(pooled, a.length), method: 'exact-splits' };
  return { ...monteCarloTails(pooled, a.length, o.resamples, o.seed), method: 'monte-carlo' };
}

function resolveOptions(opts: DriftOptions): Required<DriftOptions> {
  const fn = 'permutationDrift';
  if (opts === null || typeof opts !== 'object' || typeof opts.seed !== 'string')
    throw new TypeError(`${fn}: options with a string seed are required`);
  const o = { ...DEFAULTS, maxWork: DEFAULT_MAX_WORK, ...opts };
  if (!Number.isInteger(o.resamples) || o.resamples < 1)
    throw new RangeError(`${fn}: resamples must be a positive integer, got ${o.resamples}`);
  for (const [name, x] of [
    ['confidence', o.confidence],
    ['power', o.power],
  ] as const)
    if (!(x > 0 && x < 1)) throw new RangeError(`${fn}: ${name} must be in (0, 1), got ${x}`);
  if (!(o.alpha > 0 && o.alpha < 0.5))
    throw new RangeError(`${fn}: alpha must be in (0, 0.5), got ${o.alpha}`);
  return o;
}

/**
 * The permutation test of "windows A and B score alike" on the difference of means mean(B) - mean(A),
 * for independent samples, with its normal-approximation interval and the one-sided MDD (module comment).
 * Throws RangeError/TypeError for an empty window, a non-finite score or bad options.
 */
export function permutationDrift(
  a: readonly number[],
  b: readonly number[],
  opts: DriftOptions,
): DriftResult {
  assertFiniteNumbers('permutationDrift', 'a', a);
  assertFiniteNumbers('permutationDrift', 'b', b);
  const o = resolveOptions(opts);
  const tails = tailsOf(a, b, o);
  const meanA = mean(a);
  const meanB = mean(b);
  const difference = meanB - meanA;
  const standardError = Math.sqrt(variance(a, meanA) / a.length + variance(b, meanB) / b.length);
  const z = normalQuantile(1 - (1 - o.confidence) / 2);
  return {
    nA: a.length,
    nB: b.length,
    meanA,
    meanB,
    difference,
    standardError,
    low: difference - z * standardError,
    high: difference + z * standardError,
    confidence: o.confidence,
    pLess: tails.atLeast,
    pGreater: tails.atMost,
    pTwoSided: Math.min(1, 2 * Math.min(tails.atLeast, tails.atMost)),
    method: tails.method,
    splits: tails.splits,
    mdd: Number.isNaN(standardError)
      ? Number.NaN
      : minimalDetectableDifference(standardError, { alpha: 2 * o.alpha, power: o.power }),
    alpha: o.alpha,
    power: o.power,
    seed: o.seed,
  };
}

export interface DriftVerdict {
  verdict: 'pass' | 'fail';
  /** the drop mean(A) - mean(B) */
  drop: number;
  /** the one-sided test found B lower than A at alpha */
  significant: boolean;
  /** the drop is larger than the smallest effect that matters */
  material: boolean;
}

/**
 * The drift gate: fail when B is lower than A beyond noise, i.e. the one-sided test is significant
 * (pLess <= alpha) AND the drop is larger than `minEffect`; pass otherwise.
 */
export function driftVerdict(result: DriftResult, minEffect: number): DriftVerdict {
  if (!(minEffect >= 0 && Number.isFinite(minEffect)))
    throw new RangeError(`driftVerdict: minEffect must be a finite number >= 0, got ${minEffect}`);
  const drop = -result.difference;
  const significant = result.pLess <= result.alpha;
  const material = drop > minEffect;
  return { verdict: significant && material ? 'fail' : 'pass', drop, significant, material };
}
