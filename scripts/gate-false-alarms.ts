/**
 * The gate's level and power on real runs: N runs of configs/ci.yaml that differ only in the sampling
 * seed (`--set seed=rge-fa-<i>`), then `compareRuns` (the gate) on every pair, the lower-numbered run as
 * the baseline. No pair differs by anything but noise, so every interval that excludes 0 is a false
 * alarm of the test, and every failed gate a false alarm of the gate (which also asks for a drop above
 * --min-effect, overall or in a category).
 *
 *   npx tsx scripts/gate-false-alarms.ts [--runs 80] [--dir DIR] [--sets 200] [--no-bca]
 *     (default --dir: rge-fa in the OS temporary folder; runs already there are reused)
 *
 * It prints, per subject:
 * - how often the gate's test (the paired sign-flip test over questions, src/stats/signflip.ts) excludes
 *   0 at 95 %, and, for the record, how often the BCa cluster bootstrap it replaced does (--no-bca skips);
 * - the band chance allows for that count: the pairs of N runs are dependent (each run is in N - 1 of
 *   them), so the count of 3,160 pairs is far more variable than a binomial. `--sets` simulated sets of N
 *   runs with no effect of a whole run (each question's cells drawn from a random one of the observed
 *   runs, so every question keeps its own distribution and its runs' correlation) are put through the
 *   same test (its sign vectors shared by a set's pairs, which makes it a few lines of arithmetic), and the
 *   central 95 % of their counts is the band;
 * - whether the runs share randomness (a run-level effect): the SD of the runs' mean GFS against the SD
 *   question-level noise alone gives, and where that ratio falls among the simulated sets';
 * - the power at the MDD: every pair again with the current run's cells lowered by the pair's own MDD
 *   (the gate's, overall, 80 % power), and how often the gate's interval then lies wholly below 0.
 * Seeds: the runs' `rge-fa-<i>`, the simulation's `rge-gate-false-alarms-v2`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';
import {
  compareRuns,
  GATE_CONFIDENCE,
  type GateSummary,
  pairedCells,
  readGateSummary,
} from '../src/gate/gate.ts';
import { clusterBootstrapCI } from '../src/stats/bootstrap.ts';
import { resamplingState, xoshiro128ss } from '../src/stats/resampling.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** the BCa bootstrap's resamples when it was the gate's test (ADR 0010) */
const OLD_BCA_RESAMPLES = 10_000;
/** sign vectors per simulated set, as the gate's */
const SIMULATED_SIGN_VECTORS = 9_999;
/** GFS lies on a grid of 1/80: cluster totals in these units are exact integers */
const UNITS = 80;

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const runs = Number(flag('--runs', '80'));
const sets = Number(flag('--sets', '200'));
const withBca = !process.argv.includes('--no-bca');
const dir = resolve(flag('--dir', join(tmpdir(), 'rge-fa')));
if (!Number.isInteger(runs) || runs < 2) throw new Error(`--runs must be a whole number >= 2, got ${runs}`);
if (!Number.isInteger(sets) || sets < 10) throw new Error(`--sets must be a whole number >= 10, got ${sets}`);

const tag = (i: number) => String(i).padStart(2, '0');
const pct = (x: number, n: number) => `${((100 * x) / n).toFixed(1)}%`;

/** The summary.json of run i, running it first when it is not in `dir` yet. */
async function summaryOf(i: number): Promise<string> {
  const reports = join(dir, `reports-${tag(i)}`);
  const found = () =>
    existsSync(reports)
      ? readdirSync(reports)
          .map((d) => join(reports, d, 'summary.json'))
          .find((f) => existsSync(f))
      : undefined;
  const done = found();
  if (done) return done;
  const args = [
    join(ROOT, 'bin/rge.mjs'),
    'eval',
    'run',
    '--config',
    'configs/ci.yaml',
    '--quiet',
    '--results-dir',
    join(dir, `results-${tag(i)}`),
    '--reports-dir',
    reports,
    '--min-pass-rate',
    '0',
    '--set',
    `seed=rge-fa-${tag(i)}`,
  ];
  const code = await new Promise<number | null>((res) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
    child.on('close', res);
  });
  const file = found();
  if (code !== 0 || !file) throw new Error(`run ${i} (seed rge-fa-${tag(i)}) failed with exit ${code}`);
  return file;
}

