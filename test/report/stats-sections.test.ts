/**
 * The report's sections of issue 23 on hand-built rows: the judge-error-corrected GFS (inclusion
 * weights of the stratified sample, the people's GFS with the run's weights, the flag), the MDD of each
 * pairwise comparison at the Bonferroni level, the inputs of `rge plan`, and the ranking's probabilities.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { answerSection } from '../../src/report/sections/answer.ts';
import { summarise } from '../../src/report/summary.ts';
import type { CaseRowView } from '../../src/report/views.ts';
import { minimalDetectableDifference, nestedComponents } from '../../src/stats/index.ts';
import type { LabelView } from '../../src/validation/summary.ts';
import { scoredCell } from './scored-cell.ts';

const cell = scoredCell;

/** 40 questions (10 per category) x 2 runs; the judges score each question's level, runs differ a little. */
function subjectRows(subject: string, shift: number, cost = 0): CaseRowView[] {
  const out: CaseRowView[] = [];
  for (let q = 0; q < 40; q++)
    for (let run = 0; run < 2; run++) {
      const c = Math.min(2, Math.max(0, ((q * 7) % 3) + shift));
      const g = Math.min(2, (q + run) % 3 === 0 ? 1 : 2);
      out.push(cell(subject, q, run, [c, g, run === 0 ? 2 : 1], run === 0 ? 3 * cost : cost));
    }
  return out;
}

/**
 * People label a stratified sample, one run of each question drawn (runs alternate): 3 direct, 3 multihop, 10 adversarial, 3 out-of-domain
 * (adversarial over-weighted, as 10/10/20/10). They agree with the judges except on adversarial cells,
 * where they give one point less correctness and grounding (the judges are optimistic there).
 */
function labelsFor(rows: readonly CaseRowView[], per: Record<string, number>): LabelView[] {
  const taken: Record<string, number> = {};
  const out: LabelView[] = [];
  for (const r of rows) {
    const q = Number(r.question_id.slice(2));
    if (r.run_index !== Math.floor(q / 4) % 2 || (taken[r.category] ?? 0) >= (per[r.category] ?? 0)) continue;
    taken[r.category] = (taken[r.category] ?? 0) + 1;
    const c = r.scores.correctness as number;
    out.push({
      answer_key: r.answer_key as string,
      labeller: 'ana',
      correctness: r.category === 'adversarial' ? Math.max(0, c - 1) : c,
      grounding:
        r.category === 'adversarial' ? (r.scores.grounding as number) - 1 : (r.scores.grounding as number),
      calibration: r.scores.calibration as number,
    });
  }
  return out;
}

