/**
 * Where a run's numbers come from and where the models fail, for the report. Pure.
 *
 * - Inter-judge agreement (methodology 8.4): per subject, Cohen's kappa between its two judges (its
 *   cross-family panel) per dimension, then the mean over subjects (pooling rows of different subjects
 *   would mix different judge pairs). Then per judge pair, pooled over the subjects it judged, on the
 *   main run and on the responses people labelled (the audit's paradox check reads the same figure); a
 *   difference of more than DIVERGENCE between the two is flagged. Every kappa carries its n and a BCa
 *   95% interval over question clusters (`kappaFigure`).
 * - Retrieval: per category, the share of questions whose gold chunk was in the retrieved top k (out-of-
 *   domain questions have no gold chunk and are left out).
 * - Drill-down: per subject the WORST cases (lowest primary GFS) and the contested ones, with the answer,
 *   what it cited, both verdicts with their quoted evidence, and the checks that failed.
 * - Errors: cases that produced no result (the subject gave no answer, a call failed, the cap stopped the
 *   run), counted and listed, each with its cell and whose failure it was when the case said.
 * - Cells: every case's scores, so `rge gate` can pair two runs cell by cell; a case the subject gave no
 *   answer for is a cell scored 0 (`failed`), as the ranking counts it (src/report/outcomes.ts).
 */
import { citationMarkers } from '../analysis/claims.ts';
import { type AgreementMeasure, KAPPA_MIN_N, kappaInterval, pairAgreement } from '../stats/index.ts';
import type { OrdinalFigure } from '../validation/kappa-format.ts';
import { casePasses } from './consistency.ts';
import { type FailureCause, failing, failureCause } from './evidence.ts';
import { type FailureKind, failureKind } from './failures.ts';
import type { SubjectFailure } from './outcomes.ts';
import { type CaseErrorView, type CaseRowView, fullRow } from './views.ts';

/** Mean correctness at which a (question, run) counts as correct (McNemar, the gate's correctness). */
export const CORRECT_AT = 1.5;
/** A main-run inter-judge kappa this far from the labelled set's is flagged. */
export const DIVERGENCE = 0.15;
/** Worst cases shown per subject in the drill-down. */
export const WORST_PER_SUBJECT = 5;
/** Contested cases shown in the drill-down (all are in the contested table). */
export const CONTESTED_SHOWN = 10;

const DIMS = ['correctness', 'grounding', 'calibration'] as const;
type Dim = (typeof DIMS)[number];

interface LabelKey {
  answer_key: string;
}

/** One kappa figure: its n, the estimate and its interval (`kappaFigure`). */
export interface KappaCell {
  /** responses scored by both judges */
  n: number;
  kappa: number;
  /** the BCa 95% interval over question clusters; null where kappa is undefined */
  low: number | null;
  high: number | null;
  seed: string;
  /**
   * the rubric read as ordinal, beside kappa (same resamples and seed): quadratic-weighted kappa and
   * Krippendorff's ordinal alpha (with strata, the mean over strata as kappa's)
   */
  quadraticKappa: OrdinalFigure;
  alpha: OrdinalFigure;
}

const NO_FIGURE: OrdinalFigure = { value: Number.NaN, low: null, high: null };

/** A judge pair's agreement pooled over every response it judged, whatever the subject. */
export interface JudgePairAgreement {
  judges: [string, string];
  subjects: string[];
  main: Record<Dim, KappaCell>;
  /** the same on the responses people labelled (null when none) */
  labelled: Record<Dim, KappaCell> | null;
  /**
   * dimensions where the main run and the labelled responses differ by more than DIVERGENCE, on at least
   * KAPPA_MIN_N labelled responses
   */
  divergent: Dim[];
}

export interface JudgeAgreement {
  /** methodology 8.4: per subject, its two judges over its responses */
  bySubject: Record<string, { judges: [string, string]; dimensions: Record<Dim, KappaCell> }>;
  /** methodology 8.4's figure: the mean over subjects of each subject's kappa (undefined ones left out) */
  mean: Record<Dim, KappaCell>;
  /** per judge pair, pooled over the subjects it judged; beside it the labelled responses */
  byPair: JudgePairAgreement[];
}

