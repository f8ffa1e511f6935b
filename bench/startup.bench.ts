/**
 * CLI start-up (issue 12, docs/adr/0012-cli-start-up.md): `rge --version`, `rge --help` and
 * `rge retrieve` on a small bm25 index, each run as a child process, against `node -e 0` measured in the
 * same run. Both ways bin/rge.mjs starts are measured: the bundle (dist/, built here into a scratch
 * folder of the repository so that packages resolve) and the sources through tsx (what runs when the
 * bundle is missing or stale). The figure is the child's CPU time (process.cpuUsage at exit, every
 * thread), the median of several runs, because wall time on a loaded machine is mostly waiting; wall
 * time is in the note. ratio = reference / value, so 0.5x means twice the CPU of `node -e 0`.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
// @ts-expect-error: a plain .mjs script without types
import { buildDist } from '../scripts/build-dist.mjs';
import { type Bench, type BenchRow, latencyRow } from './harness.ts';

/** Appended to each child: prints its CPU time (user + system, microseconds) as the last stderr line. */
const CPU_PROBE =
  "data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\n@cpu '+(u.user+u.system)+'\\n')})";

interface Timing {
  cpuMs: number;
  wallMs: number;
}

function runOnce(
  root: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<Timing & { code: number; err: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', CPU_PROBE, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const m = /@cpu (\d+)\s*$/.exec(err);
      if (!m) return reject(new Error(`no CPU time from ${args.join(' ')}: ${err.slice(-400)}`));
      resolve({ code: code ?? -1, err, wallMs, cpuMs: Number(m[1]) / 1000 });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

async function pdf(path: string, company: string, paragraphs: string[]): Promise<void> {
  const doc = new PDFDocument({ compress: false });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.fontSize(16).text(`${company} annual report FY24`);
  for (const p of paragraphs) doc.fontSize(11).text(p).moveDown();
  doc.end();
  await done;
  await writeFile(path, Buffer.concat(chunks));
}

const bench: Bench = async (ctx) => {
  const reps = ctx.quick ? 1 : 7;
  // the bundle must sit inside the repository, where node_modules resolves
  const distDir = join(ctx.root, '.tmp', `bench-dist-${process.pid}`);
  const noDist = join(ctx.tmp, 'no-dist');
  await mkdir(noDist, { recursive: true });
  try {
    ctx.log('building the bundle');
    await buildDist(distDir);

    const pdfs = join(ctx.tmp, 'pdfs');
    await mkdir(pdfs, { recursive: true });
    await pdf(join(pdfs, 'acme-industries.pdf'), 'Acme Industries', [
      'Revenue from operations rose 12% to 4,210 crore in FY24, led by the specialty chemicals segment.',
      'The board recommended a final dividend of 8 rupees per share.',
      'Net debt fell to 310 crore as capital expenditure on the Dahej plant was completed.',
    ]);
    await pdf(join(pdfs, 'zenith-bank.pdf'), 'Zenith Bank', [
      'Gross NPA improved to 1.9% from 2.4%, and the provision coverage ratio was 76%.',
      'Net interest margin was 4.1% for the year; deposits grew 18%.',
      'The capital adequacy ratio stood at 17.2% at the end of FY24.',
    ]);
    const index = join(ctx.tmp, 'index');
    ctx.log('building a bm25 index of 2 PDFs');
    const built = await runOnce(
      ctx.root,
      [
        'bin/rge.mjs',
        'corpus',
        'ingest',
        '--pdfs',
        pdfs,
        '--embedder',
        'bm25',
        '--index',
        index,
        '--cache-dir',
        join(ctx.tmp, 'cache'),
        '-q',
      ],
      { RGE_DIST_DIR: distDir },
    );
    if (built.code !== 0) throw new Error(`rge corpus ingest failed: ${built.err.slice(-800)}`);

    const cases: { name: string; args: string[]; env: Record<string, string> }[] = [
      { name: 'node -e 0', args: ['-e', '0'], env: {} },
    ];
    const commands: [string, string[]][] = [
      ['rge --version', ['--version']],
      ['rge --help', ['--help']],
      [
        'rge retrieve (bm25, 2 PDFs)',
        ['retrieve', 'What was the net interest margin?', '--index', index, '--k', '3'],
      ],
    ];
    for (const [name, args] of commands) {
      cases.push({
        name: `${name} [bundle]`,
        args: ['bin/rge.mjs', ...args],
        env: { RGE_DIST_DIR: distDir },
      });
      cases.push({ name: `${name} [tsx]`, args: ['bin/rge.mjs', ...args], env: { RGE_DIST_DIR: noDist } });
    }
    // interleaved repetitions, so that a burst of load from elsewhere hits every case alike
    const samples = new Map(cases.map((c) => [c.name, [] as Timing[]]));
    for (let r = 0; r < reps; r++) {
      for (const c of cases) {
        const t = await runOnce(ctx.root, c.args, c.env);
        if (t.code !== 0) throw new Error(`${c.name} exited ${t.code}: ${t.err.slice(-800)}`);
        samples.get(c.name)?.push(t);
      }
    }
    const cpu = (name: string) => median((samples.get(name) ?? []).map((t) => t.cpuMs));
    const wall = (name: string) => median((samples.get(name) ?? []).map((t) => t.wallMs));
    const reference = { name: 'node -e 0', value: cpu('node -e 0') };
    const rows: BenchRow[] = [];
    for (const c of cases.slice(1)) {
      rows.push(
        latencyRow(
          `start-up CPU: ${c.name}`,
          'ms CPU',
          cpu(c.name),
          reference,
          `own work ${(cpu(c.name) - reference.value).toFixed(0)} ms CPU; wall ${wall(c.name).toFixed(0)} ms vs ${wall('node -e 0').toFixed(0)} ms; median of ${reps}`,
        ),
      );
    }
    return rows;
  } finally {
    await rm(distDir, { recursive: true, force: true });
  }
};

export default bench;
