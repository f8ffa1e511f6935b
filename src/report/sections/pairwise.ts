/**
 * The pairwise comparisons: per pair, GFS (the headline) and each dimension by the paired sign-flip test
 * over questions with its Bonferroni p and the MDD; then pass/fail by McNemar on binarised correctness.
 * In summary.json, `pairwise`, `pairwiseMethod` and `power` (src/report/scores.ts, power.ts).
 */
import { figureText } from '../../util/figure.ts';
import { CORRECT_AT } from '../diagnostics.ts';
import { type ComparisonPower, type PowerSection, powerSection, REPORT_ALPHA } from '../power.ts';
import { type PairwiseMethod, type PairwiseTest, pairwise, type SignFlipComparison } from '../scores.ts';
import type { ReportSection } from '../section.ts';
import { f3, signed, tableHead } from './format.ts';

export interface PairwiseData {
  pairwise: PairwiseTest[];
  /** how the pairs are tested: the test, pass/fail's, the correction and its family */
  pairwiseMethod: PairwiseMethod;
  /** the minimal detectable difference of each comparison, and the inputs of `rge plan` */
  power: PowerSection;
}

function comparisonOf(s: PairwiseData, p: PairwiseTest): ComparisonPower | undefined {
  return s.power.comparisons.find((c) => c.a === p.a && c.b === p.b);
}

const pValue = (p: number | null | undefined) =>
  p === null || p === undefined ? '-' : p < 0.001 ? '<0.001' : p.toFixed(3);

/** A measure's difference and its Bonferroni p, `+0.400 (<0.001)`; `-` for a pair not tested. */
const measureCell = (t: SignFlipComparison | null) =>
  t ? `${signed(t.difference)} (${pValue(t.pBonferroni)})` : '-';

/**
 * The pairwise comparisons: per pair, GFS (the headline) and each dimension by the paired sign-flip test
 * over questions with its Bonferroni p and the MDD; then pass/fail by McNemar on binarised correctness.
 */
function pairwiseSection(s: PairwiseData): string[] {
  const m = s.pairwiseMethod;
  const pairs = `${m.family} pair${m.family === 1 ? '' : 's'}`;
  const rows = s.pairwise.map((p) => {
    const c = comparisonOf(s, p);
    return `| ${p.a} | ${p.b} | ${p.n} | ${p.questions} | ${p.gfs ? signed(p.gfs.difference) : '-'} | ${pValue(p.gfs?.pValue)} | ${pValue(p.gfs?.pBonferroni)} | ${c ? f3(c.mdd) : '-'} | ${measureCell(p.correctness)} | ${measureCell(p.grounding)} | ${measureCell(p.calibration)} |`;
  });
  const passFail = s.pairwise.map(
    (p) =>
      `| ${p.a} | ${p.b} | ${p.n} | ${p.passFail?.n10 ?? 0} | ${p.passFail?.n01 ?? 0} | ${pValue(p.passFail?.pValue)} | ${pValue(p.passFail?.pBonferroni)} | ${p.passFail?.method ?? 'none (no cell scored by both)'} |`,
  );
  return [
    '## Pairwise comparison (paired sign-flip test over questions, Bonferroni-corrected)',
    '',
    `What the first screen reports, tested as it is reported: GFS and each dimension, the mean difference a \u2212 b over the (question, run) cells both subjects have a score for (a subject's own failure counted as 0, an unscored case left out), by the ${m.test} that \`rge gate\` uses: a question's cells negated together, all 2^questions sign vectors when that is at most ${(m.resamples + 1).toLocaleString('en')}, else ${m.resamples.toLocaleString('en')} random ones. p-values two-sided, Bonferroni-corrected over the ${pairs} tested, each measure apart; a difference is significant below ${figureText(REPORT_ALPHA)}. Dimensions on the rubric's 0-2 scale, each with its corrected p.`,
    '',
    ...tableHead([
      'a',
      'b',
      'paired cells',
      'questions',
      'GFS a \u2212 b',
      'p',
      'p (Bonferroni)',
      'MDD',
      'correctness a \u2212 b (p)',
      'grounding a \u2212 b (p)',
      'calibration a \u2212 b (p)',
    ]),
    ...rows,
    '',
    ...pairwisePowerNote(s),
    `Pass/fail: ${m.passFail}; 'a only' counts cells a got right and b did not. Bonferroni over the same ${pairs}.`,
    '',
    ...tableHead(['a', 'b', 'paired cells', 'a only', 'b only', 'p', 'p (Bonferroni)', 'test']),
    ...passFail,
    '',
  ];
}

/** What the MDD column means, under the pairwise table. */
function pairwisePowerNote(s: PairwiseData): string[] {
  if (s.power.comparisons.length === 0) return [];
  return [
    `MDD: the minimal detectable difference in GFS, the true difference the paired sign-flip test of GFS at the Bonferroni level (${figureText(s.power.alpha)} / ${s.power.family} = ${figureText(Number((s.power.alpha / s.power.family).toFixed(4)))}, two-sided) finds with ${figureText(100 * s.power.power)}% power, (t(1 \u2212 alpha/2) + t(0.8)) SE with the questions' degrees of freedom, SE from the variance of the paired (question, run) differences with runs nested in questions. A difference smaller than the MDD can be real and still go unseen: plan a larger run with \`rge plan --from <this summary.json> --effect <difference>\`.`,
    '',
  ];
}

const section: ReportSection<PairwiseData> = {
  id: 'pairwise',
  place: 'below',
  compute: (c) => {
    const pairs = pairwise(c.ranked, { seed: c.seed, correctAt: c.opts.correctAt ?? CORRECT_AT });
    return {
      pairwise: pairs.tests,
      pairwiseMethod: pairs.method,
      power: powerSection(c.ranked, pairs.tests, c.bySubject),
    };
  },
  render: pairwiseSection,
};
export default section;
