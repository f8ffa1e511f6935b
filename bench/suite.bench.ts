/**
 * The eval suite through Vitest (stages, one test per case, matchers, metadata, the reporter) against
 * the same cases as a plain script (the stages, then every case row), each into a fresh results folder
 * so nothing is reused. The ratio is what running as Vitest cases costs. Both run the fixture config on
 * the tests' bm25 fixture world (test/helpers/fixture-world.ts, built once per bench run in a temporary
 * folder): the embedder is not what is measured, and nothing is written into fixtures/generated.
 */
import { join } from 'node:path';
import { caseRow } from '../src/run/case.ts';
import { prepareRun } from '../src/run/prepare.ts';
import { runStages } from '../src/run/stages.ts';
import { subjectCells } from '../src/run/work.ts';
import { runEvalSuite } from '../src/vitest/run.ts';
import { worldOverrides } from '../test/helpers/fixture-world.ts';
import { type Bench, latencyRow } from './harness.ts';

const bench: Bench = async (ctx) => {
  // Build (or reuse) the fixture world's index first, so neither side pays for it.
  const overrides = await worldOverrides('bm25');
  const narrowing = { questions: ctx.quick ? 40 : 200, runs: 1, overrides };
  await prepareRun({
    config: 'configs/fixture.yaml',
    root: ctx.root,
    resultsDir: join(ctx.tmp, 'warm'),
    log: () => {},
    ...narrowing,
  });

  let t0 = performance.now();
  const run = await prepareRun({
    config: 'configs/fixture.yaml',
    root: ctx.root,
    resultsDir: join(ctx.tmp, 'loop'),
    log: () => {},
    ...narrowing,
  });
  await runStages(run, { log: () => {} });
  let cases = 0;
  for (const cell of await subjectCells(run)) {
    caseRow(run, cell);
    cases++;
  }
  const loopSeconds = (performance.now() - t0) / 1000;
  ctx.log(`plain script: ${cases} cases in ${loopSeconds.toFixed(2)} s`);

  t0 = performance.now();
  const outcome = await runEvalSuite({
    root: ctx.root,
    config: 'configs/fixture.yaml',
    resultsDir: join(ctx.tmp, 'vitest'),
    reportsDir: join(ctx.tmp, 'reports'),
    ...narrowing,
  });
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
