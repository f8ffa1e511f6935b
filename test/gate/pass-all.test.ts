/**
 * Gating on pass^k (`rge gate --pass-all`, src/gate/pass-all.ts) on planted runs: questions whose runs
 * all passed start to flip while the mean GFS barely moves; noise; per category; older summaries.
 */
import { describe, expect, it } from 'vitest';
import { compareRuns, type GateSummary, gateMarkdown } from '../../src/gate/gate.ts';
import { binomialHalfCdf } from '../../src/stats/index.ts';

const CATEGORIES = ['adversarial', 'grounded-direct'];

/**
 * 100 questions x 3 runs, every run passing (GFS 0.9) for the first 70 and none (GFS 0.4) for the rest;
 * `flip(q)` gives the run indices of question q that fail instead (GFS 0.8: a small drop).
 */
function summary(id: string, flip: (q: number) => number[] = () => [], passed = true): GateSummary {
  const cells = [];
  for (let q = 0; q < 100; q++)
    for (let run = 0; run < 3; run++) {
      const good = q < 70;
      const fails = !good || flip(q).includes(run);
      cells.push({
        subject: 's',
        question_id: `q${String(q).padStart(3, '0')}`,
        run_index: run,
        category: CATEGORIES[q % 2] as string,
        gfs: good ? (fails ? 0.8 : 0.9) : 0.4,
        correctness: 2,
        ...(passed ? { passed: !fails } : {}),
      });
    }
  return {
    run: { runId: id, seed: `seed-${id}`, questionsHash: 'q', indexChecksum: 'i' },
    diagnostics: { cells },
  };
}

describe('rge gate --pass-all', () => {
  it('fails when questions that passed every run start to flip, though the GFS gate passes', () => {
    const baseline = summary('base');
    // 20 of the 70 reliable questions now fail one run of three
    const current = summary('cur', (q) => (q < 20 ? [q % 3] : []));
    const gfsOnly = compareRuns(baseline, current);
    expect(gfsOnly.passed).toBe(true); // a drop of 20 x 0.1 / 300 = 0.0067 < the minimum effect
    expect(gfsOnly.passAll).toBeNull();
    const result = compareRuns(baseline, current, { passAll: true });
    expect(result.passed).toBe(false);
    const overall = result.passAll?.find((r) => r.slice === 'overall');
    expect(overall).toMatchObject({ runs: 3, questions: 100, lost: 20, gained: 0, verdict: 'regression' });
    expect(overall?.baseline).toBeCloseTo(0.7, 12);
    expect(overall?.current).toBeCloseTo(0.5, 12);
    // McNemar exact: 2 P(X <= 0), X ~ Bin(20, 1/2)
    expect(overall?.pValue).toBeCloseTo(2 * binomialHalfCdf(0, 20), 15);
    // categories at Bonferroni's 97.5 %: 10 lost in each, p = 2 / 1024 < 0.025
    for (const c of CATEGORIES)
      expect(result.passAll?.find((r) => r.slice === c)).toMatchObject({
        lost: 10,
        confidence: 0.975,
        fails: true,
      });
    const md = gateMarkdown(result);
    expect(md).toContain('**rge gate: REGRESSION** in s (overall, pass^k)');
    expect(md).toMatch(
      /\| s \| overall \| 3 \| 100 \| 0\.700 \| 0\.500 \| −0\.200 \| 20 \| 0 \| <0\.001 \| 95% \| \*\*regression\*\* \|/,
    );
  });

  it('passes noise: a few questions lost and a few gained', () => {
    // lost: q 0-4 pass every run in the baseline and flip now; gained: q 5-8 flipped then and pass now
    const baseline = summary('base', (q) => (q >= 5 && q < 9 ? [2] : []));
    const current = summary('cur', (q) => (q < 5 ? [1] : []));
    const result = compareRuns(baseline, current, { passAll: true });
    const overall = result.passAll?.find((r) => r.slice === 'overall');
    expect(overall).toMatchObject({ lost: 5, gained: 4, verdict: 'within noise', fails: false });
    expect(overall?.pValue).toBe(1);
    expect(result.passed).toBe(true);
  });

  it('a significant fall smaller than the minimum effect is not a regression', () => {
    const current = summary('cur', (q) => (q < 20 ? [0] : []));
    const result = compareRuns(summary('base'), current, { passAll: true, minEffect: 0.25 });
    expect(result.passAll?.find((r) => r.slice === 'overall')).toMatchObject({ verdict: 'within noise' });
  });

  it('refuses summaries without per-case pass flags, naming the file (exit 2)', () => {
    expect(() =>
      compareRuns(
        summary('old', () => [], false),
        summary('cur'),
        {
          passAll: true,
          files: { baseline: 'reports/old-baseline.json', current: 'reports/x/summary.json' },
        },
      ),
    ).toThrow(/reports\/old-baseline\.json has no per-case pass flags .*rerun the eval/);
  });
});
