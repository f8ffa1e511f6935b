/**
 * How rge's cost grows with the number of cases (issues 41 and 53): the fixture suite as users run it
 * (`npx vitest run evals`, its 1,200 cases; `--quick`: 120), then warm eval suites of 1,000, 10,000 and
 * 100,000 cases (`--quick`: 1,000 only), against plain Vitest running as many trivial tests and against
 * the floor, in the same bench run (`npm run bench -- scale --max-cases=10000` stops at 10,000). The
 * fixture config on the tests' bm25 fixture world, its two offline subjects, the first Q questions and
 * R runs each, into one results folder per size: the first BASE_RUNS runs of the size's questions are
 * computed by a cold `rge eval run` (not measured), the rest replayed from them (bench/scale-fill.ts:
 * runs multiplied, no model calls; a replayed answer equals its base run's), then the size is measured
 * warm (`rge eval run --quiet`, every cell reused; its rows are written, as a nightly run's would be).
 * The fixture suite is run once cold (not measured) and measured warm. The sides (child processes whose
 * wall time, CPU time and process tree's peak RSS are measured, bench/process-tree.ts, except the loop):
 * - rge: the warm suite through Vitest, report and artifact written;
 * - plain Vitest: the same number of trivial tests (`expect(i).toBe(i)`) in four files, as the suite's
 *   four slices, with the same `isolate: false`;
 * - the plain loop: the same work without Vitest (open the run, read every stored cell, build every
 *   case row), in the bench's own process;
 * - the floor (bench/scale-floor.ts, issue 53): what a warm run must at least do, without rge's code:
 *   read the same JSONL lines, compute the same GFS means and one bootstrap. Its means must be rge's
 *   (summary.json), or the bench fails.
 * Rows: time per case against plain Vitest's per-test time plus the loop's per-case time (issue 41's
 * goal: within 3x), peak RSS against plain Vitest's (goal: at most 1 GB at 100,000), the time per case
 * at 100,000 against 10,000 (goal: within 1.5x, linear); and rge's time, CPU time and peak RSS against
 * the floor's (issue 53's goals: the warm fixture suite at most 5 s on a quiet machine, 100,000 warm
 * cases at most 120 s).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { caseRow } from '../src/run/case/case.ts';
import { worldOverrides, worldSetArgs } from '../test/helpers/fixture-world.ts';
import { openTestRun } from '../test/helpers/open-run.ts';
import { type Bench, type BenchRow, latencyRow } from './harness.ts';
import { runMeasured, type TreeRun } from './process-tree.ts';
import { multiplyRuns } from './scale-fill.ts';
import type { FloorResult } from './scale-floor.ts';

/** Runs computed cold before the rest are replayed (the 1,000 size is all cold). */
const BASE_RUNS = 5;

/** cases = 2 subjects x questions x runs */
const SIZES = [
  { cases: 1_000, questions: 100, runs: 5 },
  { cases: 10_000, questions: 200, runs: 25 },
  { cases: 100_000, questions: 200, runs: 250 },
];

/** `rge eval run` on the fixture config narrowed to a size, into `results`. */
async function rgeRun(
  ctx: Parameters<Bench>[0],
  size: { cases: number; questions: number; runs: number },
  tag: string,
  results: string,
): Promise<TreeRun> {
  const args = [
    join(ctx.root, 'bin/rge.mjs'),
    'eval',
    'run',
    '--config',
    'configs/fixture.yaml',
    '--quiet',
    '--questions',
    String(size.questions),
    '--runs',
    String(size.runs),
    '--results-dir',
    results,
    '--reports-dir',
    reportsOf(ctx, size, tag),
    ...(await worldSetArgs('bm25')),
  ];
  const r = await runMeasured(process.execPath, args, ctx.root, { ...process.env, CI: '1' });
  if (r.code !== 0)
    throw new Error(`rge eval run (${size.cases} cases, ${tag}) exited ${r.code}: ${r.stderr.slice(-2000)}`);
  const done = /(\d+) cases, (\d+) reused/.exec(r.stdout + r.stderr);
  if (!done || Number(done[1]) !== size.cases)
    throw new Error(`rge eval run (${tag}) ran ${done?.[1] ?? 'no'} cases, not ${size.cases}`);
  if (tag === 'warm' && Number(done[2]) !== size.cases)
    throw new Error(`the warm run reused ${done[2]} of ${size.cases}`);
  return r;
}

/** One results folder per size (its cold base, its replayed runs, its rows). */
const resultsOf = (ctx: Parameters<Bench>[0], size: { questions: number; runs: number }) =>
  join(ctx.tmp, `results-${size.questions}x${size.runs}`);

