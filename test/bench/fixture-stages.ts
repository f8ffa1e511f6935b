/**
 * The stages of a small fixture run in this process, as `rge eval run` runs them (the scale bench's
 * tests: its fill and its floor read the folders these runs leave).
 */
import { fileURLToPath } from 'node:url';
import { type CaseRow, caseRow } from '../../src/run/case/case.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import type { RunState } from '../../src/store/run-state.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const quiet = () => {};

/** The stages of a fixture run of 5 questions x `runs` on the bm25 world; its counts and its cases' rows. */
export async function fixtureStages(
  resultsDir: string,
  runs: number,
): Promise<{ counts: RunState['counts']; rows: CaseRow[] }> {
  const run = await openTestRun({
    config: 'configs/fixture.yaml',
    root,
    resultsDir,
    overrides: await worldOverrides('bm25'),
    log: quiet,
    questions: 5,
    runs,
  });
  const { state } = await runStages(run, { log: quiet });
  return { counts: state.counts, rows: (await run.work.cells()).map((cell) => caseRow(run, cell, state)) };
}
