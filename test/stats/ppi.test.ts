/**
 * ppiMean against ppi_py (the authors' package, `../shared/oracle/ppi.json`: classic PPI, PPI++ and the
 * classical mean, with and without stratified-sample weights) to 1e-9, and by hand-computed cases that
 * need no shared data: the classical and classic-PPI formulas, weight rescaling, the tuned lambda
 * minimising the variance, and the cluster-robust standard error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalQuantile, ppiMean } from '../../src/stats/index.ts';
import { sharedOracle } from '../helpers/shared.ts';

interface OracleInterval {
  estimate: number;
  low: number;
  high: number;
}
interface OracleVector {
  name: string;
  Y: number[];
  Yhat: number[];
  Yhat_unlabeled: number[];
  w?: number[];
  alpha: number;
  ppi: OracleInterval;
  ppi_plus_plus: OracleInterval;
  classical: OracleInterval;
}

const oracle: OracleVector[] = sharedOracle
  ? (JSON.parse(readFileSync(join(sharedOracle, 'ppi.json'), 'utf8')) as { vectors: OracleVector[] }).vectors
  : [];

describe.skipIf(sharedOracle === null)('ppiMean against ppi_py (../shared/oracle/ppi.json)', () => {
  it('has vectors to check', () => {
    expect(oracle.length).toBeGreaterThanOrEqual(6);
  });
  for (const v of oracle) {
    for (const [key, lambda] of [
      ['ppi', 1],
      ['ppi_plus_plus', 'tuned'],
      ['classical', 0],
    ] as const) {
      it(`${v.name}: ${key} (lambda ${lambda}) to 1e-9`, () => {
        const got = ppiMean({
          y: v.Y,
          yhat: v.Yhat,
          yhatUnlabeled: v.Yhat_unlabeled,
          ...(v.w ? { w: v.w } : {}),
          lambda,
          alpha: v.alpha,
        });
        const want = v[key];
        const error = Math.max(
          Math.abs(got.estimate - want.estimate),
          Math.abs(got.low - want.low),
          Math.abs(got.high - want.high),
        );
        expect(error, `${v.name} ${key}: max abs error ${error}`).toBeLessThanOrEqual(1e-9);
        if (lambda !== 'tuned') expect(got.lambda).toBe(lambda);
        else expect(got.lambda).toBeGreaterThanOrEqual(0);
      });
    }
  }
});
if (sharedOracle === null)
  describe('ppiMean against ppi_py', () => {
    it.skip('../shared/oracle is absent (a user clone, or RGE_SHARED=0): the oracle vectors are not checked', () => {});
  });

const y = [0.5, 0.75, 1, 0.25, 0.75, 1];
const yhat = [0.75, 0.75, 1, 0.5, 1, 1];
const yhatU = [0.5, 1, 0.75, 0.75, 1, 0.25, 1, 0.5];
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const var0 = (xs: readonly number[]) => mean(xs.map((x) => (x - mean(xs)) ** 2));
const z = normalQuantile(0.975);

describe('ppiMean by hand', () => {
  it('lambda 0: the labelled mean with its normal interval (ddof 0)', () => {
    const r = ppiMean({ y, yhat, yhatUnlabeled: yhatU, lambda: 0 });
    expect(r.estimate).toBeCloseTo(mean(y), 15);
    expect(r.high - r.estimate).toBeCloseTo(z * Math.sqrt(var0(y) / y.length), 15);
    expect(r.lambda).toBe(0);
  });

  it('lambda 1: the judges mean corrected by the mean gap between people and judges', () => {
    const r = ppiMean({ y, yhat, yhatUnlabeled: yhatU, lambda: 1, alpha: 0.1 });
    const gap = y.map((v, i) => v - (yhat[i] as number));
    expect(r.estimate).toBeCloseTo(mean(yhatU) + mean(gap), 15);
    const se = Math.sqrt(var0(yhatU) / yhatU.length + var0(gap) / gap.length);
    expect(r.standardError).toBeCloseTo(se, 15);
    expect(r.low).toBeCloseTo(r.estimate - normalQuantile(0.95) * se, 15);
  });

  it('weights are rescaled to their count: scaling them changes nothing; weights tilt the labelled mean', () => {
    const w = [1, 2, 1, 3, 1, 2];
    const a = ppiMean({ y, yhat, yhatUnlabeled: yhatU, w, lambda: 0 });
    const b = ppiMean({ y, yhat, yhatUnlabeled: yhatU, w: w.map((x) => x * 7.5), lambda: 0 });
    expect(b.estimate).toBeCloseTo(a.estimate, 15);
    expect(b.high).toBeCloseTo(a.high, 15);
    const weighted = y.reduce((s, v, i) => s + v * (w[i] as number), 0) / mean(w) / y.length;
    expect(a.estimate).toBeCloseTo(weighted, 15);
    const u = ppiMean({
      y,
      yhat,
      yhatUnlabeled: yhatU,
      wUnlabeled: yhatU.map((_, j) => (j < 4 ? 3 : 1)),
      lambda: 1,
    });
    const wu = yhatU.map((_, j) => (j < 4 ? 1.5 : 0.5));
    expect(u.estimate).toBeCloseTo(
      mean(yhatU.map((v, j) => v * (wu[j] as number))) + mean(y) - mean(yhat),
      15,
    );
  });

  it('the tuned lambda lies in [0, 1]; a judge with no signal gets 0 (constant judge scores)', () => {
    const tuned = ppiMean({ y, yhat, yhatUnlabeled: yhatU });
    expect(tuned.lambda).toBeGreaterThanOrEqual(0);
    expect(tuned.lambda).toBeLessThanOrEqual(1);
    const flat = ppiMean({ y, yhat: y.map(() => 0.5), yhatUnlabeled: yhatU.map(() => 0.5) });
    expect(flat.lambda).toBe(0);
    expect(flat.estimate).toBeCloseTo(mean(y), 15);
  });

  it('clusters of one item each, none on both sides: the unclustered standard error exactly', () => {
    const clusters = { labelled: y.map((_, i) => `l${i}`), unlabelled: yhatU.map((_, j) => `u${j}`) };
    for (const lambda of [0, 0.4, 1]) {
      const plain = ppiMean({ y, yhat, yhatUnlabeled: yhatU, lambda });
      const clustered = ppiMean({ y, yhat, yhatUnlabeled: yhatU, lambda, clusters });
      expect(clustered.estimate).toBe(plain.estimate);
      expect(clustered.standardError).toBeCloseTo(plain.standardError, 14);
    }
  });

  it('clustered: runs that repeat their question exactly add no information', () => {
    const copies = 3;
    const rep = <T>(xs: readonly T[]) => xs.flatMap((x) => Array<T>(copies).fill(x));
    const ids = (xs: readonly unknown[], p: string) => xs.map((_, i) => `${p}${i}`);
    const single = ppiMean({
      y,
      yhat,
      yhatUnlabeled: yhatU,
      lambda: 1,
      clusters: { labelled: ids(y, 'l'), unlabelled: ids(yhatU, 'u') },
    });
    const repeated = ppiMean({
      y: rep(y),
      yhat: rep(yhat),
      yhatUnlabeled: rep(yhatU),
      lambda: 1,
      clusters: { labelled: rep(ids(y, 'l')), unlabelled: rep(ids(yhatU, 'u')) },
    });
    expect(repeated.estimate).toBeCloseTo(single.estimate, 14);
    expect(repeated.standardError).toBeCloseTo(single.standardError, 14);
    // unclustered, the copies would pass for independent items: sqrt(3) too narrow
    const naive = ppiMean({ y: rep(y), yhat: rep(yhat), yhatUnlabeled: rep(yhatU), lambda: 1 });
    expect(naive.standardError * Math.sqrt(copies)).toBeCloseTo(single.standardError, 14);
  });

  it('clustered, tuned: lambda minimises the cluster-robust standard error over [0, 1]', () => {
    // labelled items share questions with unlabelled ones (a question's other runs)
    const clusters = {
      labelled: ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'],
      unlabelled: ['q1', 'q1', 'q2', 'q3', 'q7', 'q7', 'q8', 'q8'],
    };
    const tuned = ppiMean({ y, yhat, yhatUnlabeled: yhatU, clusters });
    for (let lambda = 0; lambda <= 1.0001; lambda += 0.05) {
      const other = ppiMean({ y, yhat, yhatUnlabeled: yhatU, clusters, lambda });
      expect(tuned.standardError).toBeLessThanOrEqual(other.standardError + 1e-15);
    }
  });

  it('rejects bad input, naming the argument', () => {
    expect(() => ppiMean({ y: [], yhat: [], yhatUnlabeled: [1] })).toThrow(/y is empty/);
    expect(() => ppiMean({ y: [1, 2], yhat: [1], yhatUnlabeled: [1] })).toThrow(/y and yhat/);
    expect(() => ppiMean({ y: [1], yhat: [1], yhatUnlabeled: [] })).toThrow(/yhatUnlabeled is empty/);
    expect(() => ppiMean({ y: [1], yhat: [Number.NaN], yhatUnlabeled: [1] })).toThrow(/yhat\[0\] is NaN/);
    expect(() => ppiMean({ y: [1, 2], yhat: [1, 2], yhatUnlabeled: [1], w: [1] })).toThrow(
      /one weight per item/,
    );
    expect(() => ppiMean({ y: [1, 2], yhat: [1, 2], yhatUnlabeled: [1], w: [1, -1] })).toThrow(
      /w\[1\] is -1/,
    );
    expect(() => ppiMean({ y: [1], yhat: [1], yhatUnlabeled: [1], wUnlabeled: [0] })).toThrow(/sums to 0/);
    expect(() => ppiMean({ y: [1], yhat: [1], yhatUnlabeled: [1], alpha: 1 })).toThrow(/alpha/);
    expect(() => ppiMean({ y: [1], yhat: [1], yhatUnlabeled: [1], lambda: Number.NaN })).toThrow(/lambda/);
    expect(() =>
      ppiMean({ y: [1], yhat: [1], yhatUnlabeled: [1], clusters: { labelled: [], unlabelled: ['a'] } }),
    ).toThrow(/clusters.labelled and y/);
  });
});
