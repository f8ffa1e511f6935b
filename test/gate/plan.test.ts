/**
 * `rge plan`: the design table from an earlier run's summary (variance components and costs), the
 * cheapest design reaching the power, the budget (exit 2 when nothing fits), the one-subject change
 * model, bad input, and, against seeded simulation (test/gate/simulate.ts), the planned design reaching
 * its stated power within 3 points.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PlanSummary, planMarkdown, planRun } from '../../src/gate/plan.ts';
import { summarise } from '../../src/report/summary.ts';
import type { CaseRowView } from '../../src/report/views.ts';
import { designStandardError, minimalDetectableDifference } from '../../src/stats/index.ts';
import { runRge } from '../helpers/cli.ts';
import { scoredCell } from '../report/scored-cell.ts';
import { rejectionRate } from './simulate.ts';

const levels = [0, 0.25, 0.5, 0.625, 0.75, 0.875, 1];

/** Two subjects x 60 questions x 3 runs on a GFS grid; b follows a's question levels with its own noise. */
function rows(costFirst: number, costLater: number): CaseRowView[] {
  const out: CaseRowView[] = [];
  for (let q = 0; q < 60; q++)
    for (let run = 0; run < 3; run++)
      for (const [subject, offset] of [
        ['a', 0],
        ['b', 1],
      ] as const) {
        const gfs = levels[
          (q * 5 + run * (subject === 'a' ? 1 : 2) + offset * (q % 3)) % levels.length
        ] as number;
        out.push(scoredCell(subject, q, run, [2 * gfs, 2 * gfs, 2 * gfs], run === 0 ? costFirst : costLater));
      }
  return out;
}

