#!/usr/bin/env node
/**
 * Shows that a refactor changed no behaviour. In a clean clone of each of two revisions it runs the
 * fixture suite (`npx vitest run evals`, the README's main job) and the gate against the committed
 * reports/baseline.json (`rge gate --json`), then compares:
 * 1. the two fresh runs: reports/<run_id>/summary.json less its `latency` field (the subjects' measured
 *    wall time, different on every run), and the gate's verdicts (less the two absolute file paths the
 *    gate records);
 * 2. a second run over the BEFORE run's results store (data/results: every answer and verdict cell,
 *    latencies included, is reused, so nothing is measured again), once by the BEFORE code and once by
 *    the AFTER code on a copy of the same store: summary.json byte for byte. (A reusing run differs from
 *    a fresh one by design, e.g. its budget lines: no call was made; so both sides reuse.)
 * summary.json carries the run id, the config, questions and index checksums, and every estimate and
 * interval of the report. Beside it, every other file of the report folder is compared the same way
 * (summary.md and gfs.svg byte for byte over the same results, summary.md less its latency table between
 * fresh runs; vitest-evals.json less what Vitest measures or stamps: durations, start and end times, the
 * answers' wall times and times of day, the clone's own path), and a sha256 of each file is printed.
 * 3. the report of five made-up runs that reach what the fixture run does not (scripts/report-scenarios.ts,
 *    this checkout's, run over each clone's code): summary.json, summary.md and gfs.svg byte for byte.
 *
 * Usage: node scripts/same-fixture-run.mjs [--link-node-modules] BEFORE_REV [AFTER_REV]
 * AFTER_REV defaults to HEAD. --link-node-modules links each clone's node_modules to this checkout's
 * instead of `npm ci` (offline, and quicker on a loaded machine); it refuses when the two revisions'
 * package-lock.json differ. The clones are made under the system's temporary folder and removed at the
 * end; exit 1 on a difference.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const linkNodeModules = argv.includes('--link-node-modules');
const [before, after = 'HEAD'] = argv.filter((a) => a !== '--link-node-modules');
if (!before) {
  console.error('usage: node scripts/same-fixture-run.mjs [--link-node-modules] BEFORE_REV [AFTER_REV]');
  process.exit(2);
}

const run = (cwd, cmd, args) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 28,
  });

/** A clean clone of `rev` with its packages installed; returns its folder and commit. */
function checkout(rev) {
  const dir = mkdtempSync(join(tmpdir(), 'rge-same-run-'));
  const sha = run(root, 'git', ['rev-parse', rev]).trim();
  run(root, 'git', ['clone', '--quiet', '--no-checkout', root, dir]);
  run(dir, 'git', ['checkout', '--quiet', sha]);
  if (linkNodeModules) {
    const lock = (cwd) => readFileSync(join(cwd, 'package-lock.json'));
    if (!lock(dir).equals(lock(root)))
      throw new Error(
        `${rev}: its package-lock.json is not this checkout's; run without --link-node-modules`,
      );
    console.error(`${rev} (${sha.slice(0, 12)}): node_modules linked to ${join(root, 'node_modules')}`);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  } else {
    console.error(`${rev} (${sha.slice(0, 12)}): npm ci`);
    run(dir, 'npm', ['ci', '--no-audit', '--no-fund']);
  }
  return { dir, sha };
}

