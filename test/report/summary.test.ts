import { describe, expect, it } from 'vitest';
import { gfsChartSvg } from '../../src/report/chart-svg.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import type { CaseRowView } from '../../src/report/views.ts';
import { cohenKappa } from '../../src/stats/index.ts';

const verdict = (c: number, g: number, k: number) => ({
  correctness: { score: c },
  grounding: { score: g },
  calibration: { score: k },
});

function row(
  subject: string,
  q: number,
  run: number,
  c: number,
  g: number,
  k: number,
  other = { c, g, k },
): CaseRowView {
  const mean = (x: number, y: number) => (x + y) / 2;
  const [cm, gm, km] = [mean(c, other.c), mean(g, other.g), mean(k, other.k)];
  const contested = [Math.abs(c - other.c), Math.abs(g - other.g), Math.abs(k - other.k)].some((d) => d > 1);
  return {
    question_id: `q-${q}`,
    category: q % 2 === 0 ? 'grounded-direct' : 'out-of-domain',
    subject_id: subject,
    model: subject,
    run_index: run,
    subject_prompt_hash: 'sp',
    judge_prompt_hash: 'jp',
    latency_ms: 10 + q,
    cost_usd: 0,
    verdicts: [
      { judgeId: 'j1', family: 'f1', status: 'scored', verdict: verdict(c, g, k) },
      { judgeId: 'j2', family: 'f2', status: 'scored', verdict: verdict(other.c, other.g, other.k) },
    ],
    scores: {
      correctness: cm,
      grounding: gm,
      calibration: km,
      gfsPrimary: (0.4 * gm + 0.35 * cm + 0.25 * km) / 2,
      gfsEqual: (cm + gm + km) / 6,
      unscored: false,
      contested,
      contestedDimensions: contested ? ['correctness'] : [],
    },
    checks: {
      numbersTraced: { passed: q % 3 !== 0 },
      latency: { passed: true },
      mustInclude: { passed: null },
    },
  };
}

