/**
 * Judges against people in the report (methodology 5.3-5.5): table 5.5 (kappa per judge and dimension
 * against human labels, cells below 0.75 flagged), the contested responses beside their reviewed
 * outcome, and the publishing gate of `rge eval run --publish`, from rows and labels. A real run's report
 * and `--publish`: test/validation/summary-publish.integration.test.ts.
 */

import { describe, expect, it } from 'vitest';

import {
  type LabelView,
  medianScore,
  type ValidationRowView,
  validationMarkdown,
  validationSummary,
} from '../../src/validation/summary.ts';

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
