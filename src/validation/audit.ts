/**
 * The judge audit (claim-faithfulness spec, judge reliability): how far a judge's verdicts can be
 * trusted beyond their agreement with people.
 *
 * - Replicate stability: the same judge on the same input N times. Per dimension, the share of items
 *   whose replicates all give the same score, and Cohen's kappa between the first two replicates.
 * - Order bias: the same case with the retrieved chunks in reverse order, and with the answer placed
 *   before the chunks instead of after. Per dimension, the share of items whose score changed and the
 *   mean signed shift (probe minus original; a positive shift means the probe scored higher).
 * - The paradox flag: two judges that agree with each other (kappa >= PARADOX_AGREEMENT) much more
 *   than either agrees with people (by PARADOX_GAP or more) share a bias, not the truth; their mutual
 *   agreement must not be read as validity.
 *
 * Pure: outcomes in, numbers out. Unscored outcomes are left out of every comparison they are part of.
 */

import { DIMENSIONS, type Dimension, type JudgeOutcome, type JudgeVerdict } from '../judging/verdict.ts';
import {
  alphaInterval,
  cohenKappa,
  KAPPA_MIN_N,
  kappaInterval,
  krippendorffAlpha,
  pairAgreement,
} from '../stats/index.ts';
import { formatKappa, formatOrdinal, type KappaShown, type OrdinalFigure } from './kappa-format.ts';

export const PARADOX_AGREEMENT = 0.6;
export const PARADOX_GAP = 0.2;

const LABELS_012 = [0, 1, 2];

/**
 * A kappa of the audit: n, the estimate and its BCa 95% interval (as the report prints them), and beside
 * it the ordinal reading (quadratic-weighted kappa, Krippendorff's ordinal alpha; same resamples and seed).
 */
export interface AuditKappa extends KappaShown {
  seed: string;
  quadraticKappa: OrdinalFigure;
  alpha: OrdinalFigure;
}

const NO_FIGURE: OrdinalFigure = { value: Number.NaN, low: null, high: null };

/**
 * Cohen's kappa of label indices `a` and `b` (0..labelCount-1) with its bootstrap interval over the
 * items' clusters (their questions: a question's responses are not independent), as the report's.
 */
function kappa(
  a: readonly number[],
  b: readonly number[],
  labels: readonly number[],
  clusters: readonly string[],
  seed: string,
): AuditKappa {
  if (a.length === 0)
    return {
      n: 0,
      kappa: Number.NaN,
      low: null,
      high: null,
      seed,
      quadraticKappa: NO_FIGURE,
      alpha: NO_FIGURE,
    };
  const ci = kappaInterval(a, b, labels.length, { seed, clusters });
  const figure = (measure: 'kappa-quadratic' | 'alpha-ordinal'): OrdinalFigure => {
    const interval = kappaInterval(a, b, labels.length, { seed, clusters, measure });
    return {
      value: pairAgreement(measure, a, b, labels.length),
      low: interval?.low ?? null,
      high: interval?.high ?? null,
    };
  };
  return {
    n: a.length,
    kappa: cohenKappa([...a], [...b], { labels: [...labels] }),
    low: ci?.low ?? null,
    high: ci?.high ?? null,
    seed,
    quadraticKappa: figure('kappa-quadratic'),
    alpha: figure('alpha-ordinal'),
  };
}

export interface DimensionStability {
  /** share of items whose replicates all agree */
  allSame: number;
  /** kappa between replicate 1 and replicate 2 */
  kappa: AuditKappa;
  /** Krippendorff's ordinal alpha over every replicate (each a rater), with its interval */
  alphaAll: OrdinalFigure;
}

export interface StabilityReport {
  judge: string;
  replicates: number;
  /** items scored in every replicate */
  n: number;
  dimensions: Record<Dimension, DimensionStability>;
}

/**
 * Replicate stability from R >= 2 runs of the same judge over the same items (runs[r][i]); `clusters[i]`
 * is item i's question (default: each item its own).
 */
export function replicateStability(
  judge: string,
  runs: readonly (readonly JudgeOutcome[])[],
  clusters?: readonly string[],
): StabilityReport {
  if (runs.length < 2) throw new RangeError('replicate stability needs at least two replicates');
  const n = runs[0]?.length ?? 0;
  const complete: JudgeVerdict[][] = [];
  const completeClusters: string[] = [];
  for (let i = 0; i < n; i++) {
    const verdicts = runs.map((r) => r[i]?.verdict ?? null);
    if (verdicts.every((v): v is JudgeVerdict => v !== null)) {
      complete.push(verdicts);
      completeClusters.push(clusters?.[i] ?? String(i));
    }
  }
  const dimensions = Object.fromEntries(
    DIMENSIONS.map((d) => {
      const same = complete.filter((vs) => vs.every((v) => v[d].score === vs[0]?.[d].score)).length;
      return [
        d,
        {
          allSame: complete.length === 0 ? Number.NaN : same / complete.length,
          kappa: kappa(
            complete.map((vs) => (vs[0] as JudgeVerdict)[d].score),
            complete.map((vs) => (vs[1] as JudgeVerdict)[d].score),
            LABELS_012,
            completeClusters,
            `audit:replicates:${judge}:${d}`,
          ),
          alphaAll: alphaOverReplicates(complete, d, completeClusters, `audit:replicates:${judge}:${d}:all`),
        },
      ];
    }),
  ) as Record<Dimension, DimensionStability>;
  return { judge, replicates: runs.length, n: complete.length, dimensions };
}