const rows: CaseRowView[] = [];
for (let q = 0; q < 20; q++) {
  for (let run = 0; run < 3; run++) {
    rows.push(row('good', q, run, 2, 2, q === 3 && run === 0 ? 1 : 2));
    rows.push(
      row('weak', q, run, q < 12 ? 0 : 2, q < 12 ? 0 : 2, 1, q === 5 ? { c: 2, g: 0, k: 1 } : undefined),
    );
  }
}
const summary = summarise(rows, {
  seed: 'test',
  resamples: 2000,
  run: { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' },
});

describe('summarise', () => {
  it('reports mean GFS with an interval that contains it, per model and category', () => {
    const good = summary.gfs.good?.all?.primary;
    const expected =
      rows.filter((r) => r.subject_id === 'good').reduce((s, r) => s + (r.scores.gfsPrimary ?? 0), 0) / 60;
    expect(good?.estimate).toBeCloseTo(expected, 12);
    expect(good?.low).toBeLessThanOrEqual(expected);
    expect(good?.high).toBeGreaterThanOrEqual(expected);
    expect(summary.gfs.weak?.['grounded-direct']?.equal?.n).toBe(30);
  });

  it('ranks the models under both weightings and calls the ranking robust when intervals separate', () => {
    expect(summary.ranking.primary).toEqual(['good', 'weak']);
    expect(summary.ranking.equal).toEqual(['good', 'weak']);
    expect(summary.ranking.robust).toBe(true);
  });

  it('pass/fail: McNemar on binarised correctness at the (question, run) level, Bonferroni-corrected', () => {
    const [p] = summary.pairwise;
    // weak's mean correctness is below 1.5 on questions 0-11 in every run (36 cells) where good's is 2;
    // question 5 has one judge saying 2 and one 0 (mean 1): still not correct. None the other way.
    expect(p).toMatchObject({ a: 'good', b: 'weak', n: 60, questions: 20 });
    expect(p?.passFail).toMatchObject({ n10: 36, n01: 0 });
    // 36 discordant pairs: the chi-square test with continuity correction, (|36 - 0| - 1)^2 / 36 = 34.03
    expect(p?.passFail?.method).toMatch(/chi/);
    expect(p?.passFail?.pValue).toBeGreaterThan(5.4e-9);
    expect(p?.passFail?.pValue).toBeLessThan(5.5e-9);
    expect(p?.passFail?.pBonferroni).toBe(p?.passFail?.pValue); // one pair
    expect(summary.pairwiseMethod).toMatchObject({ correction: 'bonferroni', family: 1 });
  });

  it('lists a pair with no cell scored by both (a run stopped by the cap) without testing it', () => {
    // three subjects: 'early' kept only question 0, 'late' only question 1 (no cell in common with
    // 'early'); 'all' shares a cell with each, so the family has two tests, not three
    const kept = [
      row('early', 0, 0, 2, 2, 2),
      row('late', 1, 0, 0, 0, 1),
      row('all', 0, 0, 0, 0, 1),
      row('all', 1, 0, 2, 2, 2),
    ];
    const s = summarise(kept, { seed: 't', resamples: 200, run: summary.run });
    const pair = (a: string, b: string) => s.pairwise.find((p) => p.a === a && p.b === b);
    const none = pair('early', 'late') ?? pair('late', 'early');
    expect(none).toMatchObject({ n: 0, questions: 0, gfs: null, grounding: null, passFail: null });
    const tested = s.pairwise.filter((p) => p.gfs !== null);
    expect(tested).toHaveLength(2);
    expect(s.pairwiseMethod.family).toBe(2);
    for (const p of tested) {
      expect(p.gfs?.pBonferroni).toBe(Math.min(1, 2 * (p.gfs?.pValue as number)));
      expect(p.passFail?.pBonferroni).toBe(Math.min(1, 2 * (p.passFail?.pValue as number)));
    }
    const md = renderMarkdown(s);
    expect(md).toMatch(/\| early \| late \| 0 \| 0 \| - \| - \| - \| - \| - \| - \| - \|/);
    expect(md).toMatch(/\| 0 \| 0 \| 0 \| - \| - \| none \(no cell scored by both\) \|/);
  });

  it('measures inter-judge agreement per subject (its two judges), the mean over subjects, and per judge pair, each with n and an interval', () => {
    const weak = rows.filter((r) => r.subject_id === 'weak');
    const a = weak.map((r) => r.verdicts[0]?.verdict?.correctness.score ?? 0);
    const b = weak.map((r) => r.verdicts[1]?.verdict?.correctness.score ?? 0);
    const kWeak = cohenKappa(a, b, { labels: [0, 1, 2] });
    const cell = summary.judgeAgreement.bySubject.weak?.dimensions.correctness;
    expect(cell).toMatchObject({ n: 60, kappa: kWeak, seed: 'inter-judge:weak:correctness' });
    expect(cell?.low).toBeLessThan(kWeak);
    expect(cell?.high).toBeGreaterThan(kWeak);
    // good's judges always say 2 on correctness: kappa undefined, left out of the mean
    const good = summary.judgeAgreement.bySubject.good?.dimensions.correctness;
    expect(good?.kappa).toBeNaN();
    expect(good?.low).toBeNull();
    expect(summary.judgeAgreement.mean.correctness.kappa).toBeCloseTo(kWeak, 12);
    expect(summary.judgeAgreement.mean.correctness.n).toBe(rows.length);
    expect(summary.judgeAgreement.bySubject.weak?.judges).toEqual(['j1', 'j2']);
    // one pair judged every subject: pooled over them, its own figure, no labelled responses
    const [pair, ...others] = summary.judgeAgreement.byPair;
    expect(others).toHaveLength(0);
    expect(pair?.judges).toEqual(['j1', 'j2']);
    expect(pair?.main.correctness.kappa).toBeCloseTo(
      cohenKappa(
        rows.map((r) => r.verdicts[0]?.verdict?.correctness.score ?? 0),
        rows.map((r) => r.verdicts[1]?.verdict?.correctness.score ?? 0),
        { labels: [0, 1, 2] },
      ),
      12,
    );
    expect(pair?.labelled).toBeNull();
    const md = renderMarkdown(summary);
    expect(md).toMatch(/\| subject weak \| j1 \/ j2 \| \d\.\d{3} \[-?\d\.\d{3}, \d\.\d{3}\] \|/);
    expect(md).toContain('BCa 95% interval');
  });

  it('reports retrieval hits per category (per question), the worst cases in detail, errors, and partial runs', () => {
    const withHits = rows.map((r) => ({
      ...r,
      retrieval_hit: r.category === 'out-of-domain' ? null : Number(r.question_id.slice(2)) % 4 !== 0,
      answer: 'Revenue was Rs 5 crore [a-FY24-1].',
      retrieved_ids: ['a-FY24-1', 'a-FY24-2'],
    }));
    const s2 = summarise(withHits, {
      seed: 'test',
      resamples: 200,
      run: { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' },
      cells: 130,
      errors: [{ name: 'weak > q-99 > run 0', message: 'budget cap reached' }],
    });
    // grounded-direct questions are the even ones (10): those divisible by 4 (0, 4, 8, 12, 16) missed
    expect(s2.diagnostics.retrieval['grounded-direct']).toEqual({ questions: 10, hits: 5, rate: 0.5 });
    expect(s2.diagnostics.retrieval['out-of-domain']).toBeUndefined();
    const worstWeak = s2.diagnostics.drilldown.filter((c) => c.subject === 'weak' && c.why === 'worst');
    expect(worstWeak).toHaveLength(5);
    expect(worstWeak[0]).toMatchObject({
      question_id: 'q-0',
      cited: ['a-FY24-1'],
      gfs: withHits[1]?.scores.gfsPrimary,
    });
    expect(worstWeak[0]?.verdicts[0]?.scores).toEqual({ correctness: 0, grounding: 0, calibration: 1 });
    expect(s2.diagnostics.errors.count).toBe(1);
    // 120 rows + 1 error (a case that ran and failed) of 130 cells: 121 cases, partial
    expect(s2.partial).toEqual({ cases: 121, cells: 130 });
    const md = renderMarkdown(s2);
    expect(md).toMatch(/\*\*Partial report\*\*: 121 of the run's 130 cases/);
    expect(md).toContain('## Retrieval: a gold chunk in the top k');
    expect(md).toContain('| grounded-direct | 10 | 5 | 50.0% |');
    expect(md).toContain('## Where the models fail: the worst and the contested cases');
    expect(md).toContain('### weak/q-0/run 0 (grounded-direct, worst, GFS');
    expect(md).toContain('## Errors: 1');
    expect(md).toContain('- weak > q-99 > run 0: budget cap reached');
    expect(summarise(withHits, { seed: 't', resamples: 200, run: s2.run, cells: 120 }).partial).toBeNull();
    // every cell accounted for, 10 of them as errors: a full report with its errors listed
    const errors = Array.from({ length: 10 }, (_, i) => ({
      name: `weak > q-${i} > run 9`,
      message: 'budget cap reached',
    }));
    expect(
      summarise(withHits, { seed: 't', resamples: 200, run: s2.run, cells: 130, errors }).partial,
    ).toBeNull();
  });

  it('lists contested cases, check pass rates and latency percentiles', () => {
    expect(summary.contested).toHaveLength(3); // weak, question 5, three runs
    expect(summary.validation.contested).toHaveLength(3);
    expect(summary.checkPassRates.good?.numbersTraced).toEqual({ passed: 39, applicable: 60, rate: 39 / 60 });
    expect(summary.checkPassRates.good?.mustInclude?.rate).toBeNull();
    expect(summary.latency.good?.p50).toBeCloseTo(19.5, 12);
    expect(summary.variance.good?.runs).toBe(3);
  });

  it('is reproducible from the same rows and seed', () => {
    const again = summarise(rows, { seed: 'test', resamples: 2000, run: summary.run });
    expect(again).toEqual(summary);
  });

  it('renders a markdown report with every section, the answer first and what was run last, and an SVG chart', () => {
    const md = renderMarkdown(summary, { chartFile: 'gfs.svg' });
    const headings = [
      '## The answer: who is best, by how much, and is it real',
      '## Where the models fail, by kind',
      '## Grounding Fidelity Score',
      '## Judge-error-corrected GFS',
      '## Ranking',
      '## Pairwise comparison',
      '## Variance across runs',
      '## Inter-judge agreement',
      '## Deterministic checks',
      '## Latency and cost',
      '## Judges against people',
      '## Contested responses and their review',
      '## Where the models fail: the worst and the contested cases',
      '## Errors: 0',
      '## What was run',
    ];
    const at = headings.map((h) => md.indexOf(h));
    for (const [i, h] of headings.entries()) expect(at[i], h).toBeGreaterThan(0);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // the answer is the first section; what was run is the last
    expect(md.match(/^## .*/m)?.[0]).toBe(headings[0]);
    expect(md.slice(md.indexOf('## What was run') + 3)).not.toMatch(/^## /m);
    expect(md).toContain('![GFS per model and category](gfs.svg)');
    expect(gfsChartSvg(summary)).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
  });
});

describe('questions whose gold is not traced to a source here', () => {
  const run = { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' };
  it('get a GFS column of their own: "traced" leaves them out', () => {
    // q-0 and q-1 untraced and scored 0; the other questions scored 2 on every dimension
    const marked = rows
      .filter((r) => r.subject_id === 'good')
      .map((r) =>
        r.question_id === 'q-0' || r.question_id === 'q-2'
          ? {
              ...row('good', Number(r.question_id.slice(2)), r.run_index, 0, 0, 0),
              gold_untraced: true as const,
            }
          : r,
      );
    const s = summarise(marked, { seed: 'u', resamples: 200, run });
    const traced = s.gfs.good?.traced?.primary;
    const all = s.gfs.good?.all?.primary;
    expect(traced?.n).toBe(marked.filter((r) => !r.gold_untraced).length);
    expect(all?.n).toBe(marked.length);
    expect(traced?.estimate).toBeGreaterThan(all?.estimate ?? 1);
    expect(renderMarkdown(s)).toMatch(
      /\| subject \| weighting \| grounded-direct \| out-of-domain \| all \| traced \|/,
    );
  });

  it('add no column to a run without them', () => {
    expect(summary.gfs.good?.traced).toBeUndefined();
    expect(renderMarkdown(summary)).not.toMatch(/\| traced \|/);
  });
});

describe('"Where the models fail"', () => {
  const run = { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' };
  const explained = rows.map((r) => ({
    ...r,
    expected_behavior: r.category === 'out-of-domain' ? 'refuse' : 'answer',
    question: {
      text: `What is ${r.question_id}?`,
      gold_answer: `gold of ${r.question_id}`,
      gold_quotes: [`quote of ${r.question_id}`],
    },
  }));
  const s = summarise(explained, { seed: 'd', resamples: 200, run });

  it('lists each (subject, question) once: its worst run, and contested cases not already listed', () => {
    const keys = s.diagnostics.drilldown.map((c) => `${c.subject}/${c.question_id}`);
    expect(new Set(keys).size).toBe(keys.length);
    // weak scores 0 on q-0..q-11 in every run: five distinct questions, not one question's three runs
    const worstWeak = s.diagnostics.drilldown.filter((c) => c.subject === 'weak' && c.why === 'worst');
    expect(worstWeak.map((c) => c.question_id)).toEqual(['q-0', 'q-1', 'q-10', 'q-11', 'q-2']);
  });

  it('shows the question, the expected behaviour, the gold answer and quotes beside the answer', () => {
    const md = renderMarkdown(s);
    const at = md.indexOf('### weak/q-0/run 0');
    expect(at).toBeGreaterThan(0);
    const block = md.slice(at, md.indexOf('###', at + 3));
    expect(block).toContain('Question: What is q-0? Expected: answer.');
    // the gold answer and each gold quote on lines of their own
    expect(block).toContain('Gold answer: gold of q-0\n\nGold quotes:\n\n- "quote of q-0"\n');
    expect(block.indexOf('Gold answer')).toBeLessThan(block.indexOf('> '));
  });
});
