/**
 * The report read from the results store (issue 41): the rows of a run's cases, read in one pass and
 * kept compact (no answer, question, rationale or check detail), give the same summary, byte for byte,
 * as the whole rows did (the old way: every row in the cases' metadata); the few cases the report shows
 * in full are read back whole. The fixture run (configs/fixture.yaml on the bm25 world), 8 questions of
 * each category, 2 runs: failures, drill-downs and contested cases all occur.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { gfsChartSvg } from '../../src/report/chart-svg.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import { fullRow } from '../../src/report/views.ts';
import { type CaseRow, caseRow } from '../../src/run/case/case.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { CaseRow as CaseRowSchema, ResultsStore, resultsFile } from '../../src/store/rows.ts';
import { caseMeta } from '../../src/vitest/case-meta.ts';
import type { RgeRunInfo } from '../../src/vitest/meta.ts';
import { readRunRows } from '../../src/vitest/stored-rows.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { fixtureQuestionsPerCategory, openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function varied(row: CaseRow, i: number): CaseRow {
  const usage = (n: number) => ({
    inputTokens: 1000 + 37 * n,
    outputTokens: 20 + (n % 50),
    cacheReadTokens: n % 3 === 0 ? 800 : 0,
    cacheWriteTokens: n % 5 === 0 ? 900 : 0,
  });
  return {
    ...row,
    cost_usd: (i % 7) * 0.0013,
    uncached_cost_usd: (i % 7) * 0.0021,
    latency_ms: 200 + ((i * 131) % 1900),
    usage: usage(i),
    judge_usage: usage(i + 11),
    batch: i % 2 === 0,
    ...(i % 29 === 3 ? { answer_stop: { kind: 'truncated' as const, reason: 'max_tokens' } } : {}),
    verdicts: row.verdicts.map((v, j) => ({
      ...v,
      latencyMs: 50 + ((i + j) % 40),
      costUsd: ((i + j) % 3) * 0.0007,
    })),
  };
}
const PER_CATEGORY = 8;

describe('a run reported from its results store', () => {
  let info: RgeRunInfo;
  let rows: CaseRow[];

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-stored-rows-'));
    const cases = await fixtureQuestionsPerCategory(root, PER_CATEGORY);
    const run = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir: join(dir, 'results'),
      reportsDir: join(dir, 'reports'),
      overrides: await worldOverrides('bm25'),
      log: () => {},
      cases,
      runs: 2,
    });
    await runStages(run, { log: () => {} });
    info = run.plan.info;
    // the offline world's calls are free, instant and uncached: vary what they cost, took and used, so
    // that a field the compact rows dropped would change the cost, caching, latency and stop sections
    rows = (await run.work.cells()).map((cell, i) => varied(caseRow(run, cell), i));
    for (const subject of run.plan.subjects) {
      const store = ResultsStore.open(
        resultsFile(info.resultsDir, subject.id, info.runId),
        {
          kind: 'run',
          run_id: info.runId,
          subject_id: subject.id,
          seed: info.seed,
          config_hash: info.configHash,
          index_checksum: info.indexChecksum,
          questions_hash: info.questionsHash,
          created_at: '2026-01-01T00:00:00.000Z',
        },
        CaseRowSchema,
      );
      // stored in another order than the cases': the report follows the cases
      for (const row of [...rows].reverse()) if (row.subject_id === subject.id) store.put(row);
    }
  }, 300_000);

  const options = () => ({
    seed: info.seed,
    resamples: 500,
    run: {
      runId: info.runId,
      configHash: info.configHash,
      indexChecksum: info.indexChecksum,
      questionsHash: info.questionsHash,
    },
    describe: info.describe,
    cells: info.cells,
    errors: [],
  });

  it('gives the summary, its markdown and chart byte for byte as the whole rows do', () => {
    const { rows: compact, missing } = readRunRows(
      info,
      rows.map((r) => caseMeta(r, false)),
    );
    expect(missing).toEqual([]);
    expect(compact).toHaveLength(rows.length);
    const old = summarise(rows, options());
    const now = summarise(compact, options());
    expect(old.diagnostics.drilldown.length).toBeGreaterThan(0);
    expect(Object.values(old.failures.examples).filter(Boolean).length).toBeGreaterThan(1);
    expect(JSON.stringify(now, null, 2)).toBe(JSON.stringify(old, null, 2));
    expect(renderMarkdown(now, { chartFile: 'gfs.svg' })).toBe(renderMarkdown(old, { chartFile: 'gfs.svg' }));
    expect(gfsChartSvg(now)).toBe(gfsChartSvg(old));
  });

  it('keeps no text of a case in its compact row, and reads the whole row back when asked', () => {
    const { rows: compact } = readRunRows(
      info,
      rows.slice(0, 3).map((r) => caseMeta(r, false)),
    );
    for (const [i, c] of compact.entries()) {
      expect(c.answer).toBeUndefined();
      expect(c.question).toBeUndefined();
      expect(JSON.stringify(c)).not.toMatch(/rationale|"detail"|"raw"/);
      expect(fullRow(c)).toEqual(rows[i]);
    }
  });

  it('lists a case whose row the store does not hold as missing, not dropped', () => {
    const ghost = { ...caseMeta(rows[0] as CaseRow, false), run_index: 99 };
    const { rows: found, missing } = readRunRows(info, [ghost, caseMeta(rows[1] as CaseRow, false)]);
    expect(found).toHaveLength(1);
    expect(missing).toEqual([ghost]);
  });
});