/** Every file of a report folder, by name. */
function reportFiles(folder) {
  return new Map(
    readdirSync(folder, { withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => [d.name, readFileSync(join(folder, d.name))]),
  );
}

/** Runs the suite and the gate in `dir`; returns the summary's bytes and the gate's verdicts. */
function fixtureRun(dir, label) {
  console.error(`${label}: npx vitest run evals`);
  rmSync(join(dir, 'reports'), { recursive: true, force: true });
  run(dir, 'git', ['checkout', '--quiet', '--', 'reports']);
  run(dir, 'npx', ['vitest', 'run', 'evals']);
  const runs = readdirSync(join(dir, 'reports'), { withFileTypes: true }).filter((d) => d.isDirectory());
  if (runs.length !== 1)
    throw new Error(`${label}: expected one report folder, found ${runs.map((d) => d.name)}`);
  const summaryFile = join(dir, 'reports', runs[0].name, 'summary.json');
  const gateFile = join(dir, 'gate.json');
  run(dir, 'npx', [
    'rge',
    'gate',
    '--baseline',
    'reports/baseline.json',
    '--current',
    summaryFile,
    '--json',
    gateFile,
  ]);
  const gate = JSON.parse(readFileSync(gateFile, 'utf8'));
  delete gate.baselineFile;
  delete gate.currentFile;
  return {
    dir,
    runId: runs[0].name,
    summary: readFileSync(summaryFile),
    files: reportFiles(join(dir, 'reports', runs[0].name)),
    gate: JSON.stringify(gate, null, 2),
  };
}

const withoutLatency = (buf) => {
  const summary = JSON.parse(buf.toString('utf8'));
  delete summary.latency;
  return JSON.stringify(summary);
};

/** What Vitest measures or stamps in vitest-evals.json: left out of every comparison. */
const STAMPS = new Set(['duration', 'startTime', 'endTime', 'durationMs', 'totalMs', 'answered_at']);

/** vitest-evals.json less its stamps, with the clone's path as <root>. */
const withoutStamps = (buf, dir) =>
  JSON.stringify(JSON.parse(buf.toString('utf8').replaceAll(dir, '<root>')), (key, value) =>
    STAMPS.has(key) ? undefined : value,
  );

/** summary.md less its latency table (the subjects' measured wall time; summary.json's `latency`). */
const withoutLatencyTable = (buf) =>
  buf.toString('utf8').replace(/## Latency and cost\n[\s\S]*?\n## /, '## ');

/** A report file as it is compared: `fresh` runs measured their own latencies, reusing runs did not. */
function comparable(name, buf, dir, fresh) {
  if (name === 'vitest-evals.json') return Buffer.from(withoutStamps(buf, dir));
  if (fresh && name === 'summary.json') return Buffer.from(withoutLatency(buf));
  if (fresh && name === 'summary.md') return Buffer.from(withoutLatencyTable(buf));
  return buf;
}

const sha = (buf) => createHash('sha256').update(buf).digest('hex').slice(0, 16);

/** One check per file of either report folder: the same names, the same comparable bytes. */
function fileChecks(label, x, y, fresh) {
  const names = [...new Set([...x.files.keys(), ...y.files.keys()])].sort();
  return names.map((name) => {
    const [bx, by] = [x, y].map((r) => r.files.get(name));
    const [cx, cy] = [bx && comparable(name, bx, x.dir, fresh), by && comparable(name, by, y.dir, fresh)];
    const same = cx !== undefined && cy !== undefined && cx.equals(cy);
    const how = name === 'gfs.svg' || (!fresh && name !== 'vitest-evals.json') ? 'byte for byte' : 'compared';
    const hashes = `sha256 ${bx ? sha(bx) : 'absent'} / ${by ? sha(by) : 'absent'}, compared ${cx ? sha(cx) : '-'} / ${cy ? sha(cy) : '-'}`;
    return [`${label}: ${name} ${how} (${hashes})`, same];
  });
}

const a = checkout(before);
const b = checkout(after);
try {
  const ra = fixtureRun(a.dir, `before ${before}`);
  const rb = fixtureRun(b.dir, `after ${after}`);
  // 2: both codes over the before run's stores (the after code on a copy taken before either reads it)
  rmSync(join(b.dir, 'data', 'results'), { recursive: true, force: true });
  cpSync(join(a.dir, 'data', 'results'), join(b.dir, 'data', 'results'), { recursive: true });
  const reusedBefore = fixtureRun(a.dir, `before ${before} over its own results`);
  const reused = fixtureRun(b.dir, `after ${after} over the before run's results`);
  // 3: the report of made-up runs, from each clone's code
  const scenarios = (dir) =>
    run(dir, 'npx', ['tsx', join(root, 'scripts', 'report-scenarios.ts'), dir])
      .trim()
      .split('\n');
  const [sa, sb] = [scenarios(a.dir), scenarios(b.dir)];
  const indexChecksum = (buf) => JSON.parse(buf.toString('utf8')).run.indexChecksum;
  const checks = [
    ['fresh runs: summary.json less latency', withoutLatency(ra.summary) === withoutLatency(rb.summary)],
    ['fresh runs: gate verdicts against reports/baseline.json', ra.gate === rb.gate],
    [
      `both codes over the before results: summary.json (${reusedBefore.summary.length} bytes) byte for byte`,
      reusedBefore.summary.equals(reused.summary),
    ],
    ['both codes over the before results: gate verdicts', reusedBefore.gate === reused.gate],
    ...fileChecks('fresh runs', ra, rb, true),
    ...fileChecks('both codes over the before results', reusedBefore, reused, false),
    ...sa.map((line, i) => [`report of a made-up run: ${line}`, line === sb[i] && sa.length === sb.length]),
  ];
  console.log(`before ${a.sha.slice(0, 12)}  run ${ra.runId}  index ${indexChecksum(ra.summary)}`);
  console.log(`after  ${b.sha.slice(0, 12)}  run ${rb.runId}  index ${indexChecksum(rb.summary)}`);
  for (const [what, same] of checks) console.log(`${same ? 'identical' : 'DIFFERENT'}: ${what}`);
  process.exitCode = checks.every(([, same]) => same) ? 0 : 1;
} finally {
  rmSync(a.dir, { recursive: true, force: true });
  rmSync(b.dir, { recursive: true, force: true });
}
