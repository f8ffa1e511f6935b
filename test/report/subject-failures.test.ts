/**
 * A subject's own failure is a wrong answer for the user (issue 51): two systems give the same answers,
 * but one crashes on every 7th question, which are the questions both answer worst. Leaving its crashes
 * out ranked it first; scored 0 (GFS 0, each dimension 0), the healthy one ranks first, the first screen
 * shows each subject's failed and unscored cases and the crashing one's answered-only GFS beside, and
 * `rge gate` (reading summary.json) counts the failures as 0. A judge's failure (an unscored case) and a
 * case the run stopped before (the budget cap) are not the subject's: they stay out.
 */
import { describe, expect, it } from 'vitest';
import { compareRuns, GateSummary } from '../../src/gate/gate.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { answerSection } from '../../src/report/sections/answer.ts';
import { type Summary, summarise } from '../../src/report/summary.ts';
import type { CaseErrorView, CaseRowView } from '../../src/report/views.ts';
import { scoredCell } from './scored-cell.ts';

const QUESTIONS = 40;
const RUNS = 2;
const run = { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' };
/** The questions the crashing system gives no answer for: every 7th, the hard ones. */
const crashes = (q: number) => q % 7 === 0;
const CRASHED = Array.from({ length: QUESTIONS }, (_, q) => q).filter(crashes).length * RUNS;

/** Both systems' answers, judged alike: the hard questions (every 7th) half right, the rest right. */
const scores = (q: number): [number, number, number] =>
  crashes(q) ? [1, 1, 1] : q % 3 === 0 ? [2, 1, 2] : [2, 2, 2];

/** A system's rows and failed cases; `crashing` gives no answer on the hard questions. */
function system(id: string, crashing: boolean): { rows: CaseRowView[]; errors: CaseErrorView[] } {
  const rows: CaseRowView[] = [];
  const errors: CaseErrorView[] = [];
  for (let q = 0; q < QUESTIONS; q++)
    for (let r = 0; r < RUNS; r++) {
      const cell = scoredCell(id, q, r, scores(q));
      if (!(crashing && crashes(q))) {
        rows.push(cell);
        continue;
      }
      errors.push({
        name: `${id} › ${cell.category} › ${cell.question_id} › run ${r}`,
        message: `${id}/${cell.question_id}/run ${r}: no answer: command app.py: question ${cell.question_id}: the program exited with code 3`,
        subject_id: id,
        question_id: cell.question_id,
        run_index: r,
        category: cell.category,
        by: 'subject',
      });
    }
  return { rows, errors };
}

const healthy = system('healthy', false);
const crashy = system('crashy', true);
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const gfsOf = (rows: readonly CaseRowView[]) => rows.map((r) => r.scores.gfsPrimary as number);

function report(errors: readonly CaseErrorView[], rows = [...healthy.rows, ...crashy.rows]): Summary {
  return summarise(rows, { seed: 'crash', resamples: 1000, run, errors });
}

describe("a subject's own failure (no answer) in the ranking", () => {
  const s = report(crashy.errors);

  it('scores each failure 0: the healthy system ranks first, its lead over the crashing one real', () => {
    // left out, the crashes would raise the crashing system above the healthy one
    expect(mean(gfsOf(crashy.rows))).toBeGreaterThan(mean(gfsOf(healthy.rows)));
    expect(s.ranking.primary).toEqual(['healthy', 'crashy']);
    const all = s.gfs.crashy?.all?.primary;
    expect(all?.n).toBe(QUESTIONS * RUNS);
    expect(all?.estimate).toBeCloseTo(mean([...gfsOf(crashy.rows), ...Array(CRASHED).fill(0)]), 12);
    expect(s.ranks?.primary.find((g) => g.group === 'healthy')?.probabilityFirst).toBeGreaterThan(0.95);
    // each dimension 0 too: the pairwise tests read them
    const [pair] = s.pairwise;
    expect(pair).toMatchObject({ a: 'crashy', b: 'healthy', n: QUESTIONS * RUNS });
    expect(pair?.correctness?.difference).toBeCloseTo((-CRASHED * 1) / (QUESTIONS * RUNS), 12);
    expect(pair?.gfs?.pBonferroni).toBeLessThan(0.05);
    expect(s.cases).toMatchObject({ total: QUESTIONS * RUNS * 2 - CRASHED, failed: CRASHED });
  });

  it("shows each subject's failed and unscored cases on the first screen, and the crashing one's answered-only GFS", () => {
    const md = answerSection(s);
    expect(md).toContain(
      '| rank | subject | GFS, 95% interval | answered only | P(ranks first) | rank interval | failed (no answer) | unscored |',
    );
    const row = (m: string) => md.find((l) => l.startsWith(`| ${s.ranking.primary.indexOf(m) + 1} | ${m} |`));
    const answered = s.outcomes.crashy?.answeredOnly?.primary;
    expect(answered?.estimate).toBeCloseTo(mean(gfsOf(crashy.rows)), 12);
    expect(answered?.n).toBe(crashy.rows.length);
    const f3 = (x: number | undefined) => (x ?? Number.NaN).toFixed(3);
    expect(row('crashy')).toContain(
      `| ${f3(answered?.estimate)} [${f3(answered?.low)}, ${f3(answered?.high)}] |`,
    );
    expect(row('crashy')).toMatch(new RegExp(`\\| ${CRASHED} \\| 0 \\|$`));
    expect(row('healthy')).toMatch(/\| as GFS \| .* \| 0 \| 0 \|$/);
    expect(s.outcomes.healthy?.answeredOnly).toBeNull();
    expect(md.join('\n')).toContain(
      'Failed: cases the subject gave no answer for (its own failure), scored 0',
    );
  });

  it('states the rule where the definitions are, and marks each failure under Errors', () => {
    const md = renderMarkdown(s);
    expect(md).toContain(
      "A subject's own failure (it gave no answer: a crash, a timeout, a non-zero exit, a malformed reply, an HTTP error, a contract violation) is a wrong answer for the user: it scores 0",
    );
    expect(md).toContain(
      `${CRASHED} errors (cases without a result: ${CRASHED} the subject gave no answer for`,
    );
    expect(md).toContain(
      "- crashy › grounded-direct › q-00 › run 0 (the subject's failure: no answer, scored 0): crashy/q-00/run 0: no answer:",
    );
    expect(md).toContain(`the subjects gave no answer for ${CRASHED} cases`);
  });

  it("leaves out a judge's failure (unscored) and a case the run stopped before, as before", () => {
    const unscored = scoredCell('healthy', 1, 0, [2, 2, 2]);
    const rows = [
      ...healthy.rows.filter((r) => !(r.question_id === 'q-01' && r.run_index === 0)),
      {
        ...unscored,
        verdicts: [],
        scores: {
          ...unscored.scores,
          unscored: true,
          gfsPrimary: null,
          gfsEqual: null,
          correctness: null,
          grounding: null,
          calibration: null,
        },
      },
      ...crashy.rows,
    ].filter((r) => !(r.subject_id === 'healthy' && r.question_id === 'q-02' && r.run_index === 1));
    const stopped: CaseErrorView = {
      name: 'healthy › adversarial › q-02 › run 1',
      message: 'healthy/q-02/run 1: no answer: the budget cap of $1 is reached',
      subject_id: 'healthy',
      question_id: 'q-02',
      run_index: 1,
      category: 'adversarial',
      by: 'run',
    };
    const t = report([...crashy.errors, stopped], rows);
    expect(t.gfs.healthy?.all?.primary?.n).toBe(QUESTIONS * RUNS - 2);
    expect(t.outcomes.healthy).toMatchObject({ unscored: 1, failed: 0, notComputed: 1 });
    expect(t.diagnostics.errors.count).toBe(CRASHED + 1);
    expect(t.diagnostics.cells.filter((c) => c.subject === 'healthy')).toHaveLength(QUESTIONS * RUNS - 1);
    const md = answerSection(t).join('\n');
    expect(md).toMatch(/\| healthy \| .* \| 0 \| 1 \|$/m);
    expect(md).toContain('1 case of these subjects has no result for other reasons');
  });
});

describe("rge gate counts a subject's own failures as 0", () => {
  // the baseline: the same system before it crashed (summary.json as written, read as the gate reads it)
  const asWritten = (x: Summary) => GateSummary.parse(JSON.parse(JSON.stringify(x)));
  const before = summarise(system('crashy', false).rows, { seed: 'crash', resamples: 200, run });
  const after = summarise(crashy.rows, { seed: 'crash', resamples: 200, run, errors: crashy.errors });

  it('pairs the failed cells at GFS 0 and finds the regression, saying how many there were', () => {
    const current = asWritten(after);
    expect(current.diagnostics.cells.filter((c) => c.failed)).toHaveLength(CRASHED);
    const result = compareRuns(asWritten(before), current, { resamples: 2000 });
    const overall = result.rows.find((r) => r.slice === 'overall');
    expect(overall?.cells).toBe(QUESTIONS * RUNS);
    const lost = before.diagnostics.cells.filter((c) => crashes(Number(c.question_id.slice(2))));
    expect(overall?.delta).toBeCloseTo(
      -mean(lost.map((c) => c.gfs as number)) * (CRASHED / (QUESTIONS * RUNS)),
      12,
    );
    expect(overall?.verdict).toBe('regression');
    expect(result.passed).toBe(false);
    expect(result.failedCells).toEqual([{ subject: 'crashy', baseline: 0, current: CRASHED }]);
  });
});
