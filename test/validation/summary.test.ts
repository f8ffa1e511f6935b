/**
 * Judges against people in the report (methodology 5.3-5.5): table 5.5 (kappa per judge and dimension
 * against human labels, cells below 0.75 flagged), the contested responses beside their reviewed
 * outcome, and the publishing gate of `rge eval run --publish`.
 */

import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { caseRow } from '../../src/run/case.ts';
import { runStages } from '../../src/run/stages.ts';

import {
  type LabelView,
  medianScore,
  type ValidationRowView,
  validationMarkdown,
  validationSummary,
} from '../../src/validation/summary.ts';
import { spawnRge } from '../helpers/cli.ts';
import { worldOverrides, worldSetArgs } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

const verdict = (c: number, g: number, k: number) => ({
  correctness: { score: c },
  grounding: { score: g },
  calibration: { score: k },
});
const row = (
  key: string,
  a: [number, number, number],
  b: [number, number, number],
  contested = false,
): ValidationRowView => ({
  answer_key: key,
  question_id: `q-${key}`,
  subject_id: 's',
  run_index: 0,
  verdicts: [
    { judgeId: 'judge-a', verdict: verdict(...a) },
    { judgeId: 'judge-b', verdict: verdict(...b) },
  ],
  scores: {
    contested,
    contestedDimensions: contested ? ['correctness'] : [],
    correctness: (a[0] + b[0]) / 2,
    grounding: (a[1] + b[1]) / 2,
    calibration: (a[2] + b[2]) / 2,
  },
});
const label = (key: string, c: number, g: number, k: number, labeller = 'ana'): LabelView => ({
  answer_key: key,
  labeller,
  correctness: c,
  grounding: g,
  calibration: k,
});

describe('validationSummary', () => {
  it('kappa per judge and dimension against the labels, flagging cells below the threshold', () => {
    // judge-a agrees with people everywhere (kappa 1); judge-b says 2 on correctness wherever people said 0.
    const rows = [
      row('1', [2, 2, 2], [2, 2, 2]),
      row('2', [0, 2, 2], [2, 2, 2], true),
      row('3', [2, 1, 2], [2, 1, 2]),
      row('4', [0, 2, 1], [2, 2, 1], true),
    ];
    const labels = [label('1', 2, 2, 2), label('2', 0, 2, 2), label('3', 2, 1, 2), label('4', 0, 2, 1)];
    const v = validationSummary(rows, labels, [
      {
        answer_key: '2',
        reviewer: 'rae',
        outcome: { correctness: 0, grounding: 2, calibration: 2 },
        note: 'a is right',
      },
    ]);
    const cell = (j: string, d: string) => v.table.find((c) => c.judge === j && c.dimension === d);
    expect(cell('judge-a', 'correctness')).toMatchObject({ n: 4, kappa: 1, below: false });
    // judge-b: people 2,0,2,0 vs judge 2,2,2,2: p_o = 0.5, p_e = 0.5 -> kappa 0
    expect(cell('judge-b', 'correctness')).toMatchObject({ n: 4, kappa: 0, below: true });
    expect(v.passes).toBe(false);
    expect(v.contested).toHaveLength(2);
    expect(v.contested[0]).toMatchObject({
      question_id: 'q-2',
      judgeMean: { correctness: 1 },
      reviewed: { reviewer: 'rae' },
    });
    expect(v.contested[1]?.reviewed).toBeNull();
    const md = validationMarkdown(v).join('\n');
    // n = 4: the estimate, its interval, the warning that it rests on too few, and the flag
    expect(md).toMatch(/\| judge-b \| 0\.000 \[-?\d\.\d{3}, \d\.\d{3}\] ⚠ few ⚠ below \|/);
    expect(cell('judge-b', 'correctness')?.seed).toBe('validation:judge-b:correctness');
    expect(md).toContain('fewer than 30 responses');
    // beside it, the ordinal reading: judge-b's misses are 0-vs-2, the worst on the scale
    const b = cell('judge-b', 'correctness')?.ordinal;
    expect(b?.quadraticKappa.value).toBeCloseTo(0, 12);
    expect(b?.alpha.value).toBeLessThan(0); // alpha is below chance where kappa is at chance (small n)
    expect(cell('judge-a', 'grounding')?.ordinal.alpha.value).toBe(1);
    expect(md).toMatch(/quadratic-weighted kappa \/ Krippendorff's ordinal alpha/);
    expect(md).toMatch(/\| judge-b \| 0\.000 \[[^\]]*\] ⚠ few \/ -\d\.\d{3}/);
    expect(md).toContain('| q-2 | s | 0 | correctness | 1 / 2 / 2 | 0 / 2 / 2 | rae | a is right |');
    expect(md).toContain('| q-4 | s | 0 | correctness | 1 / 2 / 1 | not reviewed |');
  });

  it('several labellers of one response: their median, ties to the lower', () => {
    expect(medianScore([2, 0, 1])).toBe(1);
    expect(medianScore([2, 1])).toBe(1);
    expect(medianScore([2])).toBe(2);
  });

  it('without labels, says so and does not pass', () => {
    const v = validationSummary([row('1', [2, 2, 2], [2, 2, 2])], [], []);
    expect(v.labelled).toBe(0);
    expect(v.passes).toBe(false);
    expect(validationMarkdown(v).join('\n')).toMatch(/No response of this run has a human label/);
  });
});

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

    const refused = await spawnRge([...args, '--publish']);
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
    const unlabelled = await spawnRge([
      ...args,
      '--publish',
      '--set',
      `validation.labels_dir=${join(dir, 'none')}`,
    ]);
    expect(unlabelled.code).toBe(1);
    expect(unlabelled.err).toMatch(/no response of this run has a human label/);
  }, 600_000);
});
