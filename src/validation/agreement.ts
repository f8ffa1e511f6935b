/**
 * The agreement of a judge's verdicts with the people's labels, pooled over a dataset and per subset of
 * it: n, unscored, Cohen's kappa with a bootstrap interval (the pre-registered figure), beside it the
 * quadratic-weighted kappa and ordinal Krippendorff's alpha with theirs (the rubric is ordinal: a 0-vs-2
 * miss is worse than a 1-vs-2 one), accuracy, confusion matrix, the judge's cost and latency.
 *
 * Kappa's interval: a bootstrap over the items of the cell (`kappaInterval`), seeded by
 * `agreementSeed(judge, format, subset)`, so the same labels and verdicts give the same interval.
 */

import type { JudgeOutcome } from '../judging/verdict.ts';
import { cohenKappa, type KappaInterval, kappaInterval, pairAgreement } from '../stats/index.ts';
import { linearPercentile } from '../stats/percentile.ts';
import {
  type AgreementFormat,
  type AgreementItem,
  FORMAT_DIMENSION,
  FORMAT_LABELS,
  FORMAT_ORDERED,
  verdictLabel,
} from './datasets.ts';

/** The subset name of a pooled row (all subsets of a dataset), in seeds and tables. */
export const POOLED = 'pooled';

/** How a cell's kappa interval is seeded, for the output's footer. */
export const AGREEMENT_SEED_RULE = `agree:<judge>:<format>:<subset, or ${POOLED}>`;

/** The seed of the kappa interval of a (judge, dataset, subset) cell; `subset` null is the pooled row. */
export function agreementSeed(judge: string, format: AgreementFormat, subset: string | null): string {
  return `agree:${judge}:${format}:${subset ?? POOLED}`;
}

/** The agreement of one judge with the people on one dataset, pooled or on one subset of it. */
export interface AgreementReport {
  format: AgreementFormat;
  judge: string;
  dimension: string;
  /** the subset (see FORMAT_SUBSET); null for the row pooled over every subset */
  subset: string | null;
  labels: readonly string[];
  /** items with a scored verdict (the table's total) */
  n: number;
  /** items whose verdict was unscored, left out of the table */
  unscored: number;
  /** Cohen's kappa between people (a) and judge (b); NaN where undefined (one label only) */
  kappa: number;
  /** bootstrap interval of the kappa; null where the kappa is undefined */
  kappaCi: KappaInterval | null;
  /**
   * quadratic-weighted Cohen's kappa (equals `kappa` on two labels); NaN where undefined or where the
   * labels are not ordered (`ordered` false)
   */
  quadraticKappa: number;
  quadraticKappaCi: KappaInterval | null;
  /** whether the labels are ordered (FORMAT_ORDERED) */
  ordered: boolean;
  /** Krippendorff's alpha, people and judge as two raters: ordinal where the labels are ordered, else nominal */
  alpha: number;
  alphaLevel: 'ordinal' | 'nominal';
  alphaCi: KappaInterval | null;
  accuracy: number;
  /** rows: the people's label; columns: the judge's, both in `labels` order */
  confusion: number[][];
  /** what the judge's calls cost, over every item (scored or not), USD */
  costUsd: number;
  /** the judge's latency per item (over its attempts), ms; null with no items */
  latencyMs: { p50: number; p95: number } | null;
}

export interface AgreementOptions {
  /** the subset the items are; default null, the pooled row */
  subset?: string | null;
  /** bootstrap resamples of the kappa interval (default KAPPA_RESAMPLES) */
  resamples?: number;
  /** default `agreementSeed(judge, format, subset)` */
  seed?: string;
}

/** Agreement of judge outcomes with the people's labels, item by item (same order). */
export function agreement(
  format: AgreementFormat,
  judge: string,
  items: readonly AgreementItem[],
  outcomes: readonly JudgeOutcome[],
  opts: AgreementOptions = {},
): AgreementReport {
  if (items.length !== outcomes.length)
    throw new RangeError(`agreement: ${items.length} items but ${outcomes.length} outcomes`);
  const subset = opts.subset ?? null;
  const labels = FORMAT_LABELS[format];
  const confusion = labels.map(() => labels.map(() => 0));
  const human: number[] = [];
  const judged: number[] = [];
  let unscored = 0;
  items.forEach((item, i) => {
    const verdict = outcomes[i]?.verdict;
    if (!verdict) {
      unscored++;
      return;
    }
    const j = verdictLabel(format, verdict);
    human.push(item.human);
    judged.push(j);
    const row = confusion[item.human];
    if (row) row[j] = (row[j] ?? 0) + 1;
  });
  const n = human.length;
  const agreed = human.filter((h, i) => h === judged[i]).length;
  const latencies = outcomes.map((o) => o.latencyMs).sort((a, b) => a - b);
  const ordered = FORMAT_ORDERED[format];
  const alphaMeasure = ordered ? 'alpha-ordinal' : 'alpha-nominal';
  const interval = {
    seed: opts.seed ?? agreementSeed(judge, format, subset),
    ...(opts.resamples === undefined ? {} : { resamples: opts.resamples }),
  };
  return {
    format,
    judge,
    dimension: FORMAT_DIMENSION[format],
    subset,
    labels,
    n,
    unscored,
    kappa: n === 0 ? Number.NaN : cohenKappa(human, judged, { labels: labels.map((_, i) => i) }),
    kappaCi: kappaInterval(human, judged, labels.length, interval),
    quadraticKappa:
      n === 0 || !ordered ? Number.NaN : pairAgreement('kappa-quadratic', human, judged, labels.length),
    quadraticKappaCi: ordered
      ? kappaInterval(human, judged, labels.length, { ...interval, measure: 'kappa-quadratic' })
      : null,
    ordered,
    alpha: n === 0 ? Number.NaN : pairAgreement(alphaMeasure, human, judged, labels.length),
    alphaLevel: ordered ? 'ordinal' : 'nominal',
    alphaCi: kappaInterval(human, judged, labels.length, { ...interval, measure: alphaMeasure }),
    accuracy: n === 0 ? Number.NaN : agreed / n,
    confusion,
    costUsd: outcomes.reduce((sum, o) => sum + o.costUsd, 0),
    latencyMs:
      latencies.length === 0
        ? null
        : { p50: linearPercentile(latencies, 0.5), p95: linearPercentile(latencies, 0.95) },
  };
}

/** The subsets of `items`, sorted. */
export function subsetsOf(items: readonly AgreementItem[]): string[] {
  return [...new Set(items.map((i) => i.subset))].sort((a, b) => a.localeCompare(b));
}

/**
 * Agreement pooled over every item (first, `subset` null), then one row per subset (sorted), each
 * with its own kappa, interval (seeded per subset) and counts.
 */
export function agreementBySubset(
  format: AgreementFormat,
  judge: string,
  items: readonly AgreementItem[],
  outcomes: readonly JudgeOutcome[],
  opts: Omit<AgreementOptions, 'subset' | 'seed'> = {},
): AgreementReport[] {
  if (items.length !== outcomes.length)
    throw new RangeError(`agreement: ${items.length} items but ${outcomes.length} outcomes`);
  const rows = [agreement(format, judge, items, outcomes, opts)];
  for (const subset of subsetsOf(items)) {
    const keep = items.map((item) => item.subset === subset);
    rows.push(
      agreement(
        format,
        judge,
        items.filter((_, i) => keep[i]),
        outcomes.filter((_, i) => keep[i]),
        { ...opts, subset },
      ),
    );
  }
  return rows;
}