/** Every run's summary, two eval runs at a time for those not in `dir` yet. */
async function allSummaries(): Promise<GateSummary[]> {
  const files: string[] = new Array(runs);
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < runs) {
        const i = next++;
        files[i] = await summaryOf(i);
      }
    }),
  );
  return Promise.all(files.map((f) => readGateSummary(f)));
}

interface RealPairs {
  pairs: number;
  gateFailures: number;
  /** per subject: pairs whose overall interval excludes 0 (the gate's test), the old BCa's, caught plants */
  excluded: Map<string, number>;
  excludedBca: Map<string, number>;
  caught: Map<string, number>;
  /** per subject: each pair's MDD (overall) */
  mdds: Map<string, number[]>;
}

const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** The current run with every cell of the subjects in `drops` lowered by that subject's drop. */
function planted(current: GateSummary, drops: Map<string, number>): GateSummary {
  const cells = current.diagnostics.cells.map((c) =>
    c.gfs === null || !drops.has(c.subject) ? c : { ...c, gfs: c.gfs - (drops.get(c.subject) as number) },
  );
  return { ...current, diagnostics: { ...current.diagnostics, cells } };
}

/** The gate on every pair: its test's exclusions of 0, the old BCa's, and the plants at the MDD caught. */
function realPairs(summaries: GateSummary[]): RealPairs {
  const out: RealPairs = {
    pairs: 0,
    gateFailures: 0,
    excluded: new Map(),
    excludedBca: new Map(),
    caught: new Map(),
    mdds: new Map(),
  };
  for (let a = 0; a < summaries.length; a++)
    for (let b = a + 1; b < summaries.length; b++) {
      const base = summaries[a] as GateSummary;
      const cur = summaries[b] as GateSummary;
      const result = compareRuns(base, cur);
      out.pairs++;
      if (!result.passed) out.gateFailures++;
      const overall = result.rows.filter((r) => r.slice === 'overall');
      const drops = new Map(overall.map((r) => [r.subject, r.mdd ?? 0]));
      const plantedRows = compareRuns(base, planted(cur, drops)).rows.filter((r) => r.slice === 'overall');
      const { paired } = withBca ? pairedCells(base, cur) : { paired: new Map() };
      for (const row of overall) {
        if (row.low > 0 || row.high < 0) bump(out.excluded, row.subject);
        (out.mdds.get(row.subject) ?? out.mdds.set(row.subject, []).get(row.subject))?.push(row.mdd ?? 0);
        if ((plantedRows.find((r) => r.subject === row.subject)?.high ?? 0) < 0)
          bump(out.caught, row.subject);
        if (!withBca) continue;
        const bca = clusterBootstrapCI(
          (paired.get(row.subject) ?? []).map((x: { question: string; d: number }) => ({
            cluster: x.question,
            value: x.d,
          })),
          { method: 'bca', resamples: OLD_BCA_RESAMPLES, confidence: GATE_CONFIDENCE, seed: row.seed },
        );
        if (bca.low > 0 || bca.high < 0) bump(out.excludedBca, row.subject);
      }
    }
  return out;
}

/**
 * A subject's cells as integer totals: totals[r][q], run r's sum over question q's cells in 1/80 units
 * (GFS lies on that grid), questions in a fixed order. Throws unless every run scored every cell of
 * every question alike (the simulation pairs whole questions).
 */