/** Ordinal alpha over every replicate of the complete items, with its interval over their clusters. */
function alphaOverReplicates(
  complete: readonly (readonly JudgeVerdict[])[],
  d: Dimension,
  clusters: readonly string[],
  seed: string,
): OrdinalFigure {
  if (complete.length === 0) return NO_FIGURE;
  const replicates = complete[0]?.length ?? 0;
  const raters = Array.from({ length: replicates }, (_, r) =>
    complete.map((vs) => (vs[r] as JudgeVerdict)[d].score),
  );
  const options = { level: 'ordinal', values: LABELS_012 } as const;
  const ci = alphaInterval(raters, { ...options, seed, clusters });
  return { value: krippendorffAlpha(raters, options), low: ci?.low ?? null, high: ci?.high ?? null };
}

export interface DimensionShift {
  /** share of items whose score changed under the probe */
  changed: number;
  /** mean of (probe score - original score) */
  meanShift: number;
}

export interface OrderReport {
  judge: string;
  probe: 'chunks reversed' | 'answer first';
  n: number;
  dimensions: Record<Dimension, DimensionShift>;
}

/** What a probe (a reordered case) does to a judge's scores, item by item against the original. */
export function orderBias(
  judge: string,
  probe: OrderReport['probe'],
  original: readonly JudgeOutcome[],
  probed: readonly JudgeOutcome[],
): OrderReport {
  const pairs: [JudgeVerdict, JudgeVerdict][] = [];
  original.forEach((o, i) => {
    const p = probed[i];
    if (o.verdict && p?.verdict) pairs.push([o.verdict, p.verdict]);
  });
  const dimensions = Object.fromEntries(
    DIMENSIONS.map((d) => {
      const diffs = pairs.map(([o, p]) => p[d].score - o[d].score);
      return [
        d,
        {
          changed: pairs.length === 0 ? Number.NaN : diffs.filter((x) => x !== 0).length / pairs.length,
          meanShift: pairs.length === 0 ? Number.NaN : diffs.reduce((a, b) => a + b, 0) / pairs.length,
        },
      ];
    }),
  ) as Record<Dimension, DimensionShift>;
  return { judge, probe, n: pairs.length, dimensions };
}

/** How verdicts and people's labels are compared: one label space (a dataset's labels, or a dimension's 0-2). */
export interface AuditView {
  name: string;
  labels: readonly number[];
  /** the people's label of item i; null when they gave none */
  human: (index: number) => number | null;
  judge: (verdict: JudgeVerdict) => number;
}

export interface ParadoxRow {
  view: string;
  a: string;
  b: string;
  n: number;
  kappaBetweenJudges: AuditKappa;
  kappaAWithPeople: AuditKappa;
  kappaBWithPeople: AuditKappa;
  flagged: boolean;
  /** fewer than KAPPA_MIN_N items: no flag either way (too few to tell) */
  tooFew: boolean;
}

/**
 * For every pair of judges and every view: their agreement with each other and each one's with people,
 * over the items both scored and people labelled (each kappa with its interval over `clusters[i]`, item
 * i's question; default each item its own); flagged when they agree with each other at least
 * PARADOX_AGREEMENT and more than either agrees with people by PARADOX_GAP, on at least KAPPA_MIN_N
 * items (below that, too few to tell).
 */
export function paradox(
  views: readonly AuditView[],
  judges: readonly { id: string; outcomes: readonly JudgeOutcome[] }[],
  clusters?: readonly string[],
): ParadoxRow[] {
  const rows: ParadoxRow[] = [];
  for (const view of views)
    for (let x = 0; x < judges.length; x++)
      for (let y = x + 1; y < judges.length; y++) {
        const a = judges[x] as (typeof judges)[number];
        const b = judges[y] as (typeof judges)[number];
        const la: number[] = [];
        const lb: number[] = [];
        const lh: number[] = [];
        const lc: string[] = [];
        a.outcomes.forEach((o, i) => {
          const p = b.outcomes[i];
          const h = view.human(i);
          if (!o.verdict || !p?.verdict || h === null) return;
          la.push(view.judge(o.verdict));
          lb.push(view.judge(p.verdict));
          lh.push(h);
          lc.push(clusters?.[i] ?? String(i));
        });
        const seed = `audit:paradox:${view.name}:${a.id}`;
        const ab = kappa(la, lb, view.labels, lc, `${seed}:${b.id}`);
        const ah = kappa(la, lh, view.labels, lc, `${seed}:people`);
        const bh = kappa(lb, lh, view.labels, lc, `audit:paradox:${view.name}:${b.id}:people`);
        const tooFew = la.length < KAPPA_MIN_N;
        rows.push({
          view: view.name,
          a: a.id,
          b: b.id,
          n: la.length,
          kappaBetweenJudges: ab,
          kappaAWithPeople: ah,
          kappaBWithPeople: bh,
          flagged:
            !tooFew &&
            ab.kappa >= PARADOX_AGREEMENT &&
            Math.max(ah.kappa, bh.kappa) <= ab.kappa - PARADOX_GAP,
          tooFew,
        });
      }
  return rows;
}

