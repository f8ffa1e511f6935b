/**
 * Inter-judge agreement in the report: per subject, the mean over subjects, and per judge pair on the
 * whole run and on the labelled responses, each with n and an interval; a labelled figure that differs
 * from the run's is flagged only when it rests on enough responses.
 */
import { describe, expect, it } from 'vitest';
import { interJudgeAgreement } from '../../src/report/diagnostics.ts';
import type { CaseRowView } from '../../src/report/views.ts';
import { cohenKappa, krippendorffAlpha } from '../../src/stats/index.ts';

const verdict = (c: number) => ({
  correctness: { score: c },
  grounding: { score: 2 },
  calibration: { score: c === 0 ? 0 : 2 },
});

/** A row of subject `s` on question `q`, run `run`, its two judges giving correctness a and b. */
function row(s: string, q: number, run: number, a: number, b: number): CaseRowView {
  return {
    subject_id: s,
    question_id: `q${q}`,
    run_index: run,
    answer_key: `${s}/${q}/${run}`,
    verdicts: [
      { judgeId: 'j1', verdict: verdict(a) },
      { judgeId: 'j2', verdict: verdict(b) },
    ],
  } as unknown as CaseRowView;
}

describe('interJudgeAgreement', () => {
  // 60 questions x 3 runs: the judges agree on 5 questions of 6 (the same on every run of a question)
  const rows = Array.from({ length: 60 }, (_, q) =>
    [0, 1, 2].map((run) => row(q % 2 ? 'x' : 'y', q, run, q % 3, q % 6 === 5 ? (q + 1) % 3 : q % 3)),
  ).flat();
  const bySubject = new Map([
    ['x', rows.filter((r) => r.subject_id === 'x')],
    ['y', rows.filter((r) => r.subject_id === 'y')],
  ]);
  const scores = (rs: readonly CaseRowView[], i: 0 | 1) =>
    rs.map((r) => r.verdicts[i]?.verdict?.correctness.score ?? 0);

  it('per subject, their mean, and the pair pooled, each with n and an interval holding it', () => {
    const a = interJudgeAgreement(bySubject, []);
    const kx = cohenKappa(scores(bySubject.get('x') ?? [], 0), scores(bySubject.get('x') ?? [], 1));
    const ky = cohenKappa(scores(bySubject.get('y') ?? [], 0), scores(bySubject.get('y') ?? [], 1));
    expect(a.bySubject.x?.dimensions.correctness).toMatchObject({ n: 90, kappa: kx });
    expect(a.mean.correctness.kappa).toBeCloseTo((kx + ky) / 2, 12);
    const pooled = cohenKappa(scores(rows, 0), scores(rows, 1));
    const [pair] = a.byPair;
    expect(pair?.main.correctness).toMatchObject({ n: 180, kappa: pooled });
    for (const cell of [a.bySubject.x?.dimensions.correctness, a.mean.correctness, pair?.main.correctness]) {
      expect(cell?.low).toBeLessThanOrEqual(cell?.kappa ?? Number.NaN);
      expect(cell?.high).toBeGreaterThanOrEqual(cell?.kappa ?? Number.NaN);
      expect((cell?.high ?? 0) - (cell?.low ?? 0)).toBeGreaterThan(0);
    }
  });

  it('beside each kappa, the quadratic-weighted kappa and ordinal alpha with their intervals', () => {
    const a = interJudgeAgreement(bySubject, []);
    const x = bySubject.get('x') ?? [];
    const cell = a.bySubject.x?.dimensions.correctness;
    expect(cell?.quadraticKappa.value).toBeCloseTo(
      cohenKappa(scores(x, 0), scores(x, 1), { labels: [0, 1, 2], weights: 'quadratic' }),
      12,
    );
    expect(cell?.alpha.value).toBeCloseTo(
      krippendorffAlpha([scores(x, 0), scores(x, 1)], { level: 'ordinal', values: [0, 1, 2] }),
      12,
    );
    for (const f of [cell?.quadraticKappa, cell?.alpha, a.mean.correctness.alpha]) {
      expect(f?.low).toBeLessThanOrEqual(f?.value ?? Number.NaN);
      expect(f?.high).toBeGreaterThanOrEqual(f?.value ?? Number.NaN);
    }
    // the judges' misses here are 2-vs-0 (q % 3 = 2 read as 0): the ordinal measures charge them more
    expect(cell?.quadraticKappa.value).toBeLessThan(cell?.kappa ?? Number.NaN);
  });

  it('resamples questions, not responses: three identical runs do not narrow the interval', () => {
    const once = rows.filter((r) => r.run_index === 0);
    const thrice = interJudgeAgreement(new Map([['all', rows]]), []).byPair[0]?.main.correctness;
    const single = interJudgeAgreement(new Map([['all', once]]), []).byPair[0]?.main.correctness;
    expect(thrice?.kappa).toBeCloseTo(single?.kappa ?? Number.NaN, 12);
    expect(thrice?.n).toBe(3 * (single?.n ?? 0));
    // same question draws, same tables up to a factor of 3: the same interval
    expect(thrice?.low).toBeCloseTo(single?.low ?? Number.NaN, 12);
    expect(thrice?.high).toBeCloseTo(single?.high ?? Number.NaN, 12);
  });

  it('flags a labelled figure that diverges from the run only on enough labelled responses', () => {
    // people labelled the responses where the judges disagree most: 30 of them, and then 3
    const disagreeing = rows.filter((r) => Number(r.question_id.slice(1)) % 6 === 5);
    const agreeing = rows.filter((r) => Number(r.question_id.slice(1)) % 6 !== 5);
    const labelled = [...disagreeing, ...agreeing]
      .slice(0, 30)
      .map((r) => ({ answer_key: r.answer_key as string }));
    const many = interJudgeAgreement(bySubject, labelled).byPair[0];
    expect(many?.labelled?.correctness.n).toBe(30);
    expect(many?.divergent).toContain('correctness');
    const few = interJudgeAgreement(bySubject, labelled.slice(0, 3)).byPair[0];
    expect(few?.labelled?.correctness.n).toBe(3);
    expect(few?.divergent).toEqual([]);
  });
});