/** One reports folder per size and side (cold, warm): a warm report holds the one run's summary.json. */
const reportsOf = (ctx: Parameters<Bench>[0], size: { questions: number; runs: number }, tag: string) =>
  join(ctx.tmp, `reports-${tag}-${size.questions}x${size.runs}`);

/** The floor's result (bench/scale-floor.ts) and the seconds of its work in its process. */
type Floor = { tree: TreeRun; result: FloorResult & { seconds: number } };

/** The floor on a results folder of `cases` answers, in a process of its own (node with tsx, as rge). */
async function floor(ctx: Parameters<Bench>[0], results: string, cases: number): Promise<Floor> {
  const tree = await runMeasured(
    process.execPath,
    ['--import', 'tsx', join(ctx.root, 'bench/scale-floor.ts'), results],
    ctx.root,
    process.env,
  );
  if (tree.code !== 0) throw new Error(`the floor exited ${tree.code}: ${tree.stderr.slice(-2000)}`);
  const result = JSON.parse(tree.stdout) as Floor['result'];
  if (result.cases !== cases) throw new Error(`the floor read ${result.cases} answers, not ${cases}`);
  return { tree, result };
}

/**
 * The floor's GFS means must be rge's (the `summary.json` of the one run under `reports`): the same
 * cases' scores added in another order, so equal but for the last bits. Returns the largest difference.
 */
function checkFloorMeans(floorResult: FloorResult, reports: string): number {
  const runs = readdirSync(reports, { withFileTypes: true }).filter((d) => d.isDirectory());
  if (runs.length !== 1) throw new Error(`expected one run's report in ${reports}, found ${runs.length}`);
  const summary = JSON.parse(
    readFileSync(join(reports, (runs[0] as { name: string }).name, 'summary.json'), 'utf8'),
  ) as { gfs: Record<string, { all: { primary: { estimate: number } } }> };
  const subjects = Object.keys(summary.gfs).sort();
  const floorSubjects = Object.keys(floorResult.means).sort();
  if (subjects.join() !== floorSubjects.join())
    throw new Error(`the floor's subjects ${floorSubjects.join(', ')} are not rge's ${subjects.join(', ')}`);
  let largest = 0;
  for (const subject of subjects) {
    const rge = summary.gfs[subject]?.all.primary.estimate as number;
    const theirs = floorResult.means[subject] as number;
    if (!(Math.abs(rge - theirs) <= 1e-9))
      throw new Error(`${subject}: the floor's mean GFS ${theirs} is not rge's ${rge} (${reports})`);
    largest = Math.max(largest, Math.abs(rge - theirs));
  }
  return largest;
}

/** Seconds and CPU seconds for a log line. */
const timed = (t: TreeRun) =>
  `${t.seconds.toFixed(1)} s (CPU ${t.cpuSeconds?.toFixed(1) ?? 'n/a'} s), peak RSS ${t.peakRssMb?.toFixed(0) ?? 'n/a'} MB`;

/**
 * Rows of rge's time, CPU time and peak RSS against the floor's: per case (ms) when `perCase` is given,
 * else for the whole run (s).
 */
function floorRows(
  label: string,
  rge: TreeRun,
  theFloor: TreeRun,
  opts: { perCase?: number; goalSeconds?: string } = {},
): BenchRow[] {
  const n = opts.perCase;
  const [unit, of, time] =
    n === undefined
      ? (['s', (s: number) => s, 'wall time'] as const)
      : (['ms', (s: number) => (1000 * s) / n, 'time per case'] as const);
  const name = 'the floor (the same JSONL, GFS means, one bootstrap; no rge code)';
  const rows = [
    latencyRow(
      `${label}: ${time}`,
      unit,
      of(rge.seconds),
      { name, value: of(theFloor.seconds) },
      opts.goalSeconds,
    ),
  ];
  if (rge.cpuSeconds !== null && theFloor.cpuSeconds !== null)
    rows.push(
      latencyRow(`${label}: CPU ${n === undefined ? 'time' : 'time per case'}`, unit, of(rge.cpuSeconds), {
        name,
        value: of(theFloor.cpuSeconds),
      }),
    );
  if (rge.peakRssMb !== null && theFloor.peakRssMb !== null)
    rows.push(
      latencyRow(`${label}: peak RSS of the process tree`, 'MB', rge.peakRssMb, {
        name,
        value: theFloor.peakRssMb,
      }),
    );
  return rows;
}

/** The fixture suite's cases: configs/fixture.yaml as it is (2 subjects x 200 questions x 3 runs). */
const FIXTURE_CASES = 1_200;
/** `--quick`: its first 20 questions */
const QUICK_FIXTURE = { questions: 20, cases: 120 };