const run = { runId: 'earlier', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' };
const summary = summarise(rows(0.05, 0.01), { seed: 's', resamples: 200, run }) as unknown as PlanSummary;

describe('planRun', () => {
  const plan = planRun(summary, { effect: 0.05, runs: [1, 4] });

  it("per runs per question, the fewest questions whose MDD (t on Q - 1 df, as the gate's) is at most the effect, with its power and cost", () => {
    expect(plan.comparison).toMatchObject({ kind: 'pair', label: 'a vs b', subjects: ['a', 'b'] });
    const comparison = summary.power.comparisons[0];
    expect(plan.alpha).toBe(comparison?.alpha);
    expect(plan.rows.map((r) => r.runs)).toEqual([1, 2, 3, 4]);
    for (const r of plan.rows) {
      const mdd = (questions: number) =>
        minimalDetectableDifference(designStandardError({ ...plan.comparison, questions, runs: r.runs }), {
          alpha: plan.alpha,
          power: 0.8,
          df: questions - 1,
        });
      expect(r.mdd).toBeLessThanOrEqual(0.05 + 1e-12);
      expect(mdd(r.questions - 1)).toBeGreaterThan(0.05);
      expect(r.power).toBeGreaterThanOrEqual(0.8);
      // both subjects: a question's first run costs 0.05, each later one 0.01
      expect(r.costUsd).toBeCloseTo(2 * r.questions * (0.05 + (r.runs - 1) * 0.01), 10);
    }
    // more runs per question never need more questions
    for (let i = 1; i < plan.rows.length; i++)
      expect(plan.rows[i]?.questions).toBeLessThanOrEqual(plan.rows[i - 1]?.questions as number);
  });

  it('picks the cheapest design; its own run is shown for reference', () => {
    const cheapest = [...plan.rows].sort((x, y) => x.costUsd - y.costUsd)[0];
    expect(plan.cheapest).toBe(cheapest);
    expect(plan.observed).toMatchObject({ questions: 60, runs: 3 });
    const md = planMarkdown(plan);
    expect(md).toContain('## rge plan: a vs b');
    expect(md).toContain('| questions | runs per question | cells per side | MDD | power | cost USD | |');
    expect(md).toMatch(/\*\*cheapest\*\*/);
    expect(md).toMatch(/Cheapest design reaching 80\.0%: \d+ questions x \d run\(s\) per question/);
  });

  it('a budget below every design: no cheapest design', () => {
    const broke = planRun(summary, { effect: 0.05, budgetUsd: 0.5 });
    expect(broke.cheapest).toBeNull();
    expect(broke.rows.every((r) => !r.fitsBudget)).toBe(true);
    expect(planMarkdown(broke)).toMatch(/No design reaches 80\.0% within the budget of \$0\.5000/);
  });

  it("one subject's change against its baseline: twice the run-to-run variance, tau^2 as given", () => {
    const change = planRun(summary, { effect: 0.05, compare: 'a' });
    const within = summary.power.subjects.a?.withinQuestionVariance as number;
    expect(change.comparison).toMatchObject({ kind: 'change', betweenQuestionVariance: 0 });
    expect(change.comparison.withinQuestionVariance).toBeCloseTo(2 * within, 15);
    expect(change.alpha).toBe(0.05);
    expect(planMarkdown(change)).toMatch(/assumes the change moves every question alike/);
    const uneven = planRun(summary, { effect: 0.05, compare: 'a', betweenVariance: 0.002 });
    expect(uneven.rows[0]?.questions).toBeGreaterThan(change.rows[0]?.questions as number);
  });

  it('rejects bad options and names what exists', () => {
    expect(() => planRun(summary, { effect: 0 })).toThrow(/--effect must be in \(0, 1\)/);
    expect(() => planRun(summary, { effect: 0.03, power: 1.2 })).toThrow(/--power/);
    expect(() => planRun(summary, { effect: 0.03, runs: [3, 2] })).toThrow(/--runs/);
    expect(() => planRun(summary, { effect: 0.03, compare: 'a,zz' })).toThrow(/its pairs: a,b/);
    expect(() => planRun(summary, { effect: 0.03, compare: 'zz' })).toThrow(/its subjects: a, b/);
  });
});

describe('the planned design against simulation', () => {
  it('reaches its stated power within 3 points (2,000 seeded simulations of the design)', () => {
    const plan = planRun(summary, { effect: 0.05, runs: [2, 2] });
    const design = plan.rows[0];
    if (!design) throw new Error('no design');
    const simulated = rejectionRate(
      {
        questions: design.questions,
        runs: design.runs,
        between: plan.comparison.betweenQuestionVariance,
        within: plan.comparison.withinQuestionVariance,
        effect: -plan.effect,
      },
      2000,
      'plan:simulated',
      { alpha: plan.alpha, minEffect: 0 },
    );
    expect(Math.abs(simulated.rate - design.power)).toBeLessThanOrEqual(0.03);
  });
});

describe('rge plan (the command)', () => {
  it('prints the design table; exit 2 when no design fits --budget-usd; bad files named', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-plan-'));
    await writeFile(join(dir, 'summary.json'), JSON.stringify(summary));
    const plan = (...args: string[]) => runRge(dir, 'plan', '--effect', '0.05', ...args);
    const ok = await plan('--from', 'summary.json', '--runs', '1..3');
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain('## rge plan: a vs b');
    expect(ok.out.match(/^\| \d+ \| [1-3] \|/gm)).toHaveLength(3);
    const over = await plan('--from', 'summary.json', '--budget-usd', '0.1');
    expect(over.code).toBe(2);
    expect(over.out).toContain('over budget');
    expect(over.err).toMatch(/no design reaches the power within the budget of \$0\.1/);
    const missing = await plan('--from', 'nope.json');
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.err).toBe('rge: --from nope.json: no such file\n');
    await writeFile(join(dir, 'old.json'), JSON.stringify({ run: { runId: 'x' } }));
    const old = await plan('--from', 'old.json');
    expect(old.code).toBe(2);
    expect(old.err).toMatch(
      /old\.json: not an rge summary\.json with variance components: power: .*rerun the report/,
    );
    const badRuns = await plan('--from', 'summary.json', '--runs', 'a..b');
    expect(badRuns.code).toBe(2);
    expect(badRuns.err).toMatch(/--runs must be a number or a range such as 1\.\.5/);
  });
});
