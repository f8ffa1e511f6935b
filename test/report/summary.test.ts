import { describe, expect, it } from 'vitest';
import { gfsChartSvg, renderMarkdown } from '../../src/report/markdown.ts';
import { type CaseRowView, summarise } from '../../src/report/summary.ts';
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

  it('counts discordant questions for McNemar and corrects the p-value', () => {
    const [p] = summary.pairwise;
    // weak fails questions 0-11 (GFS primary 0.125 < 0.5) that good passes; none the other way.
    expect(p).toMatchObject({ a: 'good', b: 'weak', n10: 12, n01: 0 });
    expect(p?.pValue).toBeCloseTo(2 * 0.5 ** 12, 12);
    expect(p?.pBonferroni).toBe(p?.pValue); // one pair
  });

  it('measures inter-judge agreement per dimension with Cohen kappa over the two judges', () => {
    const a = rows.map((r) => r.verdicts[0]?.verdict?.correctness.score ?? 0);
    const b = rows.map((r) => r.verdicts[1]?.verdict?.correctness.score ?? 0);
    expect(summary.judgeAgreement.correctness?.kappa).toBeCloseTo(
      cohenKappa(a, b, { labels: [0, 1, 2] }),
      12,
    );
    expect(summary.judgeAgreement.correctness?.n).toBe(120);
  });

  it('lists contested cases, check pass rates and latency percentiles', () => {
    expect(summary.contested).toHaveLength(3); // weak, question 5, three runs
    expect(summary.checkPassRates.good?.numbersTraced).toEqual({ passed: 39, applicable: 60, rate: 39 / 60 });
    expect(summary.checkPassRates.good?.mustInclude?.rate).toBeNull();
    expect(summary.latency.good?.p50).toBeCloseTo(19.5, 12);
    expect(summary.variance.good?.runs).toBe(3);
  });

  it('is reproducible from the same rows and seed', () => {
    const again = summarise(rows, { seed: 'test', resamples: 2000, run: summary.run });
    expect(again).toEqual(summary);
  });

  it('renders a markdown report with every section and an SVG chart', () => {
    const md = renderMarkdown(summary, { chartFile: 'gfs.svg' });
    for (const heading of [
      '## Grounding Fidelity Score',
      '## Ranking',
      '## Pairwise comparison',
      '## Variance across runs',
      '## Inter-judge agreement',
      '## Deterministic checks',
      '## Latency and cost',
      '## Contested responses and their review',
    ])
      expect(md).toContain(heading);
    expect(md).toContain('![GFS per model and category](gfs.svg)');
    expect(gfsChartSvg(summary)).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
  });
});