/**
 * `npx vitest run evals` as users run it, on the fixture config and the tests' bm25 world, into the
 * bench's folders (RGE_SET, RGE_RESULTS_DIR, RGE_REPORTS_DIR): the run's cases and how many were reused.
 */
async function vitestEvals(
  ctx: Parameters<Bench>[0],
  dirs: { results: string; reports: string },
  cases: number,
  tag: string,
): Promise<TreeRun> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VITEST')) env[k] = v;
  Object.assign(env, {
    CI: '1',
    NO_COLOR: '1',
    RGE_CONFIG: 'configs/fixture.yaml',
    RGE_SET: JSON.stringify(await worldOverrides('bm25')),
    RGE_RESULTS_DIR: dirs.results,
    RGE_REPORTS_DIR: dirs.reports,
    RGE_QUESTIONS: ctx.quick ? String(QUICK_FIXTURE.questions) : '',
  });
  const r = await runMeasured(
    process.execPath,
    [join(ctx.root, 'node_modules/vitest/vitest.mjs'), 'run', 'evals'],
    ctx.root,
    env,
  );
  if (r.code !== 0)
    throw new Error(`npx vitest run evals (${tag}) exited ${r.code}: ${r.stderr.slice(-2000)}`);
  const done = /rge: (\d+) cases \((\d+) reused/.exec(r.stdout + r.stderr);
  if (!done || Number(done[1]) !== cases)
    throw new Error(`npx vitest run evals (${tag}) ran ${done?.[1] ?? 'no'} cases, not ${cases}`);
  if (tag === 'warm' && Number(done[2]) !== cases)
    throw new Error(`the warm fixture suite reused ${done[2]} of ${cases}`);
  return r;
}

/** The fixture suite warm (after a cold run, not measured), against the floor on its results folder. */
async function fixtureSuite(ctx: Parameters<Bench>[0]): Promise<BenchRow[]> {
  const cases = ctx.quick ? QUICK_FIXTURE.cases : FIXTURE_CASES;
  const results = join(ctx.tmp, 'fixture-results');
  await vitestEvals(ctx, { results, reports: join(ctx.tmp, 'fixture-reports-cold') }, cases, 'cold');
  const reports = join(ctx.tmp, 'fixture-reports-warm');
  const warm = await vitestEvals(ctx, { results, reports }, cases, 'warm');
  const theFloor = await floor(ctx, results, cases);
  const off = checkFloorMeans(theFloor.result, reports);
  ctx.log(
    `npx vitest run evals, ${cases} fixture cases warm: ${timed(warm)}; the floor ${timed(theFloor.tree)} ` +
      `(its work ${theFloor.result.seconds.toFixed(2)} s), its GFS means rge's (largest difference ${off.toExponential(1)})`,
  );
  return floorRows(
    `npx vitest run evals, ${cases.toLocaleString('en-US')} fixture cases warm`,
    warm,
    theFloor.tree,
    {
      ...(cases === FIXTURE_CASES ? { goalSeconds: 'goal: at most 5 s on a quiet machine' } : {}),
    },
  );
}

/** Fills a size's stores: its first BASE_RUNS runs cold, the rest replayed. Returns the seconds it took. */
async function fill(ctx: Parameters<Bench>[0], size: (typeof SIZES)[number]): Promise<number> {
  const t0 = performance.now();
  const runs = Math.min(BASE_RUNS, size.runs);
  const base = { cases: 2 * size.questions * runs, questions: size.questions, runs };
  await rgeRun(ctx, base, 'cold', resultsOf(ctx, size));
  if (size.runs > runs) multiplyRuns(resultsOf(ctx, size), { from: runs, to: size.runs });
  return (performance.now() - t0) / 1000;
}

