/**
 * Two judges compared on the same human labels (`rge judge agree --compare A,B`): which agrees with the
 * people better, by how much, and whether the difference is real. On the items both judges scored:
 *
 * - each judge's kappa (Cohen's, the pre-registered figure) and alpha (Krippendorff's: ordinal where the
 *   format's labels are ordered, else nominal) against the people, and the differences A - B with a
 *   paired bootstrap interval (BCa, the same resampled items for both judges, so what the items share
 *   cancels out);
 * - McNemar's test on agreement: items where A matches the people and B does not, against the reverse
 *   (exact binomial below 25 discordant items, else chi-square with continuity correction).
 *
 * Pure. Items are resampled one by one (the public sets' items are taken as independent, as in
 * `agreement`); the seed is `compare:<A>:<B>:<format>`, so the same labels and verdicts give the same
 * interval.
 */
import type { JudgeOutcome } from '../judging/verdict.ts';
import {
  type AgreementMeasure,
  bootstrapCI,
  KAPPA_CONFIDENCE,
  KAPPA_RESAMPLES,
  type McNemarResult,
  mcnemar,
  pairAgreement,
} from '../stats/index.ts';
import {
  type AgreementFormat,
  type AgreementItem,
  FORMAT_LABELS,
  FORMAT_ORDERED,
  verdictLabel,
} from './datasets.ts';

export interface MeasureComparison {
  measure: AgreementMeasure;
  a: number;
  b: number;
  /** a - b; NaN where either is undefined */
  difference: number;
  /** paired BCa interval of the difference; null where it is undefined */
  low: number | null;
  high: number | null;
  /** resamples on which the difference was undefined (each counted as the estimate) */
  undefinedResamples: number;
}

export interface JudgeComparison {
  format: AgreementFormat;
  judges: [string, string];
  /** items both judges scored (the comparison's items) */
  n: number;
  /** items left out because one judge or both did not score them */
  unscored: number;
  measures: MeasureComparison[];
  /** share of the n items each judge labelled as the people did */
  accuracy: [number, number];
  /** McNemar on agreement with the people; n01: B agrees and A does not; n10: A agrees and B does not */
  mcnemar: McNemarResult | null;
  seed: string;
  resamples: number;
  confidence: number;
}

export interface CompareOptions {
  seed?: string;
  resamples?: number;
  confidence?: number;
}

/** The seed of a comparison's intervals. */
export const compareSeed = (a: string, b: string, format: AgreementFormat) => `compare:${a}:${b}:${format}`;

/** The paired difference of one measure between the two judges, with its interval over the items. */
function compareMeasure(
  measure: AgreementMeasure,
  human: readonly number[],
  labelsA: readonly number[],
  labelsB: readonly number[],
  labelCount: number,
  opts: Required<CompareOptions>,
): MeasureComparison {
  const of = (idx: ArrayLike<number>) => {
    const pick = (xs: readonly number[]) => Array.from(idx, (i) => xs[i] as number);
    const h = pick(human);
    return (
      pairAgreement(measure, h, pick(labelsA), labelCount) -
      pairAgreement(measure, h, pick(labelsB), labelCount)
    );
  };
  const all = human.map((_, i) => i);
  const a = human.length === 0 ? Number.NaN : pairAgreement(measure, human, labelsA, labelCount);
  const b = human.length === 0 ? Number.NaN : pairAgreement(measure, human, labelsB, labelCount);
  const difference = a - b;
  const base = { measure, a, b, difference, undefinedResamples: 0 };
  if (!Number.isFinite(difference) || human.length < 2) return { ...base, low: null, high: null };
  let calls = 0;
  let undefinedResamples = 0;
  const ci = bootstrapCI(all, {
    method: 'bca',
    resamples: opts.resamples,
    confidence: opts.confidence,
    seed: opts.seed,
    statistic: (idx) => {
      calls++;
      const d = of(idx);
      if (Number.isFinite(d)) return d;
      if (calls > 1 && calls <= opts.resamples + 1) undefinedResamples++;
      return difference;
    },
  });
  return { ...base, low: ci.low, high: ci.high, undefinedResamples };
}

