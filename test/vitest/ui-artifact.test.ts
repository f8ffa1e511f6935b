/**
 * vitest-evals' JSON artifact of an rge run (src/vitest/evals-artifact.ts), written in-process from
 * reported cases as Vitest hands them to the reporter, then read as vitest-evals' report UI reads it
 * (`collectReportWorkspace` of @vitest-evals/core, what `vitest-evals serve` sends the page).
 *
 * Issue 53: an ungated run (every threshold null, configs/fixture.yaml) showed every case DISABLED and
 * "0 passed, 0 failed, 1200 skipped", as if nothing ran. Its cases are now passed with their recorded
 * scores, as vitest-evals records a judge of threshold null, and the GFS row says that nothing gates them.
 *
 * (Named without "evals" in its path: `npx vitest run evals` is a path filter, and a unit test whose path
 * matched it would join the eval run.)
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectReportWorkspace } from '@vitest-evals/core';
import { describe, expect, it } from 'vitest';
import type { TestModule, Vitest } from 'vitest/node';
import { writeArtifact } from '../../src/vitest/evals-artifact.ts';

interface FakeCase {
  name: string;
  state: 'passed' | 'failed' | 'skipped';
  meta: Record<string, unknown>;
}

/** An ungated case's vitest-evals metadata: the panel's scores, the GFS row saying it is recorded. */
function recorded(gfs: number): Record<string, unknown> {
  return {
    eval: {
      scores: [
        { name: 'numeric correctness', score: 1, metadata: { rationale: 'matches', judge: 'numeric' } },
        {
          name: 'GFS',
          score: gfs,
          metadata: {
            rationale: `GFS ${gfs.toFixed(3)}, recorded, not gated (every threshold is null); 2 of 2 panel judges scored`,
            gating: 'not gated: every threshold is null, so every case passes; the scores are a record',
            gated: false,
          },
        },
      ],
      avgScore: gfs,
      thresholdFailed: false,
    },
    harness: {
      name: 'extractive (offline/extractive)',
      run: {
        output: 'Rs 4,512 crore [c1]',
        session: {
          events: [
            { type: 'message', role: 'user', content: 'What was revenue in FY24?' },
            { type: 'message', role: 'assistant', content: 'Rs 4,512 crore [c1]' },
          ],
        },
        usage: { provider: 'offline', model: 'extractive', inputTokens: 4000, outputTokens: 12 },
        errors: [],
      },
    },
    // rge's own metadata stays out of the artifact
    rge: { subject_id: 'extractive' },
  };
}

/** A test file as Vitest's reported-tasks API gives it to a reporter: one suite (the subject), its cases. */
function fakeModule(cases: FakeCase[]): TestModule {
  const module = {
    type: 'module',
    moduleId: '/repo/evals/grounding-1.eval.ts',
    meta: () => ({ rgeModule: { run: { runId: 'fixture-x', reportsDir: '/tmp' } } }),
    state: () => (cases.some((c) => c.state === 'failed') ? 'failed' : 'passed'),
    errors: () => [],
    children: {} as Record<string, unknown>,
  };
  const suite = { type: 'suite', name: 'extractive', parent: module, state: () => module.state() };
  const tests = cases.map((c, i) => ({
    type: 'test',
    name: c.name,
    parent: suite,
    options: { mode: c.state === 'skipped' ? 'skip' : 'run' },
    location: { line: 10 + i, column: 3 },
    tags: [],
    meta: () => c.meta,
    result: () =>
      c.state === 'failed'
        ? { state: 'failed', errors: [{ message: 'GFS 0.40 < threshold 0.9', stack: 'at case' }] }
        : { state: c.state },
    diagnostic: () => (c.state === 'skipped' ? undefined : { startTime: 1000 + i, duration: 2 }),
  }));
  module.children = { allTests: () => tests.values(), allSuites: () => [suite].values() };
  return module as unknown as TestModule;
}

const VITEST = { snapshot: { summary: { total: 0 } } } as unknown as Vitest;

async function artifactOf(cases: FakeCase[]) {
  const file = join(await mkdtemp(join(tmpdir(), 'rge-artifact-')), 'vitest-evals.json');
  writeArtifact(file, [fakeModule(cases)], VITEST, 1000);
  return JSON.parse(await readFile(file, 'utf8'));
}

describe("vitest-evals' artifact of an ungated run", () => {
  const cases: FakeCase[] = [
    { name: 'grounded-direct › gd-001 › run 0', state: 'passed', meta: recorded(1) },
    { name: 'grounded-direct › gd-002 › run 0', state: 'passed', meta: recorded(0.4) },
  ];

  it('lists its cases passed with their recorded scores, in the fields of Vitest JSON reporter', async () => {
    const json = await artifactOf(cases);
    expect(json).toMatchObject({
      numTotalTests: 2,
      numPassedTests: 2,
      numFailedTests: 0,
      numPendingTests: 0,
      success: true,
    });
    const [file] = json.testResults;
    expect(Object.keys(file)).toEqual([
      'assertionResults',
      'startTime',
      'endTime',
      'status',
      'message',
      'name',
    ]);
    const [first, second] = file.assertionResults;
    expect(Object.keys(first)).toEqual([
      'ancestorTitles',
      'fullName',
      'status',
      'title',
      'duration',
      'failureMessages',
      'location',
      'meta',
      'tags',
    ]);
    expect(first).toMatchObject({
      ancestorTitles: ['extractive'],
      fullName: 'extractive grounded-direct › gd-001 › run 0',
      status: 'passed',
    });
    expect(second.status).toBe('passed'); // a GFS of 0.4 recorded, not failed: nothing gates it
    expect(second.meta.rge).toBeUndefined();
    expect(second.meta.eval.thresholdFailed).toBe(false);
    // what says that no gate ran: the GFS row, which the UI shows with the case
    const gfs = second.meta.eval.scores.at(-1);
    expect(gfs.metadata.rationale).toContain('recorded, not gated (every threshold is null)');
    expect(gfs.metadata.gated).toBe(false);
  });

  it('reads in the report UI as passed cases with scores, not DISABLED and skipped', async () => {
    const workspace = collectReportWorkspace(await artifactOf(cases));
    expect(workspace.cases.map((c) => c.status)).toEqual(['passed', 'passed']);
    expect(workspace.cases.map((c) => c.eval?.avgScore)).toEqual([1, 0.4]);
    expect(workspace.runs[0]?.totals).toEqual({
      total: 2,
      passed: 2,
      failed: 0,
      skipped: 0,
      evalTotal: 2,
      evalPassed: 2,
      evalFailed: 0,
    });
  });

  it("keeps a gated run's failures failed and a slice's placeholder skipped", async () => {
    const json = await artifactOf([
      { name: 'grounded-direct › gd-001 › run 0', state: 'failed', meta: recorded(0.4) },
      { name: 'slice 4 of 4: no question of this run falls in it', state: 'skipped', meta: {} },
    ]);
    expect(json.testResults[0].assertionResults.map((a: { status: string }) => a.status)).toEqual([
      'failed',
      'skipped',
    ]);
    expect(json).toMatchObject({ numFailedTests: 1, numPendingTests: 1, success: false });
    expect(collectReportWorkspace(json).runs[0]?.totals).toMatchObject({ failed: 1, skipped: 1 });
  });
});
