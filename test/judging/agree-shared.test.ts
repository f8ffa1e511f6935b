/**
 * Both offline judges against the human-labelled sets of ../shared/labels (a deterministic subsample of
 * 400 items per dataset). This asserts only that each runs and yields a finite kappa: the judges are
 * NOT tuned to these files (a held-out remainder exists), and the numbers are reported, not gated.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadAgreementItems } from '../../src/cli/judge-agree.ts';
import {
  type AgreementFormat,
  type AgreementItem,
  type AgreementReport,
  agreement,
  deterministicSample,
  judgeItems,
} from '../../src/judging/agree.ts';
import { HEURISTIC_JUDGES, heuristicJudge } from '../../src/providers/heuristic/index.ts';

const LABELS = fileURLToPath(new URL('../../../shared/labels', import.meta.url));
const present = existsSync(join(LABELS, 'MANIFEST.md'));
const SAMPLE = 400;

async function datasets(): Promise<[AgreementFormat, AgreementItem[]][]> {
  const salad: AgreementItem[] = [];
  const saladDir = join(LABELS, 'lfqa_salad');
  for (const f of (await readdir(saladDir)).filter((f) => f.startsWith('annotations-')).sort()) {
    const setting = f.replace(/^annotations-|\.json$/g, '');
    for (const item of await loadAgreementItems('salad', join(saladDir, f)))
      salad.push({ ...item, id: `${setting}:${item.id}` });
  }
  return [
    [
      'attributionbench',
      await loadAgreementItems(
        'attributionbench',
        join(LABELS, 'attributionbench/dev_all_subset_balanced.jsonl'),
      ),
    ],
    ['financebench', await loadAgreementItems('financebench', join(LABELS, 'financebench_answers'))],
    ['salad', salad],
  ];
}

describe.skipIf(!present)('offline judges against ../shared/labels', () => {
  it(`both judges run on every dataset (subsample of ${SAMPLE}) with a finite kappa`, async () => {
    const reports: AgreementReport[] = [];
    for (const [format, all] of await datasets()) {
      const items = deterministicSample(all, SAMPLE);
      for (const name of HEURISTIC_JUDGES) {
        const judge = heuristicJudge(name);
        const report = agreement(format, judge.id, items, await judgeItems(items, judge));
        reports.push(report);
        expect(report.n + report.unscored).toBe(items.length);
        expect(Number.isFinite(report.kappa)).toBe(true);
      }
    }
    const rows = reports.map(
      (r) =>
        `| ${r.format} | ${r.dimension} | ${r.judge} | ${r.n} | ${r.kappa.toFixed(3)} | ${r.accuracy.toFixed(3)} |`,
    );
    console.log(
      ['| dataset | dimension | judge | n | kappa | accuracy |', '|---|---|---|---|---|---|', ...rows].join(
        '\n',
      ),
    );
  }, 120_000);
});

describe.skipIf(present)('offline judges against ../shared/labels', () => {
  it.skip('../shared/labels is absent (a user clone): skipped', () => {});
});
