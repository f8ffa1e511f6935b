/**
 * The gate's false alarms on real runs: N runs of configs/ci.yaml that differ only in the sampling seed
 * (`--set seed=rge-fa-<i>`), then `compareRuns` (the gate) on every pair, the lower-numbered run as the
 * baseline. No pair differs by anything but noise, so every interval that excludes 0 is a false alarm
 * of the interval, and every failed gate a false alarm of the gate (which also asks for a drop above
 * --min-effect, overall or in a category).
 *
 *   npx tsx scripts/gate-false-alarms.ts [--runs 20] [--dir DIR]   (default: rge-fa in the OS temporary folder)
 *
 * It also prints the SD of the runs' mean GFS against the SD that question-level noise alone gives
 * (the variance, across runs, of each question's mean, over the number of questions): the gate's
 * cluster bootstrap over questions is calibrated when the two agree. To tell the interval's width from
 * its shape, it prints how often a normal interval with the same cluster SE excludes 0, and the
 * percentile interval of the gate's own resamples, and the spread of the pairs' changes (their RMS,
 * the true change being 0) against the RMS of their SEs. Runs two eval runs at a time and
 * reuses the runs already in --dir.
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
  GATE_RESAMPLES,
  type GateSummary,
  pairedCells,
  readGateSummary,
} from '../src/gate/gate.ts';
import { clusterBootstrapCI } from '../src/stats/bootstrap.ts';
import { normalQuantile } from '../src/stats/distributions.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const runs = Number(flag('--runs', '20'));
const dir = resolve(flag('--dir', join(tmpdir(), 'rge-fa')));
if (!Number.isInteger(runs) || runs < 2) throw new Error(`--runs must be a whole number >= 2, got ${runs}`);

const tag = (i: number) => String(i).padStart(2, '0');

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
const summaries: GateSummary[] = await Promise.all(files.map((f) => readGateSummary(f)));

let pairs = 0;
let gateFailures = 0;
const excluded = new Map<string, number>();
/** pairs whose normal interval of the same width (estimate ± z · the cluster SE) excludes 0 */
const excludedNormal = new Map<string, number>();
/** each pair's change and its cluster SE, to set the spread of the changes against the SE */
const changes = new Map<string, { delta: number; se: number }[]>();
const rows = new Map<string, number>();
const halfWidths: number[] = [];
const Z95 = normalQuantile(1 - (1 - GATE_CONFIDENCE) / 2);
/** pairs whose percentile interval (the gate's resamples and seed, without BCa's corrections) excludes 0 */
const excludedPercentile = new Map<string, number>();
/** Adds one to `key`'s count. */
const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

for (let a = 0; a < runs; a++)
  for (let b = a + 1; b < runs; b++) {
    const result = compareRuns(summaries[a] as GateSummary, summaries[b] as GateSummary);
    const { paired } = pairedCells(summaries[a] as GateSummary, summaries[b] as GateSummary);
    pairs++;
    if (!result.passed) gateFailures++;
    for (const row of result.rows.filter((r) => r.slice === 'overall')) {
      bump(rows, row.subject);
      if (row.low > 0 || row.high < 0) bump(excluded, row.subject);
      halfWidths.push((row.high - row.low) / 2);
      const pct = clusterBootstrapCI(
        (paired.get(row.subject) ?? []).map((x) => ({ cluster: x.question, value: x.d })),
        { method: 'percentile', resamples: GATE_RESAMPLES, confidence: GATE_CONFIDENCE, seed: row.seed },
      );
      if (pct.low > 0 || pct.high < 0) bump(excludedPercentile, row.subject);
      if (row.standardError !== null) {
        if (Math.abs(row.delta) > Z95 * row.standardError) bump(excludedNormal, row.subject);
        const list = changes.get(row.subject) ?? [];
        list.push({ delta: row.delta, se: row.standardError });
        changes.set(row.subject, list);
      }
    }
  }
halfWidths.sort((x, y) => x - y);

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: readonly number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};

