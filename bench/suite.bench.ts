/**
 * The eval suite through Vitest (stages, one test per case, matchers, metadata, the reporter) against
 * the same cases as a plain script (the stages, then every case row), each into a fresh results folder
 * so nothing is reused. The ratio is what running as Vitest cases costs. Both run the fixture config on
 * the tests' bm25 fixture world (test/helpers/fixture-world.ts, built once per bench run in a temporary
 * folder): the embedder is not what is measured, and nothing is written into fixtures/generated.
 */
import { join } from 'node:path';
import { caseRow } from '../src/run/case/case.ts';
import { planFromRequest } from '../src/run/plan/load.ts';
import { parseRunRequest } from '../src/run/plan/request.ts';
import { runStages } from '../src/run/stages/stages.ts';
import { runEvalSuite } from '../src/vitest/run.ts';
import { worldOverrides } from '../test/helpers/fixture-world.ts';
import { openTestRun } from '../test/helpers/open-run.ts';
import { type Bench, latencyRow } from './harness.ts';

const bench: Bench = async (ctx) => {
  // Build (or reuse) the fixture world's index first, so neither side pays for it.
  const overrides = await worldOverrides('bm25');
  const narrowing = { questions: ctx.quick ? 40 : 200, runs: 1, overrides };
  await openTestRun({
    config: 'configs/fixture.yaml',
    root: ctx.root,
    resultsDir: join(ctx.tmp, 'warm'),
    log: () => {},
    ...narrowing,
  });

  let t0 = performance.now();
  const run = await openTestRun({
    config: 'configs/fixture.yaml',
    root: ctx.root,
    resultsDir: join(ctx.tmp, 'loop'),
    log: () => {},
    ...narrowing,
  });
  await runStages(run, { log: () => {} });
  let cases = 0;
  for (const cell of await run.work.cells()) {
    caseRow(run, cell);
    cases++;
  }
  const loopSeconds = (performance.now() - t0) / 1000;
  ctx.log(`plain script: ${cases} cases in ${loopSeconds.toFixed(2)} s`);

  t0 = performance.now();
  // the run planned as `npx vitest run evals` plans it (once, before the eval files), the stages in Vitest
  const request = parseRunRequest({
    config: 'configs/fixture.yaml',
    resultsDir: join(ctx.tmp, 'vitest'),
    reportsDir: join(ctx.tmp, 'reports'),
    ...narrowing,
  });
  const plan = await planFromRequest(request, { root: ctx.root });
  const outcome = await runEvalSuite({ root: ctx.root, handoff: { request, plan, plannedBy: process.pid } });
  const vitestSeconds = (performance.now() - t0) / 1000;
  ctx.log(`vitest: ${outcome.cases} cases (${outcome.reused} reused) in ${vitestSeconds.toFixed(2)} s`);
  if (outcome.cases !== cases || outcome.reused !== 0)
    throw new Error('the two sides did not run the same fresh cases');
  return [
    latencyRow(
      'eval suite through Vitest',
      's',
      vitestSeconds,
      { name: 'plain script: stages + case rows', value: loopSeconds },
      `${cases} cases, fixture config, fresh results store each`,
    ),
  ];
};

export default bench;
