/**
 * How rge's cost grows with the number of cases (issue 41): warm eval suites of 1,000, 10,000 and
 * 100,000 cases (`--quick`: 1,000 only), against plain Vitest running as many trivial tests, in the same
 * bench run (`npm run bench -- scale --max-cases=10000` stops at 10,000). The fixture config on the tests' bm25 fixture world, its two offline subjects, the first Q
 * questions and R runs each, into one results folder per size: the first BASE_RUNS runs of the size's
 * questions are computed by a cold `rge eval run` (not measured), the rest replayed from them
 * (bench/scale-fill.ts: runs multiplied, no model calls; a replayed answer equals its base run's), then
 * the size is measured warm (`rge eval run --quiet`, every cell reused; its rows are written, as a
 * nightly run's would be). Three sides (the first two child processes whose process tree's peak RSS is
 * sampled, bench/process-tree.ts):
 * - rge: the warm suite through Vitest, report and artifact written;
 * - plain Vitest: the same number of trivial tests (`expect(i).toBe(i)`) in four files, as the suite's
 *   four slices, with the same `isolate: false`;
 * - the plain loop: the same work without Vitest (open the run, read every stored cell, build every
 *   case row), in the bench's own process.
 * Rows: time per case against plain Vitest's per-test time plus the loop's per-case time (issue 41's
 * goal: within 3x), peak RSS against plain Vitest's (goal: at most 1 GB at 100,000), and the time per case
 * at 100,000 against 10,000 (goal: within 1.5x, linear).
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { caseRow } from '../src/run/case.ts';
import { worldOverrides, worldSetArgs } from '../test/helpers/fixture-world.ts';
import { openTestRun } from '../test/helpers/open-run.ts';
import { type Bench, type BenchRow, latencyRow } from './harness.ts';
import { runMeasured, type TreeRun } from './process-tree.ts';
import { multiplyRuns } from './scale-fill.ts';

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
    join(ctx.tmp, `reports-${tag}`),
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
  const rows: BenchRow[] = [];
  const perCase = new Map<number, number>();
  const max = maxCases();
  for (const size of ctx.quick ? SIZES.slice(0, 1) : SIZES.filter((s) => s.cases <= max)) {
    const filled = await fill(ctx, size);
    ctx.log(
      `${size.cases} cases: filled the stores in ${filled.toFixed(1)} s (runs past ${BASE_RUNS} replayed)`,
    );
    const warm = await rgeRun(ctx, size, 'warm', resultsOf(ctx, size));
    const plain = await plainVitest(ctx, size.cases);
    const loop = await plainLoop(ctx, size);
    const ms = (s: number) => (1000 * s) / size.cases;
    ctx.log(
      `${size.cases} cases warm: rge ${warm.seconds.toFixed(1)} s, peak RSS ${warm.peakRssMb?.toFixed(0)} MB; ` +
        `plain vitest ${plain.seconds.toFixed(1)} s, ${plain.peakRssMb?.toFixed(0)} MB; plain loop ${loop.toFixed(1)} s`,
    );
    perCase.set(size.cases, ms(warm.seconds));
    rows.push(
      latencyRow(
        `warm suite, ${size.cases.toLocaleString('en-US')} cases: time per case`,
        'ms',
        ms(warm.seconds),
        { name: 'plain vitest per test + plain loop per case', value: ms(plain.seconds) + ms(loop) },
        'goal: ratio >= 0.33 (within 3x)',
      ),
    );
    if (warm.peakRssMb !== null && plain.peakRssMb !== null)
      rows.push(
        latencyRow(
          `warm suite, ${size.cases.toLocaleString('en-US')} cases: peak RSS of the process tree`,
          'MB',
          warm.peakRssMb,
          {
            name: `plain vitest, ${size.cases.toLocaleString('en-US')} trivial tests`,
            value: plain.peakRssMb,
          },
          size.cases === 100_000 ? 'goal: at most 1,024 MB' : undefined,
        ),
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
