#!/usr/bin/env node
/**
 * Shows that a refactor changed no behaviour: runs the fixture suite (`npx vitest run evals`, the
 * README's main job) in a clean clone of each of two revisions and compares what it produced:
 * - reports/<run_id>/summary.json byte for byte (it carries the run id, the config, questions and
 *   index checksums, and every estimate and interval);
 * - the gate's verdicts against the committed reports/baseline.json (`rge gate --json`, less the two
 *   absolute file paths it records).
 *
 * Usage: node scripts/same-fixture-run.mjs BEFORE_REV [AFTER_REV]   (AFTER_REV defaults to HEAD)
 * Each clone is made under the system's temporary folder and removed at the end; exit 1 on a difference.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [before, after = 'HEAD'] = process.argv.slice(2);
if (!before) {
  console.error('usage: node scripts/same-fixture-run.mjs BEFORE_REV [AFTER_REV]');
  process.exit(2);
}

const run = (cwd, cmd, args) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 28,
  });

/** Clones `rev`, installs, runs the suite and the gate; returns the summary's bytes and the verdicts. */
function fixtureRun(rev) {
  const dir = mkdtempSync(join(tmpdir(), 'rge-same-run-'));
  try {
    const sha = run(root, 'git', ['rev-parse', rev]).trim();
    run(root, 'git', ['clone', '--quiet', '--no-checkout', root, dir]);
    run(dir, 'git', ['checkout', '--quiet', sha]);
    console.error(`${rev} (${sha.slice(0, 12)}): npm ci, npx vitest run evals ...`);
    run(dir, 'npm', ['ci', '--no-audit', '--no-fund']);
    run(dir, 'npx', ['vitest', 'run', 'evals']);
    const runs = readdirSync(join(dir, 'reports'), { withFileTypes: true }).filter((d) => d.isDirectory());
    if (runs.length !== 1)
      throw new Error(`${rev}: expected one report folder, found ${runs.map((d) => d.name)}`);
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
      sha,
      runId: runs[0].name,
      summary: readFileSync(summaryFile),
      gate: JSON.stringify(gate, null, 2),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const a = fixtureRun(before);
const b = fixtureRun(after);
const sameSummary = a.summary.equals(b.summary);
const sameGate = a.gate === b.gate;
const indexChecksum = (buf) => JSON.parse(buf.toString('utf8')).run.indexChecksum;
console.log(`before ${a.sha.slice(0, 12)}  run ${a.runId}  index ${indexChecksum(a.summary)}`);
console.log(`after  ${b.sha.slice(0, 12)}  run ${b.runId}  index ${indexChecksum(b.summary)}`);
console.log(
  `summary.json (${a.summary.length} and ${b.summary.length} bytes): ${sameSummary ? 'byte-identical' : 'DIFFERENT'}`,
);
console.log(`gate verdicts against reports/baseline.json: ${sameGate ? 'identical' : 'DIFFERENT'}`);
process.exit(sameSummary && sameGate ? 0 : 1);