/** Judges A and B against the people's labels on the same items (outcomes in item order). */
export function compareJudges(
  format: AgreementFormat,
  judges: [string, string],
  items: readonly AgreementItem[],
  outcomes: readonly [readonly JudgeOutcome[], readonly JudgeOutcome[]],
  options: CompareOptions = {},
): JudgeComparison {
  const [outA, outB] = outcomes;
  if (outA.length !== items.length || outB.length !== items.length)
    throw new RangeError(
      `compareJudges: ${items.length} items but ${outA.length} and ${outB.length} outcomes`,
    );
  const opts: Required<CompareOptions> = {
    seed: options.seed ?? compareSeed(judges[0], judges[1], format),
    resamples: options.resamples ?? KAPPA_RESAMPLES,
    confidence: options.confidence ?? KAPPA_CONFIDENCE,
  };
  const human: number[] = [];
  const labelsA: number[] = [];
  const labelsB: number[] = [];
  items.forEach((item, i) => {
    const va = outA[i]?.verdict;
    const vb = outB[i]?.verdict;
    if (!va || !vb) return;
    human.push(item.human);
    labelsA.push(verdictLabel(format, va));
    labelsB.push(verdictLabel(format, vb));
  });
  const labelCount = FORMAT_LABELS[format].length;
  const alpha: AgreementMeasure = FORMAT_ORDERED[format] ? 'alpha-ordinal' : 'alpha-nominal';
  const measures = (['kappa', alpha] as const).map((m) =>
    compareMeasure(m, human, labelsA, labelsB, labelCount, opts),
  );
  const agreeA = human.map((h, i) => h === labelsA[i]);
  const agreeB = human.map((h, i) => h === labelsB[i]);
  const n = human.length;
  return {
    format,
    judges,
    n,
    unscored: items.length - n,
    measures,
    accuracy: [
      n === 0 ? Number.NaN : agreeA.filter(Boolean).length / n,
      n === 0 ? Number.NaN : agreeB.filter(Boolean).length / n,
    ],
    // mcnemar's n10 counts a true and b false: here a = A agrees
    mcnemar: n === 0 ? null : mcnemar({ a: agreeA, b: agreeB }),
    seed: opts.seed,
    resamples: opts.resamples,
    confidence: opts.confidence,
  };
}

const f3 = (x: number | null) => (x === null || !Number.isFinite(x) ? 'n/a' : x.toFixed(3));
const signed = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(3)}` : 'n/a');
const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'n/a');

/** The comparison as the terminal prints it. */
export function formatComparison(c: JudgeComparison): string {
  const [a, b] = c.judges;
  const level = (m: AgreementMeasure) =>
    m === 'kappa' ? "Cohen's kappa" : `alpha (${m.slice('alpha-'.length)})`;
  const ci = Math.round(c.confidence * 100);
  const rows = c.measures.map(
    (m) =>
      `  ${level(m.measure).padEnd(18)} A ${f3(m.a)}  B ${f3(m.b)}  A - B ${signed(m.difference)} [${f3(m.low)}, ${f3(m.high)}]${m.low !== null && m.high !== null && (m.low > 0 || m.high < 0) ? ' (excludes 0)' : ''}`,
  );
  const mc = c.mcnemar;
  const test = mc
    ? `A agrees with the people where B does not on ${mc.n10} item(s), B where A does not on ${mc.n01}; McNemar (${mc.method}) p = ${mc.pValue < 0.0001 ? mc.pValue.toExponential(2) : mc.pValue.toFixed(4)}`
    : 'no item scored by both judges';
  return [
    `judges compared on ${c.format}: A ${a}, B ${b}; ${c.n} item(s) both scored${c.unscored > 0 ? `, ${c.unscored} left out (unscored by one or both)` : ''}`,
    ...rows,
    `  agreement with the people: A ${pct(c.accuracy[0])}, B ${pct(c.accuracy[1])}`,
    `  ${test}`,
    `  intervals: paired BCa bootstrap over the items (the same items for both judges), ${c.resamples} resamples, ${ci}%, seed ${c.seed}`,
    '',
  ].join('\n');
}
