/**
 * The reference vectors written by `make_reference_vectors.py` (scipy 1.10.1, statsmodels 0.13.5,
 * scikit-learn 1.2.1, numpy 1.24.2), with "NaN" / "Infinity" strings turned back into numbers.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

type Interval = { low: number; high: number };
type Bca = Interval & { z0: number; acceleration: number; alpha1: number; alpha2: number };
type EndToEnd = {
  bca: Interval & { standardError: number };
  percentile: Interval & { standardError: number };
};

export interface ReferenceVectors {
  versions: Record<string, string>;
  distributions: {
    ndtr: [number, number][];
    ndtri: [number, number][];
    chi2sf1: [number, number][];
    binomcdfHalf: [number, number, number][];
  };
  kappa: {
    name: string;
    a: number[];
    b: number[];
    weights: 'none' | 'linear' | 'quadratic';
    labels: number[] | null;
    kappa: number;
  }[];
  mcnemar: {
    name: string;
    table: [[number, number], [number, number]];
    exact: { statistic: number; pValue: number };
    chi2corrected: { statistic: number; pValue: number };
    chi2: { statistic: number; pValue: number };
  }[];
  multitest: { p: number[]; bonferroni: number[]; holm: number[] }[];
  bootstrapGivenDistribution: {
    name: string;
    values: number[];
    confidence: number;
    bootDistribution: number[];
    bca: Bca;
    percentile: Interval;
  }[];
  clusterGivenDistribution: {
    name: string;
    rows: { cluster: string; value: number }[];
    clusterSums: number[];
    clusterSizes: number[];
    bootDistribution: number[];
    bca: Bca;
  }[];
  endToEnd: {
    resamples: number;
    cases: (EndToEnd & { name: string; confidence: number } & (
        | { kind: 'one-sample'; values: number[] }
        | { kind: 'paired'; a: number[]; b: number[] }
        | { kind: 'cluster'; rows: { cluster: string; value: number }[] }
      ))[];
  };
  variance: {
    name: string;
    rows: { question: string; run: number; value: number }[];
    perQuestionSD: Record<string, number>;
    withinQuestionVariance: number;
    withinQuestionSD: number;
    betweenQuestionVariance: number;
  }[];
}

const SPECIAL: Record<string, number> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
};

export const reference: ReferenceVectors = JSON.parse(
  readFileSync(new URL('./reference-vectors.json', import.meta.url), 'utf8'),
  (_key, value) => (typeof value === 'string' && value in SPECIAL ? SPECIAL[value] : value),
);

/** |actual - expected| <= tol * max(1, |expected|); NaN matches NaN only. */
export function expectClose(actual: number, expected: number, tol: number, what = ''): void {
  if (Number.isNaN(expected)) {
    expect(actual, what).toBeNaN();
    return;
  }
  const error = Math.abs(actual - expected);
  const bound = tol * Math.max(1, Math.abs(expected));
  if (!(error <= bound)) expect.fail(`${what}: ${actual} vs ${expected} (error ${error} > ${bound})`);
}

/** Relative error, for values spanning many orders of magnitude. */
export function expectRelative(actual: number, expected: number, tol: number, what = ''): void {
  if (actual === expected) return;
  const error = Math.abs(actual - expected) / Math.abs(expected);
  if (!(error <= tol)) expect.fail(`${what}: ${actual} vs ${expected} (relative error ${error} > ${tol})`);
}