/** The views of the human validation set: one per dimension, people's 0-2 against the judge's 0-2. */
export function dimensionViews(human: (index: number, d: Dimension) => number | null): AuditView[] {
  return DIMENSIONS.map((d) => ({
    name: d,
    labels: LABELS_012,
    human: (i) => human(i, d),
    judge: (v) => v[d].score,
  }));
}

const f = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const verdictOf = (p: ParadoxRow) =>
  p.flagged ? '**PARADOX**' : p.tooFew ? `too few to tell (n < ${KAPPA_MIN_N})` : 'no';
const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'n/a');

/** The audit as tables for the terminal (and the README). */
export function formatAudit(
  title: string,
  stability: readonly StabilityReport[],
  order: readonly OrderReport[],
  paradoxRows: readonly ParadoxRow[],
): string {
  const out: string[] = [`judge audit: ${title}`, ''];
  out.push('replicate stability (all replicates the same / kappa replicate 1 vs 2 [95% CI])');
  out.push(
    `| judge | replicates | n | ${DIMENSIONS.join(' | ')} |`,
    `|---|---|---|${DIMENSIONS.map(() => '---').join('|')}|`,
  );
  for (const r of stability)
    out.push(
      `| ${r.judge} | ${r.replicates} | ${r.n} | ${DIMENSIONS.map((d) => `${pct(r.dimensions[d].allSame)} / ${formatKappa(r.dimensions[d].kappa)}`).join(' | ')} |`,
    );
  out.push(
    '',
    "replicate stability, ordinal (quadratic kappa replicate 1 vs 2 / Krippendorff's ordinal alpha over every replicate [95% CI])",
    `| judge | replicates | n | ${DIMENSIONS.join(' | ')} |`,
    `|---|---|---|${DIMENSIONS.map(() => '---').join('|')}|`,
  );
  for (const r of stability)
    out.push(
      `| ${r.judge} | ${r.replicates} | ${r.n} | ${DIMENSIONS.map((d) => `${formatOrdinal(r.n, r.dimensions[d].kappa.quadraticKappa)} / ${formatOrdinal(r.n, r.dimensions[d].alphaAll)}`).join(' | ')} |`,
    );
  out.push('', 'order bias (scores changed / mean shift, probe minus original)');
  out.push(
    `| judge | probe | n | ${DIMENSIONS.join(' | ')} |`,
    `|---|---|---|${DIMENSIONS.map(() => '---').join('|')}|`,
  );
  for (const r of order)
    out.push(
      `| ${r.judge} | ${r.probe} | ${r.n} | ${DIMENSIONS.map((d) => `${pct(r.dimensions[d].changed)} / ${f(r.dimensions[d].meanShift, 2)}`).join(' | ')} |`,
    );
  out.push(
    '',
    `paradox: judges that agree with each other (kappa >= ${PARADOX_AGREEMENT}) more than with people (by ${PARADOX_GAP} or more), on at least ${KAPPA_MIN_N} items`,
  );
  out.push(
    '| view | judges | n | kappa between them | kappa with people | ordinal alpha between them / with people | flagged |',
    '|---|---|---|---|---|---|---|',
  );
  for (const p of paradoxRows)
    out.push(
      `| ${p.view} | ${p.a} / ${p.b} | ${p.n} | ${formatKappa(p.kappaBetweenJudges)} | ${formatKappa(p.kappaAWithPeople)} / ${formatKappa(p.kappaBWithPeople)} | ${formatOrdinal(p.n, p.kappaBetweenJudges.alpha)} / ${formatOrdinal(p.n, p.kappaAWithPeople.alpha)} / ${formatOrdinal(p.n, p.kappaBWithPeople.alpha)} | ${verdictOf(p)} |`,
    );
  out.push(
    '',
    `Each kappa: Cohen's kappa (the paradox flag reads it) with a BCa 95% interval; the ordinal figures (quadratic-weighted kappa, Krippendorff's ordinal alpha) weigh a disagreement by its distance on the scale, recorded beside it. Intervals (2,000 bootstrap resamples of the items' questions; seeded); ⚠ few: fewer than ${KAPPA_MIN_N} items, too few to tell. The judges' kappa with each other here is over the items people labelled, every judge on every item; the report's "pair, labelled responses" row is over the labelled responses that pair judged in the run (the same items and figure when the pair judged them all).`,
  );
  return `${out.join('\n')}\n`;
}