const STRATA = { 'grounded-direct': 3, 'grounded-multihop': 3, adversarial: 10, 'out-of-domain': 3 };
const run = { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' };

describe('judge-error-corrected GFS', () => {
  const rows = subjectRows('a', 0);
  const labels = labelsFor(rows, STRATA);
  const s = summarise(rows, {
    seed: 't',
    resamples: 500,
    run,
    validation: { labels, reviews: [], minKappa: 0.75 },
  });
  const all = s.corrected.bySubject.a?.all;

  it('targets the whole run: inclusion weights undo the over-sampled adversarial stratum', () => {
    // the people's GFS is the judges' less 0.40 / 2 (grounding, always >= 1 here) and 0.35 / 2 (where
    // correctness is >= 1) on every adversarial cell
    const gap = (r: CaseRowView) =>
      r.category === 'adversarial' ? 0.2 + ((r.scores.correctness as number) >= 1 ? 0.175 : 0) : 0;
    const truth = rows.reduce((sum, r) => sum + (r.scores.gfsPrimary as number) - gap(r), 0) / rows.length;
    const labelled = rows.filter((r) => labels.some((l) => l.answer_key === r.answer_key));
    // the labelled cells' gap unweighted: adversarial counted at its sample share (10 of 19), not 1 in 4
    const unweighted = (all?.judgeOnly ?? 0) - labelled.reduce((x, r) => x + gap(r), 0) / labelled.length;
    expect(all?.judgeOnly).toBeCloseTo(s.gfs.a?.all?.primary?.estimate ?? Number.NaN, 12);
    expect(all?.labelled).toBe(19);
    expect(all?.cells).toBe(80);
    expect(all?.estimate).not.toBeNull();
    expect(Math.abs((all?.estimate ?? 0) - truth)).toBeLessThan(0.015);
    expect(Math.abs((all?.estimate ?? 0) - truth)).toBeLessThan(Math.abs(unweighted - truth));
    expect(all?.low).toBeLessThan(all?.estimate ?? 0);
    expect(all?.lambda).toBeGreaterThanOrEqual(0);
    expect(all?.lambda).toBeLessThanOrEqual(1);
  });

  it('flags a subject whose corrected interval excludes its judge-only GFS', () => {
    expect(all?.excludesJudgeOnly).toBe(true);
    expect((all?.high ?? 1) < (all?.judgeOnly ?? 0)).toBe(true);
    const md = renderMarkdown(s);
    expect(md).toContain('## Judge-error-corrected GFS (prediction-powered inference)');
    expect(md).toMatch(/inclusion probability/);
    expect(md).toMatch(/\| a \| judge-only \| [0-9.]+ \| [0-9.]+ \|/);
    expect(md).toMatch(/\| {2}\| corrected \| [0-9.]+ \[[0-9.]+, [0-9.]+\] ⚠ excludes the judges \|/);
    expect(md).toContain('Flagged: a (the corrected interval excludes the judge-only GFS).');
  });

  it('shows a category from 10 labelled cells (adversarial here), unweighted within it', () => {
    expect(Object.keys(s.corrected.bySubject.a ?? {}).sort()).toEqual(['adversarial', 'all']);
    const adv = s.corrected.bySubject.a?.adversarial;
    expect(adv).toMatchObject({ labelled: 10, cells: 20 });
  });

  it('people who agree with the judges leave the judges GFS where it was', () => {
    const agreeing = labels.map((l) => {
      const r = rows.find((x) => x.answer_key === l.answer_key) as CaseRowView;
      return { ...l, correctness: r.scores.correctness as number, grounding: r.scores.grounding as number };
    });
    const t = summarise(rows, {
      seed: 't',
      resamples: 200,
      run,
      validation: { labels: agreeing, reviews: [], minKappa: 0.75 },
    });
    const c = t.corrected.bySubject.a?.all;
    expect(c?.excludesJudgeOnly).toBe(false);
    expect(c?.estimate).toBeCloseTo(c?.judgeOnly ?? 0, 2);
  });

  it("several labellers: each dimension averaged; the run's GFS weights make the people's GFS", () => {
    const one = labels[0] as LabelView;
    const two = [one, { ...one, labeller: 'ben', grounding: Math.max(0, one.grounding - 1) }];
    const weights = { correctness: 0.5, grounding: 0.3, calibration: 0.2 };
    const t = summarise(rows, {
      seed: 't',
      resamples: 200,
      run,
      validation: { labels: [...two, ...labels.slice(1)], reviews: [], minKappa: 0.75 },
      gfsWeights: weights,
    });
    expect(t.corrected.weights).toEqual(weights);
    expect(t.corrected.bySubject.a?.all?.labelled).toBe(19);
  });

  it('says why when a category has no labelled cell, and when nothing is labelled', () => {
    const partial = labelsFor(rows, { ...STRATA, 'out-of-domain': 0 });
    const t = summarise(rows, {
      seed: 't',
      resamples: 200,
      run,
      validation: { labels: partial, reviews: [], minKappa: 0.75 },
    });
    expect(t.corrected.bySubject.a?.all).toMatchObject({
      estimate: null,
      reason: 'no labelled cell in out-of-domain: the correction cannot reach the whole run',
    });
    expect(renderMarkdown(t)).toContain('n/a (no labelled cell in out-of-domain');
    const none = summarise(rows, { seed: 't', resamples: 200, run });
    expect(none.corrected.bySubject).toEqual({});
    expect(renderMarkdown(none)).toMatch(/No scored response of this run has a human label/);
  });
});

describe('power: the MDD of each comparison, and the inputs of rge plan', () => {
  const rows = [...subjectRows('a', 0, 0.01), ...subjectRows('b', -1, 0.02), ...subjectRows('c', 1, 0)];
  const s = summarise(rows, { seed: 't', resamples: 500, run });

  it('per pair: the paired GFS difference and its MDD at the Bonferroni level (0.05 / 3)', () => {
    expect(s.power.family).toBe(3);
    const ab = s.power.comparisons.find((c) => c.a === 'a' && c.b === 'b');
    const byCell = new Map(
      rows.filter((r) => r.subject_id === 'b').map((r) => [`${r.question_id}/${r.run_index}`, r]),
    );
    const diffs = rows
      .filter((r) => r.subject_id === 'a')
      .map((r) => ({
        cluster: r.question_id,
        value:
          (r.scores.gfsPrimary as number) -
          ((byCell.get(`${r.question_id}/${r.run_index}`) as CaseRowView).scores.gfsPrimary as number),
      }));
    const c = nestedComponents(diffs);
    expect(ab?.difference).toBeCloseTo(c.mean, 15);
    expect(ab?.alpha).toBeCloseTo(0.05 / 3, 15);
    expect(ab?.mdd).toBeCloseTo(
      minimalDetectableDifference(c.standardError, { alpha: 0.05 / 3, df: c.questions - 1 }),
      15,
    );
    const md = renderMarkdown(s);
    expect(md).toContain('| a | b | paired cells | questions | GFS a − b | p | p (Bonferroni) | MDD |');
    const signedDiff = `${(ab?.difference ?? 0) >= 0 ? '+' : '−'}${Math.abs(ab?.difference ?? 0).toFixed(3)}`;
    const row = md.split('\n').find((l) => l.startsWith('| a | b | 80 | 40 |'));
    expect(row?.split(' | ').slice(4, 8)).toEqual([
      signedDiff,
      expect.stringMatching(/^(<0\.001|\d\.\d{3})$/),
      expect.stringMatching(/^(<0\.001|\d\.\d{3})$/),
      ab?.mdd?.toFixed(3),
    ]);
    expect(md).toMatch(/MDD: the minimal detectable difference in GFS/);
  });

  it('per subject: variance components and the cost of a first and a later run', () => {
    expect(s.power.subjects.a).toMatchObject({ questions: 40, cells: 80, runsPerQuestion: 2 });
    expect(s.power.subjects.a?.cost.firstRunUsd).toBeCloseTo(0.03, 15);
    expect(s.power.subjects.a?.cost.repeatRunUsd).toBeCloseTo(0.01, 15);
    expect(s.power.subjects.c?.cost).toMatchObject({
      firstRunUsd: 0,
      repeatRunUsd: 0,
      firstRunCells: 40,
      repeatRunCells: 40,
    });
    expect(s.power.subjects.a?.withinQuestionVariance).toBeGreaterThan(0);
  });

  it('the ranking: P(first) and rank intervals under both weightings, from the intervals seeds', () => {
    expect(s.ranks?.seeds).toEqual({ primary: 't:all:primary', equal: 't:all:equal' });
    const sum = (s.ranks?.primary ?? []).reduce((x, g) => x + g.probabilityFirst, 0);
    expect(sum).toBeCloseTo(1, 12);
    const best = s.ranks?.primary.find((g) => g.group === s.ranking.primary[0]);
    expect(best?.rank).toBe(1);
    const md = renderMarkdown(s);
    expect(md).toContain(
      '| subject | P(first), primary | rank interval, primary | P(first), equal | rank interval, equal |',
    );
    expect(md).toMatch(/\| c \| \d+\.\d% \| 1(–\d)? \|/);
    expect(summarise(subjectRows('a', 0), { seed: 't', resamples: 100, run }).ranks).toBeNull();
  });
});

describe('pairwise comparisons test the headline they report', () => {
  // the same answers, judged as right and as well calibrated, but one answers from the wrong contexts:
  // grounding 0 where the faithful one has 2, correctness (varying by question) as the faithful one's
  const rows: CaseRowView[] = [];
  for (let q = 0; q < 40; q++)
    for (let r = 0; r < 2; r++) {
      const c = q % 3 === 0 ? 1 : 2;
      rows.push(cell('faithful', q, r, [c, 2, 2]), cell('wrong-contexts', q, r, [c, 0, 2]));
    }
  const s = summarise(rows, { seed: 't', resamples: 500, run });
  const [p] = s.pairwise;

  it('a grounding-only difference of +0.4 GFS on 40 questions x 2 runs is significant (paired sign-flip test)', () => {
    expect(p).toMatchObject({ a: 'faithful', b: 'wrong-contexts', n: 80, questions: 40 });
    expect(p?.gfs?.difference).toBeCloseTo(0.4, 12);
    expect(p?.gfs?.pBonferroni).toBeLessThan(0.001);
    expect(p?.grounding?.difference).toBeCloseTo(2, 12);
    expect(p?.grounding?.pBonferroni).toBeLessThan(0.001);
    // correctness and calibration do not differ: nothing to find there
    expect(p?.correctness).toMatchObject({ difference: 0, pValue: 1 });
    expect(p?.calibration).toMatchObject({ difference: 0, pValue: 1 });
    expect(p?.gfs?.seed).toBe('t:pairwise:faithful:wrong-contexts:gfs');
    // the first screen's "significant" is the GFS test's
    expect(answerSection(s).find((l) => l.startsWith('| faithful − wrong-contexts |'))).toMatch(
      /^\| faithful − wrong-contexts \| \+0\.400 \| \*\*yes\*\* \| <0\.001 \| \d\.\d{3} \|$/,
    );
  });

  it('keeps McNemar for pass/fail, which cannot see it (the same cells are correct)', () => {
    expect(p?.passFail).toMatchObject({ n10: 0, n01: 0, pValue: 1, pBonferroni: 1 });
    const md = renderMarkdown(s);
    expect(md).toContain(
      '## Pairwise comparison (paired sign-flip test over questions, Bonferroni-corrected)',
    );
    expect(md).toMatch(/^\| faithful \| wrong-contexts \| 80 \| 0 \| 0 \| 1\.000 \| 1\.000 \| .*\|$/m);
    expect(md).toContain('Bonferroni-corrected over the 1 pair tested, each measure apart');
    expect(s.pairwiseMethod).toEqual({
      test: 'paired sign-flip test over questions',
      passFail:
        "McNemar on binarised correctness (a cell is correct when the judges' mean correctness is at least 1.5)",
      correction: 'bonferroni',
      family: 1,
      resamples: 9999,
    });
  });

  it('the MDD is of the same test, on the same cells', () => {
    const [c] = s.power.comparisons;
    expect(c).toMatchObject({ a: 'faithful', b: 'wrong-contexts', cells: p?.n, questions: p?.questions });
    expect(c?.difference).toBeCloseTo(p?.gfs?.difference ?? Number.NaN, 12);
    expect(renderMarkdown(s)).toContain(
      'the true difference the paired sign-flip test of GFS at the Bonferroni level',
    );
  });
});
