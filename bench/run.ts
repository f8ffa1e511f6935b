/**
 * `npm run bench [-- --quick] [-- NAME...]`: runs every bench/*.bench.ts (or those whose file name
 * contains one of NAME) and prints each measurement beside its reference, measured in the same run.
 *
 * Every bench runs outside Vitest, to its end: one that throws is reported (`bench X failed: ...`) and
 * the others still run; the exit code is then 1. The benches that need the tests' fixture worlds
 * (test/helpers/fixture-world.ts) build them once per run in a temporary folder (`RGE_TEST_DIR`), so a
 * bench run writes nothing into the working tree. `RGE_SHARED=0` benches as if ../shared were absent
 * (as on a user's clone); test/bench/quick.integration.test.ts runs `npm run bench -- --quick` that way.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bench, BenchContext, BenchRow } from './harness.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const names = args.filter((a) => !a.startsWith('--'));

const shared = resolve(root, '..', 'shared', 'corpus');
const sharedCorpus = process.env.RGE_SHARED !== '0' && existsSync(shared) ? shared : null;
const files = (await readdir(join(root, 'bench')))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => names.length === 0 || names.some((n) => f.includes(n)))
  .sort();
if (files.length === 0) {
  process.stderr.write(`no bench matches ${names.join(', ')}\n`);
  process.exit(2);
}
process.stderr.write(
  `rge bench${quick ? ' --quick' : ''}: ${files.length} benches; ../shared/corpus ${sharedCorpus ? `present (${sharedCorpus})` : 'absent'}\n`,
);

// the fixture worlds (test/helpers/fixture-world.ts), shared by the benches of this run
const worlds = process.env.RGE_TEST_DIR ? null : await mkdtemp(join(tmpdir(), 'rge-bench-worlds-'));
if (worlds) process.env.RGE_TEST_DIR = worlds;

const fmt = (x: number) =>
  Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3);
const all: BenchRow[] = [];
const failed: string[] = [];
try {
  for (const file of files) {
    const tmp = await mkdtemp(join(tmpdir(), 'rge-bench-'));
    const ctx: BenchContext = {
      root,
      sharedCorpus,
      tmp,
      quick,
      log: (line) => process.stderr.write(`  [${file}] ${line}\n`),
    };
    process.stderr.write(`bench ${file}\n`);
    const t0 = performance.now();
    try {
      const mod = (await import(join(root, 'bench', file))) as { default: Bench };
      const rows = await mod.default(ctx);
      all.push(...rows);
      for (const r of rows) printRow(r);
    } catch (err) {
      failed.push(file);
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      process.stdout.write(`bench ${file} failed: ${message}\n`);
    } finally {
      await rm(tmp, { recursive: true, force: true });
      ctx.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  }
} finally {
  if (worlds) await rm(worlds, { recursive: true, force: true });
}

function printRow(r: BenchRow): void {
  if (r.skipped) {
    process.stdout.write(`${r.name}: skipped (${r.skipped})\n`);
    return;
  }
  const ref = r.reference ? ` | ${r.reference.name}: ${fmt(r.reference.value)} ${r.unit}` : '';
  const ratio = r.ratio === null ? '' : ` | ratio ${fmt(r.ratio)}x`;
  process.stdout.write(`${r.name}: ${fmt(r.value)} ${r.unit}${ref}${ratio}${r.note ? ` (${r.note})` : ''}\n`);
}

process.stdout.write(
  `\n${all.length} measurements from ${files.length - failed.length} of ${files.length} benches; ratio > 1 means rge is faster than its reference.\n`,
);
if (failed.length > 0) {
  process.stdout.write(`${failed.length} benches failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
