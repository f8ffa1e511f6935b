/**
 * `rge traces drift --windows A,B`: the drift gate between two judged windows of logged traffic (the
 * judged.jsonl of `rge traces judge`, or its folder). One dimension's per-case scores of A and B are
 * compared by the two-sample permutation test (src/stats/drift.ts); the gate fails (exit 1) when B is
 * lower than A beyond noise: the one-sided test significant at --alpha AND the drop larger than
 * --min-effect. It prints the means, the difference and its interval, the p-values, the MDD and the verdict.
 */
import { stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { type DriftResult, type DriftVerdict, driftVerdict, permutationDrift } from '../stats/drift.ts';
import { DRIFT_DIMENSIONS, type DriftDimension, dimensionValue, JudgedTraceCase } from '../traces/judged.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { readJsonl } from '../util/jsonl.ts';
import { type CliIO, existingPath } from './io.ts';

export interface TracesDriftFlags {
  windows: string;
  dimension?: string;
  minEffect?: string;
  alpha?: string;
  seed?: string;
  json?: boolean;
}

export const DRIFT_DEFAULTS = {
  dimension: 'grounding',
  minEffect: 0.1,
  alpha: 0.05,
  seed: 'rge-traces-drift',
};

/** A number flag in [low, high), else a usage error naming the flag. */
function numberFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  low: number,
  high: number,
): number {
  if (value === undefined) return fallback;
  const x = value.trim() === '' ? Number.NaN : Number(value);
  if (!(x >= low && x < high))
    throw new UsageError(`${name} must be a number in [${low}, ${high}), got ${value}`);
  return x;
}

/** A window's scores of a dimension: the judged.jsonl (or the folder that has one), cases without a value left out. */
async function windowScores(
  io: CliIO,
  path: string,
  dimension: DriftDimension,
): Promise<{ file: string; scores: number[]; left: number }> {
  const given = existingPath(io.cwd, '--windows', path);
  const file = (await stat(given)).isDirectory() ? join(given, 'judged.jsonl') : given;
  const cases = await readJsonl(file, JudgedTraceCase);
  const values = cases.map((c) => dimensionValue(c.value, dimension));
  const scores = values.filter((v): v is number => v !== null);
  if (scores.length === 0)
    throw new RgeError(`no case has a ${dimension} score (${cases.length} cases)`, { file });
  return { file: relative(io.cwd, file) || file, scores, left: values.length - scores.length };
}

/** `rge traces drift` (options in traces-window-commands.ts). */
export async function tracesDriftAction(flags: TracesDriftFlags, io: CliIO): Promise<void> {
  const windows = flags.windows.split(',').map((w) => w.trim());
  if (windows.length !== 2 || windows.some((w) => w === ''))
    throw new UsageError(`--windows takes two judged windows, A,B (earlier first), got ${flags.windows}`);
  const dimension = (flags.dimension ?? DRIFT_DEFAULTS.dimension) as DriftDimension;
  if (!DRIFT_DIMENSIONS.includes(dimension))
    throw new UsageError(`--dimension must be one of ${DRIFT_DIMENSIONS.join(', ')}, got ${flags.dimension}`);
  const minEffect = numberFlag(
    '--min-effect',
    flags.minEffect,
    DRIFT_DEFAULTS.minEffect,
    0,
    Number.POSITIVE_INFINITY,
  );
  const alpha = numberFlag('--alpha', flags.alpha, DRIFT_DEFAULTS.alpha, Number.MIN_VALUE, 0.5);
  const [a, b] = await Promise.all(windows.map((w) => windowScores(io, w, dimension)));
  if (!a || !b) return;
  const seed = flags.seed ?? DRIFT_DEFAULTS.seed;
  const result = permutationDrift(a.scores, b.scores, { seed, alpha });
  const verdict = driftVerdict(result, minEffect);
  if (flags.json)
    io.out(
      `${JSON.stringify({ dimension, windows: [a.file, b.file], minEffect, result, ...verdict }, null, 2)}\n`,
    );
  else io.out(formatDrift(dimension, [a, b], result, verdict, minEffect));
  if (verdict.verdict === 'fail') io.exitCode = 1;
}

const METHOD: Record<DriftResult['method'], (r: DriftResult) => string> = {
  'exact-grid': (r) =>
    `exact over all C(${r.nA + r.nB}, ${r.nA}) splits, by dynamic programming on the score grid`,
  'exact-splits': (r) => `exact: all ${r.splits} splits enumerated`,
  'monte-carlo': (r) => `${r.splits} seeded random splits (seed ${r.seed}), (b + 1) / (m + 1)`,
};

/** The printed report of the drift gate. */
export function formatDrift(
  dimension: string,
  [a, b]: readonly { file: string; left: number }[],
  r: DriftResult,
  v: DriftVerdict,
  minEffect: number,
): string {
  const f = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toFixed(3));
  const p = (x: number) => (x < 1e-4 ? x.toExponential(2) : x.toFixed(4));
  const left = (w: { left: number } | undefined) =>
    w && w.left > 0 ? `, ${w.left} without a score left out` : '';
  const why =
    v.verdict === 'fail'
      ? `${dimension} dropped by ${f(v.drop)} > --min-effect ${minEffect} and p ${p(r.pLess)} <= alpha ${r.alpha}`
      : !v.significant
        ? `no drop beyond noise: p ${p(r.pLess)} > alpha ${r.alpha}`
        : `the drop ${f(v.drop)} is within --min-effect ${minEffect}`;
  return [
    `drift of ${dimension}: A ${a?.file} (n ${r.nA}, mean ${f(r.meanA)}${left(a)}) -> B ${b?.file} (n ${r.nB}, mean ${f(r.meanB)}${left(b)})`,
    `difference B - A: ${f(r.difference)}, ${Math.round(r.confidence * 100)}% interval [${f(r.low)}, ${f(r.high)}] (normal approximation, Welch standard error ${f(r.standardError)})`,
    `permutation test for independent samples, ${METHOD[r.method](r)}: p (B lower) ${p(r.pLess)}, p (two-sided) ${p(r.pTwoSided)}`,
    `minimal detectable drop (one-sided alpha ${r.alpha}, power ${r.power}): ${f(r.mdd)}`,
    `verdict: ${v.verdict.toUpperCase()}: ${why}`,
    '',
  ].join('\n');
}
