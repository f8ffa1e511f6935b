/**
 * Synthetic paired runs for the power tests: per-cell differences (current - baseline GFS) of a design
 * of Q questions x R runs, d = effect + b_q + e_qr with b_q ~ N(0, tau^2) (how the change acts question
 * by question) and e_qr ~ N(0, sigma^2) (run-to-run noise of the two runs), seeded. The gate's test is
 * computed directly (its sign-flip test over questions, src/stats/signflip.ts, with 1,999 sign vectors
 * instead of the gate's 9,999) and judged by the gate's own verdict rule, so thousands of simulations
 * cost a second; test/gate/power-simulation.test.ts checks the direct test against `compareRuns` itself.
 */
import seedrandom from 'seedrandom';
import { sliceVerdict, type Verdict } from '../../src/gate/gate.ts';
import { designStandardError, signFlipTest } from '../../src/stats/index.ts';

export interface PairedDesign {
  questions: number;
  runs: number;
  /** tau^2 */
  between: number;
  /** sigma^2 */
  within: number;
  /** the planted true change */
  effect: number;
}

/** The standard error of a design's mean change (its variance components, questions and runs). */
export function designSe(d: Omit<PairedDesign, 'effect'>): number {
  return designStandardError({
    betweenQuestionVariance: d.between,
    withinQuestionVariance: d.within,
    questions: d.questions,
    runs: d.runs,
  });
}

/** A seeded standard normal stream (Box-Muller on seedrandom's Alea). */
export function normalStream(seed: string): () => number {
  const uniform = seedrandom.alea(seed);
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u = 1 - uniform(); // (0, 1]
    const v = uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** One simulated comparison: the paired differences, cell by cell, with their question. */
export function simulateDifferences(
  d: PairedDesign,
  normal: () => number,
): { question: string; run: number; value: number }[] {
  const out: { question: string; run: number; value: number }[] = [];
  const tau = Math.sqrt(d.between);
  const sigma = Math.sqrt(d.within);
  for (let q = 0; q < d.questions; q++) {
    const b = tau * normal();
    for (let run = 0; run < d.runs; run++)
      out.push({ question: `q${q}`, run, value: d.effect + b + sigma * normal() });
  }
  return out;
}

/** The gate's verdict on a slice by its sign-flip test (1,999 sign vectors, seeded by `seed`). */
export function directVerdict(
  cells: readonly { question: string; value: number }[],
  opts: { alpha: number; minEffect: number },
  seed = 'direct',
): Verdict {
  const test = signFlipTest(
    cells.map((x) => ({ cluster: x.question, value: x.value })),
    { resamples: 1999, confidence: 1 - opts.alpha, seed },
  );
  return sliceVerdict(test, opts.minEffect);
}

/** The share of `simulations` seeded comparisons in which the direct statistic leaves "within noise". */
export function rejectionRate(
  d: PairedDesign,
  simulations: number,
  seed: string,
  opts: { alpha: number; minEffect: number },
): { rate: number; rejected: number; regressions: number } {
  const normal = normalStream(seed);
  let rejected = 0;
  let regressions = 0;
  for (let i = 0; i < simulations; i++) {
    const verdict = directVerdict(simulateDifferences(d, normal), opts, `${seed}:${i}`);
    if (verdict !== 'within noise') rejected++;
    if (verdict === 'regression') regressions++;
  }
  return { rate: rejected / simulations, rejected, regressions };
}
