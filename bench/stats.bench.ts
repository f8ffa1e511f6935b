/**
 * The hot path of every report: `bootstrapCI` with BCa, 10,000 resamples of a mean at n = 1,800
 * (GFS-like scores on five levels). Timed against `scipy.stats.bootstrap(..., method='BCa')` on the
 * same data in the same run when /usr/bin/python3 has scipy (Python times itself with
 * time.perf_counter, after one warm-up call), and always against a naive TypeScript version (an array
 * per resample, Array.prototype.reduce for the mean, a leave-one-out array per jackknife value).
 * On this data (five levels) rge draws each resample's level counts (conditional binomials) rather
 * than n indices, the same bootstrap distribution; scipy and the naive version draw n indices.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { bootstrapCI } from '../src/stats/index.ts';
import { bcaFromParts, influenceFromJackknife } from '../src/stats/intervals.ts';
import { type Bench, type BenchRow, latencyRow, percentile } from './harness.ts';

const N = 1800;
const RESAMPLES = 10_000;
const PYTHON = '/usr/bin/python3';
const NAME = `bootstrapCI bca, ${RESAMPLES.toLocaleString('en')} resamples of a mean, n = ${N.toLocaleString('en')}`;

function gfsLike(n: number): number[] {
  const random = seedrandom('stats-bench');
  return Array.from({ length: n }, () => Math.floor(random() * 5) / 4);
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

const bench: Bench = async (ctx) => {
  const values = gfsLike(N);
  const repetitions = ctx.quick ? 3 : 10;
  // warm up the JIT on the same path
  for (let w = 0; w < 3; w++) bootstrapCI(values, { method: 'bca', resamples: RESAMPLES, seed: `warm-${w}` });
  let seedIndex = 0;
  let last = bootstrapCI(values, { method: 'bca', resamples: RESAMPLES, seed: 'bench' });
  const oursMs = timeMs(() => {
    last = bootstrapCI(values, { method: 'bca', resamples: RESAMPLES, seed: `bench-${seedIndex++}` });
  }, repetitions);
  ctx.log(`rge: ${oursMs.toFixed(1)} ms, interval [${last.low}, ${last.high}]`);

  const rows: BenchRow[] = [];
  if (scipyAvailable()) {
    const dataFile = join(ctx.tmp, 'stats-bench.json');
    writeFileSync(dataFile, JSON.stringify(values));
    const out = execFileSync(PYTHON, ['-c', SCIPY_SCRIPT, dataFile, String(repetitions)], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const scipy = JSON.parse(out.trim().split('\n').at(-1) as string) as {
      seconds: number;
      version: string;
      low: number;
      high: number;
    };
    ctx.log(
      `scipy ${scipy.version}: ${(scipy.seconds * 1000).toFixed(1)} ms, interval [${scipy.low}, ${scipy.high}]`,
    );
    rows.push(
      latencyRow(
        NAME,
        'ms',
        oursMs,
        { name: `scipy ${scipy.version} stats.bootstrap BCa`, value: scipy.seconds * 1000 },
        `median of ${repetitions}; scipy timed in Python after a warm-up call`,
      ),
    );
  } else {
    rows.push({
      ...latencyRow(NAME, 'ms', oursMs, null),
      skipped: `${PYTHON} with scipy not available (apt-get install python3-scipy)`,
    });
  }
  const naiveReps = ctx.quick ? 1 : 3;
  naiveBca(values, RESAMPLES, 'warm');
  const naiveMs = timeMs(() => naiveBca(values, RESAMPLES, 'naive'), naiveReps);
  rows.push(
    latencyRow(NAME, 'ms', oursMs, { name: 'naive TypeScript', value: naiveMs }, `median of ${naiveReps}`),
  );
  return rows;
};

export default bench;
