/**
 * Consistency across runs (pass^k and flip rates, issue 40 item 3) on planted runs: two subjects with the
 * same share of passing cases, one whose questions always pass or always fail and one whose questions
 * pass on some runs only, are told apart; the three shares add up; a question missing a run is left
 * out and counted; an unscored case does not pass; the Wilson interval matches statsmodels'.
 */
import { describe, expect, it } from 'vitest';
import { consistency } from '../../src/report/consistency.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import type { CaseRowView } from '../../src/report/views.ts';
import { wilsonInterval } from '../../src/stats/index.ts';

/** A case of `subject` on question q, run `run`: passing (correctness and grounding 2) or not (0), or unscored. */
function row(subject: string, q: number, run: number, outcome: 'pass' | 'fail' | 'unscored'): CaseRowView {
  const score = outcome === 'pass' ? 2 : 0;
  const scored = outcome !== 'unscored';
  return {
    subject_id: subject,
    model: subject,
    question_id: `q${q}`,
    category: q % 2 ? 'grounded-direct' : 'adversarial',
    expected_behavior: 'answer',
    run_index: run,
    subject_prompt_hash: 'sp',
    judge_prompt_hash: 'jp',
    latency_ms: 1,
    cost_usd: 0,
    verdicts: [],
    scores: {
      correctness: scored ? score : null,
      grounding: scored ? score : null,
      calibration: scored ? 2 : null,
      gfsPrimary: scored ? (0.75 * score + 0.5) / 2 : null,
      gfsEqual: scored ? (2 * score + 2) / 6 : null,
      unscored: !scored,
      contested: false,
      contestedDimensions: [],
    },
    checks: {},
  } as unknown as CaseRowView;
}

// 30 questions x 3 runs. steady: questions 0-19 pass every run, 20-29 fail every run (2/3 of cases pass).
// flaky: every question passes runs 0 and 1 and fails run 2 (also 2/3 of cases pass).
const steady = Array.from({ length: 30 }, (_, q) =>
  [0, 1, 2].map((r) => row('steady', q, r, q < 20 ? 'pass' : 'fail')),
).flat();
const flaky = Array.from({ length: 30 }, (_, q) =>
  [0, 1, 2].map((r) => row('flaky', q, r, r < 2 ? 'pass' : 'fail')),
).flat();

describe('consistency across runs', () => {
  const c = consistency(
    new Map([
      ['steady', steady],
      ['flaky', flaky],
    ]),
  );

  it('tells a steady subject from a flaky one with the same share of passing cases', () => {
    const s = c.bySubject.steady?.all;
    const f = c.bySubject.flaky?.all;
    expect(s?.casePassRate).toBeCloseTo(2 / 3, 12);
    expect(f?.casePassRate).toBeCloseTo(2 / 3, 12);
    expect(s?.allPass).toEqual(wilsonInterval(20, 30));
    expect(s?.flip.successes).toBe(0);
    expect(s?.never.successes).toBe(10);
    expect(f?.allPass.successes).toBe(0);
    expect(f?.flip).toEqual(wilsonInterval(30, 30));
    for (const x of [s, f]) {
      expect(x?.runs).toBe(3);
      expect((x?.allPass.successes ?? 0) + (x?.flip.successes ?? 0) + (x?.never.successes ?? 0)).toBe(30);
    }
    // per category: steady's grounded-direct questions are the odd ones: 10 of 15 below 20 pass
    expect(c.bySubject.steady?.['grounded-direct']?.allPass.successes).toBe(10);
    expect(c.bySubject.steady?.['grounded-direct']?.questions).toBe(15);
  });

  it('leaves out a question missing a run, and an unscored run does not pass', () => {
    const rows = [
      row('s', 1, 0, 'pass'),
      row('s', 1, 1, 'unscored'),
      row('s', 2, 0, 'pass'),
      row('s', 2, 1, 'pass'),
      row('s', 3, 0, 'pass'),
    ];
    const x = consistency(new Map([['s', rows]])).bySubject.s?.all;
    expect(x).toMatchObject({ runs: 2, questions: 2, incomplete: 1 });
    expect(x?.allPass.successes).toBe(1);
    expect(x?.flip.successes).toBe(1);
  });

  it("Wilson's interval as statsmodels' proportion_confint(8, 10, method='wilson')", () => {
    const w = wilsonInterval(8, 10);
    expect(w.low).toBeCloseTo(0.4901624, 6);
    expect(w.high).toBeCloseTo(0.9433178, 6);
    expect(wilsonInterval(0, 40).low).toBe(0);
    expect(wilsonInterval(0, 40).high).toBeGreaterThan(0.05);
    expect(() => wilsonInterval(3, 2)).toThrow(/successes must be an integer from 0 to n/);
  });

  it('is in the report and in summary.json', () => {
    const summary = summarise([...steady, ...flaky], {
      seed: 'consistency',
      resamples: 200,
      run: { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' },
    });
    expect(summary.consistency.bySubject.flaky?.all?.flip.share).toBe(1);
    const md = renderMarkdown(summary);
    expect(md).toContain('## Consistency across runs');
    expect(md).toMatch(
      /\| flaky \| \*\*all\*\* \| 30 \| 3 \| 66\.7% \| 0\.0% \[0\.0%, 11\.\d%\] \| 100\.0% \[88\.\d%, 100\.0%\] \|/,
    );
  });
});