function totalsOf(
  summaries: GateSummary[],
  subject: string,
): { totals: Float64Array[]; questions: number; cells: number } {
  const order = new Map<string, number>();
  const first = (summaries[0] as GateSummary).diagnostics.cells.filter((c) => c.subject === subject);
  for (const c of first) if (!order.has(c.question_id)) order.set(c.question_id, order.size);
  const totals = summaries.map((s, r) => {
    const t = new Float64Array(order.size);
    const mine = s.diagnostics.cells.filter((c) => c.subject === subject);
    if (mine.length !== first.length)
      throw new Error(`run ${r} has ${mine.length} cells of ${subject}, run 0 ${first.length}`);
    for (const c of mine) {
      const q = order.get(c.question_id);
      if (q === undefined || c.gfs === null)
        throw new Error(`run ${r}: ${subject} ${c.question_id} run ${c.run_index} is unscored or new`);
      const units = Math.round(c.gfs * UNITS);
      if (Math.abs(units - c.gfs * UNITS) > 1e-6)
        throw new Error(`run ${r}: GFS ${c.gfs} is off the 1/${UNITS} grid`);
      t[q] = (t[q] as number) + units;
    }
    return t;
  });
  return { totals, questions: order.size, cells: first.length };
}

/** The SD of the runs' mean GFS (in 1/80 units; `cells` a run) over the SD question-level noise alone gives (1 when there is no run effect). */
function runEffectRatio(
  totals: Float64Array[],
  questions: number,
  cells: number,
): { ratio: number; runSd: number; noiseSd: number } {
  const n = totals.length;
  const runMeans = totals.map((t) => t.reduce((s, x) => s + x, 0) / cells);
  const mean = runMeans.reduce((s, x) => s + x, 0) / n;
  const runVar = runMeans.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
  let noise = 0;
  for (let q = 0; q < questions; q++) {
    let m = 0;
    for (const t of totals) m += t[q] as number;
    m /= n;
    let v = 0;
    for (const t of totals) v += ((t[q] as number) - m) ** 2;
    noise += v / (n - 1);
  }
  const noiseVar = noise / cells / cells;
  return { ratio: Math.sqrt(runVar / noiseVar), runSd: Math.sqrt(runVar), noiseSd: Math.sqrt(noiseVar) };
}

/**
 * How many of the pairs of these runs the sign-flip test excludes 0 for at 95 %, with one set of
 * seeded sign vectors for all pairs: for a flipped set F, the lower tail counts sum_F (U_b - U_a) >= 0,
 * the upper tail <= 0 (src/stats/signflip.ts), so the flipped sums of each run, V[r][j], are computed
 * once and a pair costs one comparison per sign vector.
 */
function signFlipExclusions(totals: Float64Array[], questions: number, seed: string): number {
  const n = totals.length;
  const R = SIMULATED_SIGN_VECTORS;
  const state = resamplingState(seed);
  const v = Array.from({ length: n }, () => new Float64Array(R));
  for (let j = 0; j < R; j++)
    for (let c = 0; c < questions; c += 32) {
      const bits = xoshiro128ss(state, 0);
      for (let k = 0; k < 32 && c + k < questions; k++)
        if (bits & (1 << k))
          for (let r = 0; r < n; r++)
            (v[r] as Float64Array)[j] += (totals[r] as Float64Array)[c + k] as number;
    }
  const limit = Math.floor(((1 - GATE_CONFIDENCE) / 2) * (R + 1) + 1e-9);
  let excluded = 0;
  for (let a = 0; a < n; a++)
    for (let b = a + 1; b < n; b++) {
      const va = v[a] as Float64Array;
      const vb = v[b] as Float64Array;
      let lower = 1;
      let upper = 1;
      for (let j = 0; j < R; j++) {
        const x = (vb[j] as number) - (va[j] as number);
        if (x >= 0) lower++;
        if (x <= 0) upper++;
      }
      if (lower <= limit || upper <= limit) excluded++;
    }
  return excluded;
}

