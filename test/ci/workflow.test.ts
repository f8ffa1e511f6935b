/**
 * The CI workflow, as far as it can be checked here: `.github/workflows/evals.yml` parses, runs on pull
 * requests that touch the prompts and configs, restores cells keyed on their hashes with partial
 * restore keys, shards the suite over its slice files, and its report job joins results before merging
 * the reports. Every `npx rge ...` command it runs exists (`rge <command> --help` exits 0; `gate` is
 * skipped with a message if it does not exist yet), and every `npx vitest ...` flag it passes is one
 * Vitest knows. (That the shard and merge commands work offline is shard-merge.test.ts.)
 */

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildProgram } from '../../src/cli/main.ts';
import { captureIO, runRge } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  strategy?: { matrix?: { shard?: number[] } };
  steps: Step[];
}
interface Workflow {
  on: { pull_request?: { paths?: string[] } };
  jobs: Record<string, Job>;
}

const workflow = parse(readFileSync(join(ROOT, '.github/workflows/evals.yml'), 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
const commands = steps
  .flatMap((s) => (s.run ?? '').split('\n'))
  .map((l) => l.trim())
  .filter((l) => /^npx (rge|vitest)\b/.test(l));

/** `npx rge results merge --into ...` -> ['results', 'merge']: the words before the first option or argument. */
function rgeCommand(line: string): string[] {
  const words = line.split(/\s+/).slice(2);
  const program = buildProgram(captureIO(ROOT));
  const path: string[] = [];
  let commandsHere = program.commands;
  for (const w of words) {
    const sub = commandsHere.find((c) => c.name() === w);
    if (!sub) break;
    path.push(w);
    commandsHere = sub.commands;
  }
  return path.length > 0 ? path : [words[0] as string];
}

const rgeCommands = [
  ...new Set(commands.filter((l) => l.startsWith('npx rge ')).map((l) => rgeCommand(l).join(' '))),
];
const hasCommand = (name: string) => buildProgram(captureIO(ROOT)).commands.some((c) => c.name() === name);

describe('.github/workflows/evals.yml', () => {
  it('runs on pull requests that touch the prompts, the configs and the suite', () => {
    expect(workflow.on.pull_request?.paths).toEqual(
      expect.arrayContaining(['prompts/**', 'configs/**', 'evals/**', 'src/**']),
    );
  });

  it('restores the cells keyed on the configs and prompts, with restore keys for partial reuse', () => {
    const restores = steps.filter((s) => s.uses?.startsWith('actions/cache/restore@'));
    expect(restores).toHaveLength(2); // each shard, and the report job before the merge
    for (const s of restores) {
      expect(s.with?.key).toMatch(/hashFiles\('configs\/\*\*', 'prompts\/\*\*'\)/);
      expect(String(s.with?.['restore-keys']).trim().split('\n')).toHaveLength(2);
    }
    expect(steps.some((s) => s.uses?.startsWith('actions/cache/save@'))).toBe(true);
  });

  it("shards the suite over its slice files and uploads each shard's blob report and results folder", () => {
    const shards = workflow.jobs.shard?.strategy?.matrix?.shard ?? [];
    const evalFiles = readdirSync(join(ROOT, 'evals')).filter((f) => f.endsWith('.eval.ts'));
    expect(shards.length).toBeGreaterThan(1);
    expect(shards.length).toBeLessThanOrEqual(evalFiles.length); // Vitest shards by file
    const run = commands.find((c) => c.includes('--shard'));
    expect(run).toMatch(/^npx vitest run evals .*--shard=\$\{\{ matrix\.shard \}\}\/4 .*--reporter=blob/);
    expect(run).toContain(`/${shards.length} `);
    const uploads =
      workflow.jobs.shard?.steps.filter((s) => s.uses?.startsWith('actions/upload-artifact@')) ?? [];
    expect(uploads.map((s) => s.with?.path)).toEqual(['blob-reports/', 'data/results/']);
    // .runs/, .batches/ and the ledger are dot files: upload-artifact leaves them out unless told
    expect(uploads[1]?.with?.['include-hidden-files']).toBe(true);
  });

  it('joins the results before merging the reports, then gates with the agreed command line', () => {
    const report = workflow.jobs.report as Job;
    expect(report.needs).toBe('shard');
    const runs = report.steps.map((s) => s.run ?? '');
    const join = runs.findIndex((r) =>
      r.startsWith('npx rge results merge --into data/results shards/results-*'),
    );
    const merge = runs.findIndex((r) => r.startsWith('npx vitest --merge-reports blob-reports'));
    // the agreed command line, with the run id the step before finds
    const runId = ['$', '{{ steps.report.outputs.run_id }}'].join('');
    const gate = runs.findIndex((r) =>
      r.startsWith(`npx rge gate --baseline reports/baseline.json --current reports/${runId}/summary.json`),
    );
    expect(join).toBeGreaterThanOrEqual(0);
    expect(merge).toBeGreaterThan(join);
    expect(gate).toBeGreaterThan(merge);
    expect(runs.some((r) => r.includes('>> "$GITHUB_STEP_SUMMARY"'))).toBe(true);
    expect(report.steps.some((s) => s.uses?.startsWith('getsentry/vitest-evals@'))).toBe(true);
  });

  for (const command of rgeCommands) {
    const missing = command === 'gate' && !hasCommand('gate');
    it.skipIf(missing)(
      missing
        ? 'rge gate --help (skipped: `rge gate` does not exist yet; another change adds it)'
        : `rge ${command} --help exits 0`,
      async () => {
        const outcome = await runRge(ROOT, ...command.split(' '), '--help');
        expect(outcome.code, outcome.err).toBe(0);
        expect(outcome.out).toMatch(new RegExp(`^Usage: rge ${command}\\b`));
      },
    );
  }

  it('passes Vitest only flags it knows', () => {
    const help = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).stdout;
    const vitestLines = commands.filter((c) => c.startsWith('npx vitest'));
    expect(vitestLines.length).toBeGreaterThanOrEqual(2);
    for (const line of vitestLines)
      for (const flag of line.match(/--[A-Za-z-]+/g) ?? []) {
        // Vitest's help spells options in camelCase and accepts them in kebab-case too
        const camel = `--${flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}`;
        expect(help, `${flag} in: ${line}`).toContain(`${camel} `);
      }
  });
});