interface PairedScores {
  a: number[];
  b: number[];
  clusters: string[];
  strata: number[];
}

/** Both judges' scores on one dimension, over the rows both scored; strata number the subjects. */
function pairedScores(rows: readonly CaseRowView[], dim: Dim, subjects: readonly string[]): PairedScores {
  const out: PairedScores = { a: [], b: [], clusters: [], strata: [] };
  for (const r of rows) {
    const [x, y] = r.verdicts;
    if (x?.verdict && y?.verdict) {
      out.a.push(x.verdict[dim].score);
      out.b.push(y.verdict[dim].score);
      out.clusters.push(r.question_id);
      out.strata.push(subjects.indexOf(r.subject_id));
    }
  }
  return out;
}

/**
 * Cohen's kappa of two raters' 0/1/2 scores with its BCa 95% interval (2,000 resamples of question
 * clusters: a question's runs are not independent), seeded by `seed`; with `strata`, the mean over
 * strata of each stratum's kappa.
 */
export function kappaFigure(p: PairedScores, seed: string, byStrata = false): KappaCell {
  if (p.a.length === 0)
    return {
      n: 0,
      kappa: Number.NaN,
      low: null,
      high: null,
      seed,
      quadraticKappa: NO_FIGURE,
      alpha: NO_FIGURE,
    };
  const kappa = figureOf(p, seed, byStrata, 'kappa');
  return {
    n: p.a.length,
    kappa: kappa.value,
    low: kappa.low,
    high: kappa.high,
    seed,
    quadraticKappa: figureOf(p, seed, byStrata, 'kappa-quadratic'),
    alpha: figureOf(p, seed, byStrata, 'alpha-ordinal'),
  };
}

/** One agreement measure of the pair with its interval; with strata, the mean over strata. */
function figureOf(
  p: PairedScores,
  seed: string,
  byStrata: boolean,
  measure: AgreementMeasure,
): OrdinalFigure {
  const ci = kappaInterval(p.a, p.b, 3, {
    seed,
    clusters: p.clusters,
    measure,
    ...(byStrata ? { strata: p.strata } : {}),
  });
  const value = byStrata
    ? meanOf(
        [...new Set(p.strata)].map((s) => {
          const at = p.strata.flatMap((x, i) => (x === s ? [i] : []));
          return pairAgreement(
            measure,
            at.map((i) => p.a[i] as number),
            at.map((i) => p.b[i] as number),
            3,
          );
        }),
      )
    : pairAgreement(measure, p.a, p.b, 3);
  return { value, low: ci?.low ?? null, high: ci?.high ?? null };
}

const meanOf = (xs: readonly number[]) => {
  const finite = xs.filter(Number.isFinite);
  return finite.length === 0 ? Number.NaN : finite.reduce((s, x) => s + x, 0) / finite.length;
};

const perDim = (f: (d: Dim) => KappaCell) =>
  Object.fromEntries(DIMS.map((d) => [d, f(d)])) as Record<Dim, KappaCell>;

/** The pair of judges of a row, in the order the row holds them; null unless both scored. */
const pairOf = (r: CaseRowView): [string, string] | null => {
  const [x, y] = r.verdicts;
  return x && y ? [x.judgeId, y.judgeId] : null;
};

