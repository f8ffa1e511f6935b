/**
 * Judges against people in a run's report (methodology 5.3-5.5), end to end: `rge eval run` on a slice
 * of the fixture world with labels and a review, its report's table 5.5 and contested responses, and the
 * publishing gate of `--publish` (which refuses before the cases run: those runs are in this process).
 * The tables themselves: test/validation/summary.test.ts.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { caseRow } from '../../src/run/case/case.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { spawnRge } from '../helpers/child.ts';
import { runRge } from '../helpers/cli.ts';
import { worldOverrides, worldSetArgs } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the report of a run with labels, and the publishing gate', () => {
  it('shows table 5.5 and the contested review; --publish refuses below the threshold unless the limitation is written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-validation-report-'));
    const resultsDir = join(dir, 'results');
    const labelsDir = join(dir, 'labels');
    const narrowing = { questions: 40, runs: 1 };
    // the use-lite world: its retrieval misses make the heuristic judges disagree (a contested case);
    // on the bm25 world of configs/fixture.yaml every gold chunk is retrieved and none is contested
    const run = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir,
      overrides: await worldOverrides('use-lite'),
      log: () => {},
      ...narrowing,
    });
    await runStages(run, { log: () => {} });
    const rows = (await run.work.cells()).map((c) => caseRow(run, c));
    const contested = rows.find((r) => r.scores.contested);
    expect(contested).toBeDefined();
    // people label every response as the numeric judge scored it: numeric agrees perfectly, lexical less
    await mkdir(labelsDir, { recursive: true });
    const lines = rows.map((r) => {
      const v = r.verdicts.find((x) => x.judgeId === 'heuristic/numeric')?.verdict;
      return JSON.stringify({
        kind: 'label',
        sample_id: 'fixture-test',
        item_id: `${r.subject_id}/${r.question_id}/run ${r.run_index}`,
        answer_key: r.answer_key,
        labeller: 'ana',
        correctness: v?.correctness.score,
        grounding: v?.grounding.score,
        calibration: v?.calibration.score,
        rationale: 'as the figures say',
        labelled_at: new Date().toISOString(),
      });
    });
    await writeFile(join(labelsDir, 'labels-fixture-test.jsonl'), `${lines.join('\n')}\n`);
    await writeFile(
      join(labelsDir, 'reviews.jsonl'),
      `${JSON.stringify({
        kind: 'review',
        item_id: `${contested?.subject_id}/${contested?.question_id}/run 0`,
        answer_key: contested?.answer_key,
        reviewer: 'rae',
        outcome: { correctness: 2, grounding: 2, calibration: 2 },
        note: 'the chunks hold it',
        judge_outcomes_hash: '0'.repeat(64),
        reviewed_at: new Date().toISOString(),
      })}\n`,
    );
    const args = [
      'eval',
      'run',
      '--config',
      'configs/fixture.yaml',
      '--questions',
      String(narrowing.questions),
      '--runs',
      '1',
      '--results-dir',
      resultsDir,
      '--reports-dir',
      join(dir, 'reports'),
      '--set',
      `validation.labels_dir=${labelsDir}`,
      ...(await worldSetArgs('use-lite')),
    ];
    const plain = await spawnRge(args);
    expect(plain.code, plain.err).toBe(0);
    const report = /report (\S+summary\.md)/.exec(plain.out)?.[1] as string;
    const md = await readFile(report, 'utf8');
    expect(md).toContain('## Judges against people (methodology 5.5)');
    // every fixture answer quotes its chunk: grounding is 2 throughout, so its kappa is undefined (flagged)
    expect(md).toContain(
      `| heuristic/numeric | 1.000 [1.000, 1.000] | n/a (one score only) ⚠ | 1.000 [1.000, 1.000] | ${2 * narrowing.questions} |`,
    );
    expect(md).toMatch(/\| heuristic\/lexical \|/);
    expect(md).toMatch(/## Contested responses and their review: [1-9]/);
    expect(md).toContain(`| ${contested?.question_id} | ${contested?.subject_id} | 0 |`);
    expect(md).toContain('| 2 / 2 / 2 | rae | the chunks hold it |');

    // a refused --publish stops before the cases run (Vitest): in this process
    const refused = await runRge(root, ...args, '--publish');
    // a cell below the threshold, or one without a kappa (one score only), refuses publishing
    const below = md.includes('⚠ below') || md.includes('n/a (one score only) ⚠');
    if (below) {
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/refusing to publish: cells below the pre-registered 0\.75/);
      const allowed = await spawnRge([
        ...args,
        '--publish',
        '--set',
        'validation.limitation=Heuristic judges are stand-ins.',
      ]);
      expect(allowed.code, allowed.err).toBe(0);
      expect(allowed.err).toMatch(/with the limitation documented/);
    } else expect(refused.code, refused.err).toBe(0);
    const unlabelled = await runRge(
      root,
      ...args,
      '--publish',
      '--set',
      `validation.labels_dir=${join(dir, 'none')}`,
    );
    expect(unlabelled.code).toBe(1);
    expect(unlabelled.err).toMatch(/no response of this run has a human label/);
  }, 600_000);
});
