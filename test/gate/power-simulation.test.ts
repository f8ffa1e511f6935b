/**
 * Is the gate's minimal detectable difference honest? Seeded simulations of paired runs (test/gate/
 * simulate.ts): with a planted change equal to the MDD the gate's test rejects 80 % of the time (within
 * 3 points, 4,000 simulations: a binomial error of 0.6 points); with no change it raises a false alarm
 * at about its nominal 5 % (2.5 % in the direction of a regression). The test is the gate's sign-flip
 * test with fewer sign vectors; a smaller run of the gate itself (`compareRuns`) checks that it decides
 * as the gate does. The MDD uses Student's t on the questions' df, which keeps its 80 % at 12 questions,
 * where z's would promise 80 % and deliver about 71 %.
 */
import { describe, expect, it } from 'vitest';
import { compareRuns, DEFAULT_MIN_EFFECT, type GateSummary } from '../../src/gate/gate.ts';
import { minimalDetectableDifference } from '../../src/stats/index.ts';
import {
  designSe,
  directVerdict,
  normalStream,
  type PairedDesign,
  rejectionRate,
  simulateDifferences,
} from './simulate.ts';

/** 40 questions x 2 runs, the change's spread across questions 0.02, the runs' noise 0.1 (GFS units). */
const DESIGN = { questions: 40, runs: 2, between: 0.02 ** 2, within: 0.1 ** 2 };
const SE = designSe(DESIGN);
const MDD = minimalDetectableDifference(SE, { df: DESIGN.questions - 1 });
const GATE = { alpha: 0.05, minEffect: DEFAULT_MIN_EFFECT };
const SIMULATIONS = 4000;

describe('the MDD against simulation (direct statistic)', () => {
  it(`a planted drop equal to the MDD (${MDD.toFixed(4)}) is caught 80 % +- 3 points of the time`, () => {
    // z SE above the minimum effect: the gate's drop condition does not bind at this design
    expect(1.96 * SE).toBeGreaterThan(GATE.minEffect);
    const drop = rejectionRate({ ...DESIGN, effect: -MDD }, SIMULATIONS, 'mdd:drop', GATE);
    expect(drop.rate).toBeGreaterThanOrEqual(0.77);
    expect(drop.rate).toBeLessThanOrEqual(0.83);
    expect(drop.regressions).toBe(drop.rejected);
    const rise = rejectionRate({ ...DESIGN, effect: MDD }, SIMULATIONS, 'mdd:rise', GATE);
    expect(Math.abs(rise.rate - 0.8)).toBeLessThanOrEqual(0.03);
  });

  it('at 12 questions x 3 runs the t-based MDD still gives 80 %; the z-based one would promise more than the test has', () => {
    const small = { questions: 12, runs: 3, between: 0.02 ** 2, within: 0.1 ** 2 };
    const se = designSe(small);
    const mdd = minimalDetectableDifference(se, { df: small.questions - 1 });
    const gate = { alpha: 0.05, minEffect: 0 };
    const atT = rejectionRate({ ...small, effect: -mdd }, 2000, 'mdd:small', gate);
    expect(Math.abs(atT.rate - 0.8)).toBeLessThanOrEqual(0.035);
    const atZ = rejectionRate(
      { ...small, effect: -minimalDetectableDifference(se) },
      2000,
      'mdd:small:z',
      gate,
    );
    expect(atZ.rate).toBeLessThan(0.76);
  });

  it('with no change the false-alarm rate is about nominal (5 % two-sided, 2.5 % as a regression)', () => {
    const none = rejectionRate({ ...DESIGN, effect: 0 }, SIMULATIONS, 'mdd:null', GATE);
    expect(none.rate).toBeGreaterThanOrEqual(0.035);
    expect(none.rate).toBeLessThanOrEqual(0.07);
    expect(none.regressions / SIMULATIONS).toBeLessThanOrEqual(0.04);
  });

  it('a planted drop of half the MDD is mostly missed: the MDD is the smallest change the run sees reliably', () => {
    const half = rejectionRate({ ...DESIGN, effect: -MDD / 2 }, 1000, 'mdd:half', GATE);
    // the z-test's power at MDD / 2 is Phi(1.40 - 1.96) = 0.29
    expect(half.rate).toBeGreaterThan(0.2);
    expect(half.rate).toBeLessThan(0.4);
  });
});

/** Two gate summaries whose cells differ by simulated paired differences, one subject, one category. */
function pairedSummaries(design: PairedDesign, normal: () => number): [GateSummary, GateSummary] {
  const diffs = simulateDifferences(design, normal);
  const cells = (pick: (d: number) => number) =>
    diffs.map((d) => ({
      subject: 's',
      question_id: d.question,
      run_index: d.run,
      category: 'adversarial',
      gfs: pick(d.value),
      correctness: 1,
    }));
  const summary = (runId: string, gfs: (d: number) => number): GateSummary => ({
    run: { runId, seed: `sim:${runId}`, questionsHash: 'q', indexChecksum: 'i' },
    diagnostics: { cells: cells(gfs) },
  });
  return [summary('base', () => 0.6), summary('cur', (d) => 0.6 + d)];
}

describe('the direct test decides as the gate does', () => {
  it('on 200 simulated run pairs at the MDD, compareRuns (9,999 sign vectors) agrees with it on >= 93 %', () => {
    const normal = normalStream('gate-vs-direct');
    let agree = 0;
    let gateRejects = 0;
    const n = 200;
    for (let i = 0; i < n; i++) {
      const [base, cur] = pairedSummaries({ ...DESIGN, effect: -MDD }, normal);
      const row = compareRuns(base, cur).rows.find((r) => r.slice === 'overall');
      if (!row) throw new Error('no overall row');
      const direct = directVerdict(
        cur.diagnostics.cells.map((c, k) => ({
          question: c.question_id,
          value: (c.gfs as number) - (base.diagnostics.cells[k]?.gfs as number),
        })),
        GATE,
      );
      if (row.verdict === direct) agree++;
      if (row.verdict !== 'within noise') gateRejects++;
      // the gate's own MDD is the direct statistic's
      expect(row.mdd).toBeGreaterThan(0);
    }
    expect(agree / n).toBeGreaterThanOrEqual(0.93);
    // the gate itself: 80 % within 3 binomial errors of 200 simulations (2.8 points each)
    expect(Math.abs(gateRejects / n - 0.8)).toBeLessThanOrEqual(0.085);
  }, 60_000);
});