console.log(`${runs} runs of configs/ci.yaml (seeds rge-fa-00..rge-fa-${tag(runs - 1)}), ${pairs} pairs`);
console.log(
  `gate failures (a regression beyond --min-effect 0.02, overall or in a category): ${gateFailures} of ${pairs} (${((100 * gateFailures) / pairs).toFixed(1)}%)`,
);
console.log(
  `median half-width of the overall 95% interval: ${halfWidths[halfWidths.length >> 1]?.toFixed(4)}`,
);
for (const [subject, n] of rows) {
  const x = excluded.get(subject) ?? 0;
  // each run's mean GFS, and each question's mean over a run's runs
  const runMeans: number[] = [];
  const byQuestion = new Map<string, number[]>();
  for (const s of summaries) {
    const perQuestion = new Map<string, number[]>();
    for (const c of s.diagnostics.cells)
      if (c.subject === subject && c.gfs !== null)
        (perQuestion.get(c.question_id) ?? perQuestion.set(c.question_id, []).get(c.question_id))?.push(
          c.gfs,
        );
    const means = [...perQuestion].map(([q, v]) => {
      const m = mean(v);
      (byQuestion.get(q) ?? byQuestion.set(q, []).get(q))?.push(m);
      return m;
    });
    runMeans.push(mean(means));
  }
  const questionNoise = Math.sqrt(mean([...byQuestion.values()].map(variance)) / byQuestion.size);
  // how often so many pairs would exclude 0 were the runs' means spread by question-level noise alone
  // (normal run means, the median half-width as the threshold; 4,000 seeded sets of as many runs)
  const rng = seedrandom('rge-gate-false-alarms-v1');
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const half = halfWidths[halfWidths.length >> 1] as number;
  const xNormal = excludedNormal.get(subject) ?? 0;
  let asMany = 0;
  let asManyNormal = 0;
  for (let sim = 0; sim < 4000; sim++) {
    const means = Array.from({ length: runs }, () => normal() * questionNoise);
    let count = 0;
    for (let a = 0; a < runs; a++)
      for (let b = a + 1; b < runs; b++)
        if (Math.abs((means[a] as number) - (means[b] as number)) > half) count++;
    if (count >= x) asMany++;
    if (count >= xNormal) asManyNormal++;
  }
  // The interval's shape against its width: a normal interval with the same cluster SE, and the spread
  // of the changes themselves (root mean square, the true change being 0) against the SEs' RMS.
  const xs = changes.get(subject) ?? [];
  const rms = (v: readonly number[]) => Math.sqrt(mean(v.map((d) => d * d)));
  console.log(
    `${subject}: normal interval (change ± ${Z95.toFixed(2)} cluster SE) excludes 0 in ${xNormal} of ${n} pairs ` +
      `(${((100 * xNormal) / n).toFixed(1)}%; under question-level noise alone, as many or more in ${((100 * asManyNormal) / 4000).toFixed(1)}% of the simulated sets below); ` +
      `the changes' RMS ${rms(xs.map((c) => c.delta)).toFixed(5)} against their cluster SEs' RMS ${rms(xs.map((c) => c.se)).toFixed(5)}`,
  );
  const xPercentile = excludedPercentile.get(subject) ?? 0;
  console.log(
    `${subject}: percentile interval (the gate's resamples, no bias or acceleration correction) excludes 0 in ${xPercentile} of ${n} pairs (${((100 * xPercentile) / n).toFixed(1)}%)`,
  );
  console.log(
    `${subject}: overall 95% interval excludes 0 in ${x} of ${n} pairs (${((100 * x) / n).toFixed(1)}%, nominal 5%); ` +
      `SD of the runs' mean GFS ${Math.sqrt(variance(runMeans)).toFixed(5)} against ${questionNoise.toFixed(5)} from question-level noise alone (${byQuestion.size} questions); ` +
      `under that noise alone, ${x} or more of ${n} pairs in ${((100 * asMany) / 4000).toFixed(1)}% of 4,000 simulated sets of ${runs} runs (seed rge-gate-false-alarms-v1)`,
  );
}