/** terminal colour codes, which Vitest prints even to a pipe under CI */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Plain Vitest: `cases` trivial tests in four files, as the suite's four slices. */
async function plainVitest(ctx: Parameters<Bench>[0], cases: number): Promise<TreeRun> {
  const dir = join(ctx.tmp, `plain-${cases}`);
  await mkdir(dir, { recursive: true });
  await symlink(join(ctx.root, 'node_modules'), join(dir, 'node_modules'));
  await writeFile(
    join(dir, 'vitest.config.mjs'),
    "export default { test: { include: ['*.test.mjs'], isolate: false } };\n",
  );
  for (let f = 0; f < 4; f++) {
    const n = Math.floor(cases / 4) + (f < cases % 4 ? 1 : 0);
    await writeFile(
      join(dir, `slice-${f}.test.mjs`),
      `import { describe, expect, it } from 'vitest';\ndescribe('slice ${f}', () => {\n  for (let i = 0; i < ${n}; i++) it(\`case \${i}\`, () => { expect(i).toBe(i); });\n});\n`,
    );
  }
  const r = await runMeasured(
    process.execPath,
    [join(ctx.root, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir],
    dir,
    { ...process.env, CI: '1' },
  );
  if (r.code !== 0)
    throw new Error(`plain vitest (${cases} tests) exited ${r.code}: ${r.stderr.slice(-2000)}`);
  const passed = /Tests\s+(\d+) passed/.exec(r.stdout.replace(ANSI, ''));
  if (!passed || Number(passed[1]) !== cases)
    throw new Error(`plain vitest ran ${passed?.[1] ?? 'no'} tests, not ${cases}`);
  return r;
}

/** The same work without Vitest: open the run, read every stored cell, build its case row. */
async function plainLoop(ctx: Parameters<Bench>[0], size: (typeof SIZES)[number]): Promise<number> {
  const t0 = performance.now();
  const run = await openTestRun({
    config: 'configs/fixture.yaml',
    root: ctx.root,
    resultsDir: resultsOf(ctx, size),
    log: () => {},
    questions: size.questions,
    runs: size.runs,
    overrides: await worldOverrides('bm25'),
  });
  let n = 0;
  for (const cell of await run.work.cells()) {
    caseRow(run, cell);
    n++;
  }
  if (n !== size.cases) throw new Error(`the plain loop read ${n} cells, not ${size.cases}`);
  return (performance.now() - t0) / 1000;
}

/** `--max-cases=N`: the largest size to run (default all three; 100,000 needs the most memory and time). */
function maxCases(): number {
  const arg = process.argv.find((a) => a.startsWith('--max-cases='));
  const n = arg ? Number(arg.slice('--max-cases='.length)) : Number.POSITIVE_INFINITY;
  if (!(n >= (SIZES[0] as { cases: number }).cases))
    throw new Error(`--max-cases must be at least ${(SIZES[0] as { cases: number }).cases}, got ${arg}`);
  return n;
}

const bench: Bench = async (ctx) => {
  const rows: BenchRow[] = await fixtureSuite(ctx);
  const perCase = new Map<number, number>();
  const max = maxCases();
  for (const size of ctx.quick ? SIZES.slice(0, 1) : SIZES.filter((s) => s.cases <= max)) {
    const filled = await fill(ctx, size);
    ctx.log(
      `${size.cases} cases: filled the stores in ${filled.toFixed(1)} s (runs past ${BASE_RUNS} replayed)`,
    );
    const warm = await rgeRun(ctx, size, 'warm', resultsOf(ctx, size));
    const theFloor = await floor(ctx, resultsOf(ctx, size), size.cases);
    const off = checkFloorMeans(theFloor.result, reportsOf(ctx, size, 'warm'));
    const plain = await plainVitest(ctx, size.cases);
    const loop = await plainLoop(ctx, size);
    const ms = (s: number) => (1000 * s) / size.cases;
    ctx.log(
      `${size.cases} cases warm: rge ${timed(warm)}; plain vitest ${timed(plain)}; plain loop ${loop.toFixed(1)} s; ` +
        `the floor ${timed(theFloor.tree)} (its work ${theFloor.result.seconds.toFixed(1)} s), its GFS means rge's ` +
        `(largest difference ${off.toExponential(1)})`,
    );
    perCase.set(size.cases, ms(warm.seconds));
    const label = `warm suite, ${size.cases.toLocaleString('en-US')} cases`;
    rows.push(
      latencyRow(
        `${label}: time per case`,
        'ms',
        ms(warm.seconds),
        { name: 'plain vitest per test + plain loop per case', value: ms(plain.seconds) + ms(loop) },
        'goal: ratio >= 0.33 (within 3x)',
      ),
    );
    if (warm.peakRssMb !== null && plain.peakRssMb !== null)
      rows.push(
        latencyRow(
          `${label}: peak RSS of the process tree`,
          'MB',
          warm.peakRssMb,
          {
            name: `plain vitest, ${size.cases.toLocaleString('en-US')} trivial tests`,
            value: plain.peakRssMb,
          },
          size.cases === 100_000 ? 'goal: at most 1,024 MB' : undefined,
        ),
      );
    rows.push(
      ...floorRows(`${label} against the floor`, warm, theFloor.tree, {
        perCase: size.cases,
        ...(size.cases === 100_000 ? { goalSeconds: 'goal: at most 120 s in all (1.2 ms a case)' } : {}),
      }),
    );
  }
  const [ten, hundred] = [perCase.get(10_000), perCase.get(100_000)];
  if (ten !== undefined && hundred !== undefined)
    rows.push(
      latencyRow(
        'time per case at 100,000 cases',
        'ms',
        hundred,
        { name: 'at 10,000 cases', value: ten },
        'goal: ratio >= 0.67 (linear within 1.5x)',
      ),
    );
  return rows;
};

export default bench;
