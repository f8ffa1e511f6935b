/**
 * `npm run bench [-- --quick] [-- NAME...]`: runs every bench/*.bench.ts (or those whose file name
 * contains one of NAME) and prints each measurement beside its reference, measured in the same run.
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
const files = (await readdir(join(root, 'bench')))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => names.length === 0 || names.some((n) => f.includes(n)))
  .sort();

const fmt = (x: number) =>
  Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3);
const all: BenchRow[] = [];
for (const file of files) {
  const tmp = await mkdtemp(join(tmpdir(), 'rge-bench-'));
  const ctx: BenchContext = {
    root,
    sharedCorpus: existsSync(shared) ? shared : null,
    tmp,
    quick,
    log: (line) => process.stderr.write(`  [${file}] ${line}\n`),
  };
  process.stderr.write(`bench ${file}\n`);
  try {
    const mod = (await import(join(root, 'bench', file))) as { default: Bench };
    const rows = await mod.default(ctx);
    all.push(...rows);
    for (const r of rows) printRow(r);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
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

process.stdout.write(`\n${all.length} measurements; ratio > 1 means rge is faster than its reference.\n`);
