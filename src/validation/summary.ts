/**
 * The judges against people in a run's report (methodology 5.3-5.5). Pure: the run's case rows, the
 * people's labels and the reviewers' outcomes in (joined by `answer_key`), tables out.
 *
 * - Table 5.5: for every judge and dimension, Cohen's kappa between the judge's score and the people's
 *   on the labelled responses of this run (several labellers of one response: their median, ties to
 *   the lower score), with n and a BCa 95% interval over the labelled responses' questions; a cell
 *   below the pre-registered threshold (0.75) is flagged, and so is a cell whose kappa is undefined
 *   (people and judge gave one score only: agreement cannot be shown); fewer than KAPPA_MIN_N responses
 *   carry a warning.
 * - Contested responses (judges more than one point apart): the judges' mean beside the reviewed
 *   outcome, when a reviewer recorded one. The judges' raw outputs are never changed.
 */
import { cohenKappa, kappaInterval, pairAgreement } from '../stats/index.ts';
import { formatKappa, formatOrdinal, kappaFootnote, type OrdinalFigure } from './kappa-format.ts';

export type { OrdinalFigure } from './kappa-format.ts';

/** The pre-registered threshold of methodology 5.4: kappa >= 0.75 on every (judge x dimension) cell. */
export const VALIDATION_MIN_KAPPA = 0.75;

export const VALIDATION_DIMENSIONS = ['correctness', 'grounding', 'calibration'] as const;
export type ValidationDimension = (typeof VALIDATION_DIMENSIONS)[number];

export interface ScoredJudgeView {
  judgeId: string;
  verdict: Record<ValidationDimension, { score: number }> | null;
}

export interface ValidationRowView {
  /** absent in rows written before answers had keys: such rows join no label */
  answer_key?: string;
  question_id: string;
  subject_id: string;
  run_index: number;
  verdicts: readonly ScoredJudgeView[];
  scores: { contested: boolean; contestedDimensions: readonly string[] } & Record<
    ValidationDimension,
    number | null
  >;
}

export interface LabelView extends Record<ValidationDimension, number> {
  answer_key: string;
  labeller: string;
}

export interface ReviewRecordView {
  answer_key: string;
  reviewer: string;
  outcome: Record<ValidationDimension, number>;
  note: string;
}

export interface LabelKappa {
  judge: string;
  dimension: ValidationDimension;
  n: number;
  kappa: number;
  /** BCa 95% interval over the labelled responses' questions (`kappaInterval`); null where undefined */
  low: number | null;
  high: number | null;
  seed: string;
  /** below the threshold (or undefined): flagged in the report */
  below: boolean;
  /**
   * the rubric read as ordinal, beside the pre-registered kappa (same items, seed and clusters):
   * quadratic-weighted kappa and Krippendorff's ordinal alpha, NaN where undefined, intervals null then
   */
  ordinal: { quadraticKappa: OrdinalFigure; alpha: OrdinalFigure };
}

export interface ContestedReviewRow {
  question_id: string;
  subject_id: string;
  run_index: number;
  dimensions: readonly string[];
  judgeMean: Record<ValidationDimension, number | null>;
  reviewed: { reviewer: string; outcome: Record<ValidationDimension, number>; note: string } | null;
}

export interface ValidationSummary {
  minKappa: number;
  /** the limitation the run config documents, if any */
  limitation: string | null;
  /** labelled responses of this run, and labellers */
  labelled: number;
  labellers: string[];
  table: LabelKappa[];
  contested: ContestedReviewRow[];
  /** true when every cell meets the threshold (and there is at least one) */
  passes: boolean;
}

/** One ordinal figure of a cell (people against a judge) with its interval over the questions. */
function ordinalOf(
  measure: 'kappa-quadratic' | 'alpha-ordinal',
  human: readonly number[],
  judged: readonly number[],
  questions: readonly string[],
  seed: string,
): OrdinalFigure {
  const interval = kappaInterval(human, judged, 3, { seed, clusters: questions, measure });
  return {
    value: human.length === 0 ? Number.NaN : pairAgreement(measure, human, judged, 3),
    low: interval?.low ?? null,
    high: interval?.high ?? null,
  };
}

