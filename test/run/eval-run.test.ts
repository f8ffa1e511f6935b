/**
 * The harness end to end on the fixture world: the stages store every answer and verdict, a second run
 * reuses every cell, a narrower run (other run id) reuses the cells it shares, the dry run counts cells
 * and calls without calling anything.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { type CaseRow, caseRow } from '../../src/run/case/case.ts';
import { estimateRun } from '../../src/run/estimate/estimate.ts';
import type { RunSession } from '../../src/run/session/open.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { worldOverrides, worldSetArgs } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const narrowing = { questions: 40, runs: 2 };
const quiet = () => {};

async function rowsOf(run: RunSession): Promise<CaseRow[]> {
  return (await run.work.cells()).map((cell) => caseRow(run, cell));
}

describe('the eval harness on the fixture world', () => {
  let resultsDir: string;
  let first: CaseRow[];
  let firstCounts: Awaited<ReturnType<typeof runStages>>['state']['counts'];

  beforeAll(async () => {
    resultsDir = await mkdtemp(join(tmpdir(), 'rge-results-'));
    const run = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir,
      overrides: await worldOverrides(),
      log: quiet,
      ...narrowing,
    });
    firstCounts = (await runStages(run, { log: quiet })).state.counts;
    first = await rowsOf(run);
  }, 600_000);

  it('computes and stores every answer and verdict of a first run', () => {
    expect(first).toHaveLength(2 * 40 * 2);
    expect(firstCounts.answers).toEqual({ computed: 160, reused: 0, failed: 0 });
    expect(firstCounts.verdicts).toEqual({ computed: 320, reused: 0, failed: 0 });
    for (const row of first) {
      expect(row.verdicts).toHaveLength(2);
      expect(new Set(row.verdicts.map((v) => v.family)).has(row.family)).toBe(false); // cross-family panel
      expect(row.retrieved_ids.length).toBeGreaterThan(0);
    }
  });

  it('reuses every cell on a second run, recomputing nothing, and the stores hold each cell once', async () => {
    const again = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir,
      overrides: await worldOverrides(),
      log: quiet,
      ...narrowing,
    });
    const estimate = await estimateRun(again);
    expect(estimate.cells).toEqual({ total: 160, stored: 160, verdictsStored: 320, keptReplies: 0 });
    expect(estimate.totals.calls).toBe(0);
    const { state } = await runStages(again, { log: quiet });
    expect(state.counts.answers).toEqual({ computed: 0, reused: 160, failed: 0 });
    expect(state.counts.verdicts).toEqual({ computed: 0, reused: 320, failed: 0 });
    expect(await rowsOf(again)).toEqual(first);
    for (const store of again.cells.all()) {
      const lines = readFileSync(store.file, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(store.size);
      expect(store.duplicates).toBe(0);
    }
  });

  it('reuses cells by what they are, not by run id: a narrower run computes nothing it shares', async () => {
    const subset = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir,
      overrides: await worldOverrides(),
      log: quiet,
      subjects: ['eager'],
      questions: 20,
      runs: 1,
    });
    const full = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir,
      overrides: await worldOverrides(),
      log: quiet,
      ...narrowing,
    });
    expect(subset.plan.info.runId).not.toBe(full.plan.info.runId);
    const { state } = await runStages(subset, { log: quiet });
    expect(state.counts.answers.computed).toBe(0);
    expect(state.counts.verdicts.computed).toBe(0);
    expect(state.counts.answers.reused).toBe(20);
  });

  it('varies the extractive baseline across runs at temperature 0.7, reproducibly', () => {
    const extractive = first.filter((r) => r.subject_id === 'extractive');
    const byQuestion = new Map<string, Set<string>>();
    for (const r of extractive)
      byQuestion.set(r.question_id, (byQuestion.get(r.question_id) ?? new Set()).add(r.answer));
    expect([...byQuestion.values()].some((answers) => answers.size > 1)).toBe(true);
  });

  it('prints a dry run without calling anything', async () => {
    const out: string[] = [];
    const io: CliIO = { out: (t) => out.push(t), err: () => {}, cwd: root, exitCode: 0 };
    const args = [
      'node',
      'rge',
      'eval',
      'run',
      '--dry-run',
      '--results-dir',
      resultsDir,
      ...(await worldSetArgs()),
    ];
    expect(await main([...args, '--questions', '40', '--runs', '2'], io)).toBe(0);
    expect(out.join('')).toMatch(/160 cells, 160 answers and 320 verdicts already stored/);
    const full: string[] = [];
    expect(await main([...args, '--json'], { ...io, out: (t) => full.push(t) })).toBe(0);
    const estimate = JSON.parse(full.join(''));
    expect(estimate.cells).toEqual({ total: 1200, stored: 160, verdictsStored: 320, keptReplies: 0 });
    // Offline providers cost nothing; every call still to make is counted.
    expect(estimate.totals.calls).toBe(1200 - 160 + 2400 - 320);
    expect(estimate.totals.expectedUsd).toBe(0);
  });

  it('a stratified sample of N questions: every category in proportion, seeded, recorded, its own run id', async () => {
    const logged: string[] = [];
    const opts = {
      config: 'configs/fixture.yaml',
      root,
      resultsDir,
      overrides: await worldOverrides(),
      dryRun: true,
      runs: 1,
    };
    const sampled = await openTestRun({ ...opts, sample: 20, log: (l: string) => logged.push(l) });
    const count = (c: string) => sampled.plan.questions.filter((q) => q.category === c).length;
    // 20 of (45, 45, 65, 45): 4.5, 4.5, 6.5, 4.5 -> floors 4, 4, 6, 4 and two remainders of 0.5, to the first
    expect([
      count('grounded-direct'),
      count('grounded-multihop'),
      count('adversarial'),
      count('out-of-domain'),
    ]).toEqual([5, 5, 6, 4]);
    expect(sampled.plan.questions.map((q) => q.id)).not.toEqual(
      sampled.plan.questions.map((q) => q.id).sort(),
    );
    const again = await openTestRun({ ...opts, sample: 20, log: quiet });
    expect(again.plan.questions.map((q) => q.id)).toEqual(sampled.plan.questions.map((q) => q.id));
    expect(again.plan.info.runId).toBe(sampled.plan.info.runId);
    const first20 = await openTestRun({ ...opts, questions: 20, log: quiet });
    expect(first20.plan.info.runId).not.toBe(sampled.plan.info.runId);
    expect(logged.join('\n')).toMatch(
      /questions: a stratified sample \(seed [^)]+:questions:sample\) of 20 of 200 questions: grounded-direct 5 of 45, grounded-multihop 5 of 45, adversarial 6 of 65, out-of-domain 4 of 45/,
    );
    await expect(openTestRun({ ...opts, sample: 20, questions: 5, log: quiet })).rejects.toThrow(
      /--sample draws its own questions/,
    );
  });
});
