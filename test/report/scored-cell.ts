/**
 * A hand-built scored case row for the report's and the planner's tests: both judges agree on the
 * rubric scores (c, g, k), GFS from the methodology's weights, category by question number.
 */
import type { CaseRowView } from '../../src/report/views.ts';

export const CATEGORIES = ['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain'] as const;

const verdict = (c: number, g: number, k: number) => ({
  correctness: { score: c },
  grounding: { score: g },
  calibration: { score: k },
});

/** Question `q` (id q-NN, category CATEGORIES[q % 4]), run `run`, judged (c, g, k), costing `cost`. */
export function scoredCell(
  subject: string,
  q: number,
  run: number,
  [c, g, k]: [number, number, number],
  cost = 0,
): CaseRowView {
  return {
    question_id: `q-${String(q).padStart(2, '0')}`,
    category: CATEGORIES[q % 4] as string,
    subject_id: subject,
    model: subject,
    run_index: run,
    subject_prompt_hash: 'sp',
    judge_prompt_hash: 'jp',
    latency_ms: 1,
    cost_usd: cost,
    answer_key: `${subject}/${q}/${run}`,
    verdicts: [
      { judgeId: 'j1', family: 'f1', status: 'scored', verdict: verdict(c, g, k) },
      { judgeId: 'j2', family: 'f2', status: 'scored', verdict: verdict(c, g, k) },
    ],
    scores: {
      correctness: c,
      grounding: g,
      calibration: k,
      gfsPrimary: (0.4 * g + 0.35 * c + 0.25 * k) / 2,
      gfsEqual: (c + g + k) / 6,
      unscored: false,
      contested: false,
      contestedDimensions: [],
    },
    checks: {},
  };
}