/** The median of integer scores; with an even count, the lower of the two middle ones. */
export function medianScore(scores: readonly number[]): number {
  const sorted = [...scores].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

export function validationSummary(
  rows: readonly ValidationRowView[],
  labels: readonly LabelView[],
  reviews: readonly ReviewRecordView[],
  minKappa: number = VALIDATION_MIN_KAPPA,
  limitation: string | null = null,
): ValidationSummary {
  const byKey = new Map<string, LabelView[]>();
  for (const l of labels) byKey.set(l.answer_key, [...(byKey.get(l.answer_key) ?? []), l]);
  // a response (answer key) may appear in several rows only if a run repeats a cell; keep the first
  const seen = new Set<string>();
  const labelledRows = rows.filter((r) => {
    if (r.answer_key === undefined || !byKey.has(r.answer_key) || seen.has(r.answer_key)) return false;
    seen.add(r.answer_key);
    return true;
  });
  const judges = [...new Set(labelledRows.flatMap((r) => r.verdicts.map((v) => v.judgeId)))].sort();
  const table: LabelKappa[] = [];
  for (const judge of judges)
    for (const dimension of VALIDATION_DIMENSIONS) {
      const human: number[] = [];
      const judged: number[] = [];
      const questions: string[] = [];
      for (const r of labelledRows) {
        const v = r.verdicts.find((x) => x.judgeId === judge)?.verdict;
        if (!v) continue;
        human.push(medianScore((byKey.get(r.answer_key ?? '') ?? []).map((l) => l[dimension])));
        judged.push(v[dimension].score);
        questions.push(r.question_id);
      }
      const kappa = human.length === 0 ? Number.NaN : cohenKappa(human, judged, { labels: [0, 1, 2] });
      const seed = `validation:${judge}:${dimension}`;
      const ci = kappaInterval(human, judged, 3, { seed, clusters: questions });
      const ordinalFigure = (measure: 'kappa-quadratic' | 'alpha-ordinal') =>
        ordinalOf(measure, human, judged, questions, seed);
      table.push({
        judge,
        dimension,
        n: human.length,
        kappa,
        low: ci?.low ?? null,
        high: ci?.high ?? null,
        seed,
        below: !(Number.isFinite(kappa) && kappa >= minKappa),
        ordinal: { quadraticKappa: ordinalFigure('kappa-quadratic'), alpha: ordinalFigure('alpha-ordinal') },
      });
    }
  const reviewByKey = new Map<string, ReviewRecordView>();
  for (const r of reviews) if (!reviewByKey.has(r.answer_key)) reviewByKey.set(r.answer_key, r);
  const contested = rows
    .filter((r) => r.scores.contested)
    .map((r) => {
      const review = r.answer_key === undefined ? undefined : reviewByKey.get(r.answer_key);
      return {
        question_id: r.question_id,
        subject_id: r.subject_id,
        run_index: r.run_index,
        dimensions: r.scores.contestedDimensions,
        judgeMean: {
          correctness: r.scores.correctness,
          grounding: r.scores.grounding,
          calibration: r.scores.calibration,
        },
        reviewed: review ? { reviewer: review.reviewer, outcome: review.outcome, note: review.note } : null,
      };
    });
  return {
    minKappa,
    limitation,
    labelled: labelledRows.length,
    labellers: [...new Set(labels.filter((l) => seen.has(l.answer_key)).map((l) => l.labeller))].sort(),
    table,
    contested,
    passes: table.length > 0 && table.every((c) => !c.below),
  };
}

const s = (x: number | null) => (x === null ? 'n/a' : Number.isInteger(x) ? String(x) : x.toFixed(1));

/**
 * The same cells read as ordinal: quadratic-weighted kappa and Krippendorff's ordinal alpha, where a
 * 0-vs-2 disagreement costs more than a 1-vs-2 one. Recorded beside kappa; the threshold is kappa's.
 */
function ordinalTable(table: readonly LabelKappa[]): string[] {
  const judges = [...new Set(table.map((c) => c.judge))];
  const show = (c: LabelKappa, f: OrdinalFigure) => formatOrdinal(c.n, f);
  return [
    '',
    "The same cells on the ordinal scale (recorded, not gated: the threshold is on Cohen's kappa): quadratic-weighted kappa / Krippendorff's ordinal alpha, each with its BCa 95% interval (same resamples and seed).",
    '',
    '| judge | correctness | grounding | calibration |',
    '|---|---|---|---|',
    ...judges.map((judge) => {
      const cells = table.filter((c) => c.judge === judge);
      return `| ${judge} | ${cells.map((c) => `${show(c, c.ordinal.quadraticKappa)} / ${show(c, c.ordinal.alpha)}`).join(' | ')} |`;
    }),
  ];
}

/** The two tables as markdown (for summary.md). */
export function validationMarkdown(v: ValidationSummary): string[] {
  const out: string[] = [];
  out.push('## Judges against people (methodology 5.5)', '');
  if (v.labelled === 0) {
    out.push(
      'No response of this run has a human label (`rge validation sample`, then `rge validation label`): the judges are not validated against people.',
      '',
    );
  } else {
    out.push(
      `Cohen's kappa between each judge and the people's labels on ${v.labelled} labelled response(s) of this run (labellers: ${v.labellers.join(', ')}; several labels of one response: their median). Pre-registered threshold: ${v.minKappa} on every cell's estimate; a cell below is flagged.`,
      '',
      kappaFootnote(
        "n the labelled responses the judge scored, people's median label against the judge's score",
      ),
      '',
    );
    const judges = [...new Set(v.table.map((c) => c.judge))];
    out.push(
      '| judge | kappa (correctness) | kappa (grounding) | kappa (calibration) | n |',
      '|---|---|---|---|---|',
    );
    for (const judge of judges) {
      const cells = v.table.filter((c) => c.judge === judge);
      out.push(
        `| ${judge} | ${cells.map((c) => `${formatKappa(c)}${c.below ? (Number.isFinite(c.kappa) ? ' ⚠ below' : ' ⚠') : ''}`).join(' | ')} | ${cells[0]?.n ?? 0} |`,
      );
    }
    out.push(...ordinalTable(v.table));
    out.push(
      '',
      v.passes
        ? 'Every cell meets the threshold.'
        : '**Some cells are below the threshold**: the rubric must be revised and the set re-scored, or the limitation documented (`validation.limitation` in the run config).',
      '',
    );
  }
  if (v.limitation) out.push(`Documented limitation (run config): ${v.limitation}`, '');
  out.push(`## Contested responses and their review: ${v.contested.length}`, '');
  if (v.contested.length > 0) {
    out.push(
      "| question | subject | run | contested | judges' mean c / g / k | reviewed c / g / k | reviewer | note |",
      '|---|---|---|---|---|---|---|---|',
    );
    for (const c of v.contested.slice(0, 200)) {
      const mean = `${s(c.judgeMean.correctness)} / ${s(c.judgeMean.grounding)} / ${s(c.judgeMean.calibration)}`;
      const reviewed = c.reviewed
        ? `${c.reviewed.outcome.correctness} / ${c.reviewed.outcome.grounding} / ${c.reviewed.outcome.calibration}`
        : 'not reviewed';
      out.push(
        `| ${c.question_id} | ${c.subject_id} | ${c.run_index} | ${c.dimensions.join(', ')} | ${mean} | ${reviewed} | ${c.reviewed?.reviewer ?? ''} | ${(c.reviewed?.note ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`,
      );
    }
    if (v.contested.length > 200) out.push('', `(${v.contested.length - 200} more in summary.json)`);
    out.push('');
  }
  return out;
}