export function interJudgeAgreement(
  bySubject: ReadonlyMap<string, readonly CaseRowView[]>,
  labels: readonly LabelKey[],
): JudgeAgreement {
  const labelled = new Set(labels.map((l) => l.answer_key));
  const subjects = [...bySubject.keys()];
  const out: JudgeAgreement['bySubject'] = {};
  for (const [subject, rows] of bySubject) {
    const first = rows.find((r) => r.verdicts.length >= 2);
    const judges: [string, string] = [first?.verdicts[0]?.judgeId ?? '', first?.verdicts[1]?.judgeId ?? ''];
    out[subject] = {
      judges,
      dimensions: perDim((d) => kappaFigure(pairedScores(rows, d, subjects), `inter-judge:${subject}:${d}`)),
    };
  }
  const all = [...bySubject.values()].flat();
  const mean = perDim((d) => kappaFigure(pairedScores(all, d, subjects), `inter-judge:mean:${d}`, true));
  const pairs = new Map<string, CaseRowView[]>();
  for (const r of all) {
    const pair = pairOf(r);
    if (!pair) continue;
    const key = pair.join(' / ');
    // appended in place: a copy per row made this quadratic (issue 53: 80 s of a 100,000-case report)
    const rowsOfPair = pairs.get(key);
    if (rowsOfPair) rowsOfPair.push(r);
    else pairs.set(key, [r]);
  }
  const byPair = [...pairs.entries()].map(([key, rows]): JudgePairAgreement => {
    const mine = rows.filter((r) => r.answer_key !== undefined && labelled.has(r.answer_key));
    const main = perDim((d) => kappaFigure(pairedScores(rows, d, subjects), `inter-judge:${key}:main:${d}`));
    const onLabelled =
      mine.length === 0
        ? null
        : perDim((d) => kappaFigure(pairedScores(mine, d, subjects), `inter-judge:${key}:labelled:${d}`));
    return {
      judges: pairOf(rows[0] as CaseRowView) as [string, string],
      subjects: [...new Set(rows.map((r) => r.subject_id))].sort(),
      main,
      labelled: onLabelled,
      // on too few labelled responses the two cannot be told apart: no flag
      divergent: onLabelled
        ? DIMS.filter(
            (d) =>
              onLabelled[d].n >= KAPPA_MIN_N &&
              Number.isFinite(main[d].kappa) &&
              Number.isFinite(onLabelled[d].kappa) &&
              Math.abs(main[d].kappa - onLabelled[d].kappa) > DIVERGENCE,
          )
        : [],
    };
  });
  return { bySubject: out, mean, byPair };
}

export interface DrillDownCase {
  cell: string;
  subject: string;
  question_id: string;
  run_index: number;
  category: string;
  /** the question as the subject saw it, what it should do, and the gold (absent in older rows) */
  question: { text: string; expected_behavior: string; gold_answer: string; gold_quotes: string[] } | null;
  why: 'worst' | 'contested';
  gfs: number | null;
  /** a failing case's cause by what its passages held (null: not failing, or no gold evidence measured) */
  cause: FailureCause | null;
  /** the failing case's kind, as the failures-by-kind section counts it (null: not failing) */
  kind: FailureKind | null;
  answer: string;
  cited: string[];
  retrieved: readonly string[];
  verdicts: {
    judge: string;
    status: string;
    scores: Record<Dim, number> | null;
    evidence: Record<Dim, string[]> | null;
    rationale: Record<Dim, string> | null;
    unsupported: string[];
  }[];
  failedChecks: { name: string; detail: string }[];
}

export interface Diagnostics {
  retrieval: Record<string, { questions: number; hits: number; rate: number | null }>;
  drilldown: DrillDownCase[];
  errors: { count: number; list: CaseErrorView[] };
  cells: {
    subject: string;
    question_id: string;
    run_index: number;
    category: string;
    gfs: number | null;
    correctness: number | null;
    /** the case passes as the report counts it (src/report/consistency.ts): what `rge gate --pass-all` reads */
    passed: boolean;
    /** the subject gave no answer (its own failure): scored 0, never passing; absent for an answered case */
    failed?: true;
  }[];
}

interface RichVerdict {
  correctness: { score: number; evidence?: readonly string[]; rationale?: string };
  grounding: { score: number; evidence?: readonly string[]; rationale?: string };
  calibration: { score: number; evidence?: readonly string[]; rationale?: string };
  unsupported_claims?: readonly string[];
}

