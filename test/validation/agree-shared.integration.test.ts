/**
 * Both offline judges against the human-labelled sets of ../shared/labels (a deterministic subsample of
 * 400 items per dataset), pooled and per subset (AttributionBench source dataset, SALAD setting,
 * FinanceBench eval mode). This asserts only that each runs and yields a finite pooled kappa inside its
 * interval: the judges are NOT tuned to these files (a held-out remainder exists), and the numbers are
 * reported, not gated.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgreementItems } from '../../src/cli/judge-agree.ts';
import { HEURISTIC_JUDGES, heuristicJudge } from '../../src/judging/heuristic/index.ts';
import {
  type AgreementFormat,
  type AgreementItem,
  type AgreementReport,
  agreementBySubset,
  compareJudges,
  deterministicSample,
  formatAgreementTable,
  formatComparison,
  judgeItems,
} from '../../src/validation/index.ts';
import { sharedLabels } from '../helpers/shared.ts';

const LABELS = sharedLabels ?? '';
const present = sharedLabels !== null && existsSync(join(LABELS, 'MANIFEST.md'));
const SAMPLE = 400;

async function datasets(): Promise<[AgreementFormat, AgreementItem[]][]> {
  return [
    [
      'attributionbench',
      await loadAgreementItems(
        'attributionbench',
        join(LABELS, 'attributionbench/dev_all_subset_balanced.jsonl'),
      ),
    ],
    ['financebench', await loadAgreementItems('financebench', join(LABELS, 'financebench_answers'))],
    ['salad', await loadAgreementItems('salad', join(LABELS, 'lfqa_salad'))],
  ];
}

describe.skipIf(!present)('offline judges against ../shared/labels', () => {
  it(`both judges run on every dataset (subsample of ${SAMPLE}), pooled and per subset`, async () => {
    const tables: string[] = [];
    for (const [format, all] of await datasets()) {
      const items = deterministicSample(all, SAMPLE);
      const reports: AgreementReport[] = [];
      for (const name of HEURISTIC_JUDGES) {
        const judge = heuristicJudge(name);
        const rows = agreementBySubset(format, name, items, await judgeItems(items, judge));
        const [pooled, ...subsets] = rows;
        expect((pooled?.n ?? 0) + (pooled?.unscored ?? 0)).toBe(items.length);
        expect(Number.isFinite(pooled?.kappa)).toBe(true);
        expect(pooled?.kappaCi?.low).toBeLessThanOrEqual(pooled?.kappa ?? Number.NaN);
        expect(pooled?.kappaCi?.high).toBeGreaterThanOrEqual(pooled?.kappa ?? Number.NaN);
        expect(subsets.length).toBeGreaterThan(1);
        expect(subsets.reduce((sum, r) => sum + r.n + r.unscored, 0)).toBe(items.length);
        reports.push(...rows);
      }
      tables.push(formatAgreementTable(format, reports, { matrices: false }));
    }
    console.log(tables.join('\n'));
  }, 120_000);
});

describe.skipIf(!present)('the two offline judges compared on ../shared/labels (--compare)', () => {
  it('each public set: kappa and alpha differences with paired intervals holding them, McNemar', async () => {
    const lines: string[] = [];
    for (const [format, all] of await datasets()) {
      const items = deterministicSample(all, SAMPLE);
      const [a, b] = HEURISTIC_JUDGES;
      const outcomes = [
        await judgeItems(items, heuristicJudge(a)),
        await judgeItems(items, heuristicJudge(b)),
      ] as const;
      const c = compareJudges(format, [a, b], items, outcomes);
      expect(c.n + c.unscored).toBe(items.length);
      for (const m of c.measures) {
        expect(Number.isFinite(m.difference)).toBe(true);
        expect(m.low).toBeLessThanOrEqual(m.difference);
        expect(m.high).toBeGreaterThanOrEqual(m.difference);
      }
      expect(c.mcnemar?.pValue).toBeGreaterThanOrEqual(0);
      lines.push(formatComparison(c));
    }
    console.log(lines.join('\n'));
  }, 180_000);
});

describe.skipIf(present)('offline judges against ../shared/labels', () => {
  it.skip('../shared/labels is absent (a user clone, or RGE_SHARED=0): skipped', () => {});
});