/** `sets` sets of as many runs with no run effect: their exclusion counts and run-effect ratios. */
function simulate(
  totals: Float64Array[],
  questions: number,
  cells: number,
  subject: string,
): { counts: number[]; ratios: number[] } {
  const rng = seedrandom(`rge-gate-false-alarms-v2:${subject}`);
  const counts: number[] = [];
  const ratios: number[] = [];
  for (let s = 0; s < sets; s++) {
    const sim = totals.map(() => {
      const t = new Float64Array(questions);
      for (let q = 0; q < questions; q++)
        t[q] = (totals[Math.floor(rng() * totals.length)] as Float64Array)[q] as number;
      return t;
    });
    counts.push(signFlipExclusions(sim, questions, `rge-gate-false-alarms-v2:${subject}:${s}`));
    ratios.push(runEffectRatio(sim, questions, cells).ratio);
  }
  return { counts, ratios };
}

/** The q-quantile of sorted values (nearest rank). */
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;

const summaries = await allSummaries();
const real = realPairs(summaries);
const seeds = `rge-fa-00..rge-fa-${tag(runs - 1)}`;
console.log(
  `${runs} runs of configs/ci.yaml (seeds ${seeds}), ${real.pairs} pairs, each compared by rge gate`,
);
console.log(
  `gate failures (a regression beyond --min-effect 0.02, overall or in a category): ${real.gateFailures} of ${real.pairs} (${pct(real.gateFailures, real.pairs)})`,
);
for (const subject of [...real.mdds.keys()].sort()) {
  const { totals, questions, cells } = totalsOf(summaries, subject);
  const x = real.excluded.get(subject) ?? 0;
  const n = real.pairs;
  const { counts, ratios } = simulate(totals, questions, cells, subject);
  counts.sort((p, q) => p - q);
  ratios.sort((p, q) => p - q);
  const [lo, hi] = [quantile(counts, 0.025), quantile(counts, 0.975)];
  const asMany = counts.filter((c) => c >= x).length;
  const effect = runEffectRatio(totals, questions, cells);
  const ratioAbove = ratios.filter((r) => r >= effect.ratio).length;
  const mdds = (real.mdds.get(subject) ?? []).slice().sort((p, q) => p - q);
  console.log(`${subject} (${questions} questions, ${cells} cells a run):`);
  console.log(
    `  the gate's sign-flip test excludes 0 at 95% in ${x} of ${n} pairs (${pct(x, n)}); with no run effect, ${sets} simulated sets of ${runs} runs ` +
      `give ${lo}-${hi} (${pct(lo, n)}-${pct(hi, n)}, central 95%; median ${quantile(counts, 0.5)}, mean ${pct(counts.reduce((s, c) => s + c, 0) / counts.length, n)}); ` +
      `as many or more in ${pct(asMany, sets)} of them: ${x >= lo && x <= hi ? 'within' : 'OUTSIDE'} the band`,
  );
  if (withBca) {
    const b = real.excludedBca.get(subject) ?? 0;
    console.log(
      `  the BCa cluster bootstrap it replaced (${OLD_BCA_RESAMPLES.toLocaleString('en-US')} resamples) excludes 0 in ${b} of ${n} (${pct(b, n)})`,
    );
  }
  console.log(
    `  run effect: SD of the runs' mean GFS ${(effect.runSd / UNITS).toFixed(5)} against ${(effect.noiseSd / UNITS).toFixed(5)} from question-level noise alone ` +
      `(ratio ${effect.ratio.toFixed(3)}); with no run effect the ratio is as large in ${pct(ratioAbove, sets)} of the simulated sets (central 95%: ${quantile(ratios, 0.025).toFixed(3)}-${quantile(ratios, 0.975).toFixed(3)})`,
  );
  const c = real.caught.get(subject) ?? 0;
  console.log(
    `  power: with the current run lowered by the pair's MDD (median ${quantile(mdds, 0.5).toFixed(4)}, range ${mdds[0]?.toFixed(4)}-${mdds[mdds.length - 1]?.toFixed(4)}), ` +
      `the interval lies wholly below 0 in ${c} of ${n} pairs (${pct(c, n)}; the MDD's promise: 80%)`,
  );
}