function drill(compact: CaseRowView, why: DrillDownCase['why']): DrillDownCase {
  const r = fullRow(compact);
  const row = r as CaseRowView & { answer?: string; retrieved_ids?: readonly string[] };
  const answer = row.answer ?? '';
  return {
    cell: `${r.subject_id}/${r.question_id}/run ${r.run_index}`,
    subject: r.subject_id,
    question_id: r.question_id,
    run_index: r.run_index,
    category: r.category,
    question: r.question
      ? {
          text: r.question.text,
          expected_behavior: r.expected_behavior ?? '',
          gold_answer: r.question.gold_answer,
          gold_quotes: [...r.question.gold_quotes],
        }
      : null,
    why,
    gfs: r.scores.gfsPrimary,
    cause: failing(r) ? failureCause(r) : null,
    kind: failureKind(r),
    answer,
    cited: [...new Set(citationMarkers(answer))],
    retrieved: row.retrieved_ids ?? [],
    verdicts: r.verdicts.map((v) => {
      const rich = v.verdict as RichVerdict | null;
      return {
        judge: v.judgeId,
        status: v.status,
        scores: rich
          ? {
              correctness: rich.correctness.score,
              grounding: rich.grounding.score,
              calibration: rich.calibration.score,
            }
          : null,
        evidence: rich
          ? (Object.fromEntries(DIMS.map((d) => [d, [...(rich[d].evidence ?? [])]])) as Record<Dim, string[]>)
          : null,
        rationale: rich
          ? (Object.fromEntries(DIMS.map((d) => [d, rich[d].rationale ?? ''])) as Record<Dim, string>)
          : null,
        unsupported: [...(rich?.unsupported_claims ?? [])],
      };
    }),
    failedChecks: Object.entries(r.checks).flatMap(([name, c]) => {
      const check = c as { passed?: boolean | null; detail?: string };
      return check && check.passed === false ? [{ name, detail: check.detail ?? '' }] : [];
    }),
  };
}

export function diagnostics(
  rows: readonly CaseRowView[],
  errors: readonly CaseErrorView[],
  failures: readonly SubjectFailure[] = [],
): Diagnostics {
  const retrieval: Diagnostics['retrieval'] = {};
  const seen = new Set<string>();
  for (const r of rows) {
    const hit = (r as CaseRowView & { retrieval_hit?: boolean | null }).retrieval_hit;
    if (hit === undefined || hit === null || seen.has(r.question_id)) continue;
    seen.add(r.question_id);
    const slot = retrieval[r.category] ?? { questions: 0, hits: 0, rate: null };
    slot.questions++;
    if (hit) slot.hits++;
    retrieval[r.category] = slot;
  }
  for (const slot of Object.values(retrieval))
    slot.rate = slot.questions === 0 ? null : slot.hits / slot.questions;
  const subjects = [...new Set(rows.map((r) => r.subject_id))].sort();
  // each (subject, question) once: its worst-scored run, then contested ones not already listed
  const onePerQuestion = (list: readonly CaseRowView[]) => {
    const seenQ = new Set<string>();
    return list.filter((r) => {
      const k = `${r.subject_id}\u0000${r.question_id}`;
      if (seenQ.has(k)) return false;
      seenQ.add(k);
      return true;
    });
  };
  const worstRows = subjects.flatMap((s) =>
    onePerQuestion(
      rows
        .filter((r) => r.subject_id === s && r.scores.gfsPrimary !== null)
        .sort(
          (a, b) =>
            (a.scores.gfsPrimary ?? 0) - (b.scores.gfsPrimary ?? 0) ||
            a.question_id.localeCompare(b.question_id) ||
            a.run_index - b.run_index,
        ),
    ).slice(0, WORST_PER_SUBJECT),
  );
  const listed = new Set(worstRows.map((r) => `${r.subject_id}\u0000${r.question_id}`));
  const contestedRows = onePerQuestion(
    rows.filter((r) => r.scores.contested && !listed.has(`${r.subject_id}\u0000${r.question_id}`)),
  ).slice(0, CONTESTED_SHOWN);
  const worst = worstRows.map((r) => drill(r, 'worst'));
  const contested = contestedRows.map((r) => drill(r, 'contested'));
  const out: Diagnostics = {
    retrieval,
    drilldown: [...worst, ...contested],
    errors: { count: errors.length, list: [...errors] },
    cells: rows.map((r) => ({
      subject: r.subject_id,
      question_id: r.question_id,
      run_index: r.run_index,
      category: r.category,
      gfs: r.scores.gfsPrimary,
      correctness: r.scores.correctness,
      passed: casePasses(r),
    })),
  };
  for (const f of failures)
    out.cells.push({
      subject: f.subject_id,
      question_id: f.question_id,
      run_index: f.run_index,
      category: f.category,
      gfs: 0,
      correctness: 0,
      passed: false,
      failed: true,
    });
  return out;
}
