/**
 * The rubric on the fixture run: a correct out-of-domain refusal ("The provided context does not state
 * ... I will not guess.") makes no claim, so both heuristic judges give it grounding 2; declining a
 * question the documents cannot answer is calibration 2 and correctness 2. (Before the rubric was
 * applied as written, every such refusal got grounding 0 and GFS 0.6.)
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isRefusal } from '../../src/analysis/index.ts';
import { caseRow } from '../../src/run/case/case.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('out-of-domain refusals on the fixture run', () => {
  it('a correct refusal is grounded (2), calibrated (2) and correct (2) for both judges, GFS 1', async () => {
    const resultsDir = await mkdtemp(join(tmpdir(), 'rge-refusals-'));
    const run = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir,
      overrides: await worldOverrides(),
      subjects: ['extractive'],
      runs: 1,
      log: () => {},
    });
    await runStages(run, { log: () => {} });
    const rows = (await run.work.cells())
      .map((c) => caseRow(run, c))
      .filter((r) => r.category === 'out-of-domain');
    expect(rows).toHaveLength(45);
    const refusals = rows.filter((r) => isRefusal(r.answer));
    expect(refusals.length).toBeGreaterThanOrEqual(40);
    for (const r of refusals) {
      expect(r.verdicts.map((v) => v.judgeId).sort()).toEqual(['heuristic/lexical', 'heuristic/numeric']);
      for (const v of r.verdicts) {
        expect(
          v.verdict?.grounding.score,
          `${r.question_id} ${v.judgeId}: ${v.verdict?.grounding.rationale}`,
        ).toBe(2);
        expect(v.verdict?.calibration.score).toBe(2);
        expect(v.verdict?.correctness.score).toBe(2);
        expect(v.verdict?.unsupported_claims).toEqual([]);
      }
      expect(r.scores.gfsPrimary).toBe(1);
    }
  }, 300_000);
});
