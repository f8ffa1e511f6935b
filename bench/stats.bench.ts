/**
 * The hot path of every report: `bootstrapCI` with BCa, 10,000 resamples of a mean at n = 1,800 (a
 * published run's cells: 3 subjects x 200 questions x 3 runs), on two data sets:
 * - GFS-grid data, the report's real input: the primary GFS of seeded judge scores (grounding,
 *   correctness and calibration each 0, 1 or 2), values on a 0.025 grid (27 levels). rge draws each
 *   resample's sum from the sum's distribution (src/stats/sum-distribution.ts) there, with ties exact;
 * - continuous data (uniform on [0, 1), no grid): n index draws a resample.
 * Each is timed against `scipy.stats.bootstrap(..., method='BCa')` on the same data in the same run
 * when /usr/bin/python3 has scipy (Python times itself with time.perf_counter, after one warm-up
 * call; scipy draws n indices a resample on both), and the grid data also against a naive TypeScript
 * version (an array per resample, Array.prototype.reduce for the mean, a leave-one-out array per
 * jackknife value).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { gfsPrimary } from '../src/scoring/gfs.ts';
import { bootstrapCI } from '../src/stats/index.ts';
import { bcaFromParts, influenceFromJackknife } from '../src/stats/intervals.ts';
import { type Bench, type BenchContext, type BenchRow, latencyRow, percentile } from './harness.ts';

const N = 1800;
const RESAMPLES = 10_000;
const PYTHON = '/usr/bin/python3';
const NAME = `bootstrapCI bca, ${RESAMPLES.toLocaleString('en')} resamples of a mean, n = ${N.toLocaleString('en')}`;

/** Primary GFS of seeded scores: each dimension 0, 1 or 2 (shares 0.15, 0.30, 0.55). */
function gfsGrid(n: number): number[] {
  const random = seedrandom('stats-bench');
  const score = () => {
    const u = random();
    return u < 0.15 ? 0 : u < 0.45 ? 1 : 2;
  };
  return Array.from({ length: n }, () =>
    gfsPrimary({ grounding: score(), correctness: score(), calibration: score() }),
  );
}

function continuous(n: number): number[] {
  const random = seedrandom('stats-bench-continuous');
  return Array.from({ length: n }, () => random());
}

/** The straightforward version: what one writes first. Same RNG and the same BCa formulas. */
function naiveBca(values: number[], resamples: number, seed: string): { low: number; high: number } {
  const random = seedrandom.alea(seed);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const dist: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const resample = values.map(() => values[Math.floor(random() * values.length)] as number);
    dist.push(mean(resample));
  }
  const jackknife = values.map((_, i) => mean(values.filter((__, j) => j !== i)));
  const sorted = Float64Array.from(dist.sort((x, y) => x - y));
  return bcaFromParts(
    sorted,
    mean(values),
    influenceFromJackknife(Float64Array.from(jackknife)),
    (1 - 0.95) / 2,
  );
}

function median(xs: number[]): number {
  return percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
}

function timeMs(f: () => void, repetitions: number): number {
  const times: number[] = [];
  for (let r = 0; r < repetitions; r++) {
    const t = performance.now();
    f();
    times.push(performance.now() - t);
  }
  return median(times);
}

const SCIPY_SCRIPT = `
import json, sys, time
import numpy as np
from scipy import stats
x = np.array(json.load(open(sys.argv[1])), dtype=float)
reps = int(sys.argv[2])
stats.bootstrap((x,), np.mean, n_resamples=${RESAMPLES}, method='BCa', random_state=0)  # warm-up
times = []
for r in range(reps):
    t = time.perf_counter()
    res = stats.bootstrap((x,), np.mean, n_resamples=${RESAMPLES}, method='BCa', random_state=r + 1)
    times.append(time.perf_counter() - t)
import scipy
print(json.dumps({"seconds": sorted(times)[len(times) // 2], "version": scipy.__version__,
                  "low": float(res.confidence_interval.low), "high": float(res.confidence_interval.high)}))
`;

function scipyAvailable(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import scipy.stats'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function scipyBca(
  ctx: BenchContext,
  name: string,
  values: number[],
  repetitions: number,
): { seconds: number; version: string; low: number; high: number } {
  const dataFile = join(ctx.tmp, `stats-bench-${name}.json`);
  writeFileSync(dataFile, JSON.stringify(values));
  const out = execFileSync(PYTHON, ['-c', SCIPY_SCRIPT, dataFile, String(repetitions)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

function oursMs(values: number[], repetitions: number): { ms: number; low: number; high: number } {
  // warm up the JIT on the same path
  for (let w = 0; w < 3; w++) bootstrapCI(values, { method: 'bca', resamples: RESAMPLES, seed: `warm-${w}` });
  let seedIndex = 0;
  let last = bootstrapCI(values, { method: 'bca', resamples: RESAMPLES, seed: 'bench' });
  const ms = timeMs(() => {
    last = bootstrapCI(values, { method: 'bca', resamples: RESAMPLES, seed: `bench-${seedIndex++}` });
  }, repetitions);
  return { ms, low: last.low, high: last.high };
}

const bench: Bench = async (ctx) => {
  const repetitions = ctx.quick ? 3 : 10;
  const haveScipy = scipyAvailable();
  const rows: BenchRow[] = [];
  const grid = gfsGrid(N);
  for (const [label, values] of [
    ['continuous data', continuous(N)],
    [`GFS-grid data (0.025 grid, ${new Set(grid).size} levels)`, grid],
  ] as const) {
    const name = `${NAME}, ${label}`;
    const ours = oursMs([...values], repetitions);
    ctx.log(`${label}: rge ${ours.ms.toFixed(1)} ms, interval [${ours.low}, ${ours.high}]`);
    if (!haveScipy) {
      rows.push({
        ...latencyRow(name, 'ms', ours.ms, null),
        skipped: `${PYTHON} with scipy not available (apt-get install python3-scipy)`,
      });
      continue;
    }
    const scipy = scipyBca(ctx, label.split(' ')[0] as string, [...values], repetitions);
    ctx.log(
      `${label}: scipy ${scipy.version} ${(scipy.seconds * 1000).toFixed(1)} ms, interval [${scipy.low}, ${scipy.high}]`,
    );
    rows.push(
      latencyRow(
        name,
        'ms',
        ours.ms,
        { name: `scipy ${scipy.version} stats.bootstrap BCa`, value: scipy.seconds * 1000 },
        `goal ratio >= 10 on the grid data; median of ${repetitions}; scipy timed in Python after a warm-up call`,
      ),
    );
  }
  const naiveReps = ctx.quick ? 1 : 3;
  naiveBca(grid, RESAMPLES, 'warm');
  const naiveMs = timeMs(() => naiveBca(grid, RESAMPLES, 'naive'), naiveReps);
  const ours = oursMs(grid, repetitions);
  rows.push(
    latencyRow(
      `${NAME}, GFS-grid data`,
      'ms',
      ours.ms,
      { name: 'naive TypeScript', value: naiveMs },
      `median of ${naiveReps}`,
    ),
  );
  return rows;
};

export default bench;
