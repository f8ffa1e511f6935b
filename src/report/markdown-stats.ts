/**
 * The report's sections on what the numbers can bear (issue 23): the judge-error-corrected GFS beside
 * the judge-only GFS, the ranking's bootstrap probabilities, the pairwise comparisons with the minimal
 * detectable difference of each. src/report/markdown.ts places them.
 */
import type { ProportionInterval } from '../stats/index.ts';
import { figureText } from '../util/figure.ts';
import { CONSISTENCY_ALL } from './consistency.ts';
import type { CorrectedCell } from './corrected.ts';
import { tableHead } from './markdown-table.ts';
import { type ComparisonPower, REPORT_ALPHA } from './power.ts';
import { ALL, type PairwiseTest, type SignFlipComparison } from './scores.ts';
import type { Summary } from './summary.ts';

const f3 = (x: number | null) => (x !== null && Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? '+' : '\u2212'}${Math.abs(x).toFixed(3)}`;

function correctedText(c: CorrectedCell): string {
  if (c.estimate === null) return `n/a (${c.reason})`;
  return `${f3(c.estimate)} [${f3(c.low)}, ${f3(c.high)}]${c.excludesJudgeOnly ? ' ⚠ excludes the judges' : ''}`;
}

/** The corrected GFS table with its explanation; a note when no response of the run is labelled. */
export function correctedSection(s: Summary): string[] {
  const k = s.corrected;
  const out = ['## Judge-error-corrected GFS (prediction-powered inference)', ''];
  const subjects = Object.keys(k.bySubject);
  if (subjects.length === 0) {
    out.push(
      'No scored response of this run has a human label, so the judges\u2019 GFS is not corrected for their error. Draw the validation sample (`rge validation sample`) and label it (`rge validation label`) to get it.',
      '',
    );
    return out;
  }
  out.push(
    `The GFS above is the judges'. The judges are imperfect (table 5.5), so it may sit above or below what people would score. Here the people's GFS of the ${k.labelled} labelled responses (their rubric scores, averaged over labellers, with the same weights) corrects the judges' mean over every scored cell: corrected = \u03bb \u00d7 (judges' mean over all cells) + (weighted mean over the labelled cells of people \u2212 \u03bb \u00d7 judges), with \u03bb tuned to make the interval as narrow as the data allow (PPI++; \u03bb = 0 would use the people's scores alone, \u03bb = 1 trusts the judges' ranking of cells fully). The validation sample is stratified by category (10/10/20/10) and proportional across subjects, so each labelled cell is weighted by its inclusion probability (its category's share of the subject's cells over its share of the labelled ones) and the estimate targets the whole run. The ${figureText(100 * (1 - k.alpha))}% interval is a normal interval whose standard error counts runs of one question as one cluster. Read it as the range of GFS people would plausibly give this run: it is wider than the judge-only interval because it also carries the uncertainty about the judges' error, and it is trustworthy only as far as the labelled cells are a fair, honestly labelled sample. **A subject whose corrected interval excludes its judge-only GFS is flagged (⚠): the judges' error moves its score by more than noise.** Categories are shown where a subject has at least ${k.minLabelledPerCategory} labelled cells.`,
    '',
  );
  const categories = [
    ...new Set(subjects.flatMap((m) => Object.keys(k.bySubject[m] ?? {}).filter((c) => c !== ALL))),
  ].sort();
  const columns = [ALL, ...categories];
  out.push(`| subject | | ${columns.join(' | ')} |`, `|---|---|${columns.map(() => '---').join('|')}|`);
  for (const m of subjects) {
    const cells = k.bySubject[m] ?? {};
    const row = (label: string, text: (c: CorrectedCell) => string) =>
      `| ${label === 'judge-only' ? m : ''} | ${label} | ${columns.map((c) => (cells[c] ? text(cells[c]) : '')).join(' | ')} |`;
    out.push(
      row('judge-only', (c) => f3(c.judgeOnly)),
      row('corrected', correctedText),
      row('labelled / cells', (c) => `${c.labelled} / ${c.cells} (\u03bb ${f3(c.lambda)})`),
    );
  }
  const flagged = subjects.filter((m) => k.bySubject[m]?.[ALL]?.excludesJudgeOnly);
  const flaggedCategories = subjects.flatMap((m) =>
    categories.filter((c) => k.bySubject[m]?.[c]?.excludesJudgeOnly).map((c) => `${m} (${c})`),
  );
  out.push(
    '',
    flagged.length > 0
      ? `Flagged: ${flagged.join(', ')} (the corrected interval excludes the judge-only GFS).`
      : "No subject's corrected interval (all categories together) excludes its judge-only GFS.",
  );
  if (flaggedCategories.length > 0) out.push(`In a category: ${flaggedCategories.join(', ')}.`);
  out.push('');
  return out;
}

/** The ranking's bootstrap probabilities, under both weightings. */
export function rankProbabilitiesLines(s: Summary): string[] {
  const r = s.ranks;
  if (!r) return [];
  const byGroup = (list: typeof r.primary) => new Map(list.map((g) => [g.group, g]));
  const primary = byGroup(r.primary);
  const equal = byGroup(r.equal);
  const out = [
    `Probability of ranking first and ${figureText(100 * r.confidence)}% rank interval, from the ${r.resamples.toLocaleString('en')} question resamples of the GFS intervals (seeds \`${r.seeds.primary}\`, \`${r.seeds.equal}\`; every resample draws the same questions for all subjects):`,
    '',
    '| subject | P(first), primary | rank interval, primary | P(first), equal | rank interval, equal |',
    '|---|---|---|---|---|',
  ];
  const interval = (g: { rankLow: number; rankHigh: number } | undefined) =>
    g ? (g.rankLow === g.rankHigh ? `${g.rankLow}` : `${g.rankLow}\u2013${g.rankHigh}`) : 'n/a';
  for (const m of s.ranking.primary) {
    const p = primary.get(m);
    const e = equal.get(m);
    out.push(
      `| ${m} | ${p ? pct(p.probabilityFirst) : 'n/a'} | ${interval(p)} | ${e ? pct(e.probabilityFirst) : 'n/a'} | ${interval(e)} |`,
    );
  }
  out.push('');
  return out;
}

function comparisonOf(s: Summary, p: PairwiseTest): ComparisonPower | undefined {
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
export function pairwiseSection(s: Summary): string[] {
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
function pairwisePowerNote(s: Summary): string[] {
  if (s.power.comparisons.length === 0) return [];
  return [
    `MDD: the minimal detectable difference in GFS, the true difference the paired sign-flip test of GFS at the Bonferroni level (${figureText(s.power.alpha)} / ${s.power.family} = ${figureText(Number((s.power.alpha / s.power.family).toFixed(4)))}, two-sided) finds with ${figureText(100 * s.power.power)}% power, (t(1 \u2212 alpha/2) + t(0.8)) SE with the questions' degrees of freedom, SE from the variance of the paired (question, run) differences with runs nested in questions. A difference smaller than the MDD can be real and still go unseen: plan a larger run with \`rge plan --from <this summary.json> --effect <difference>\`.`,
    '',
  ];
}

const share = (p: ProportionInterval) =>
  p.low === null || p.high === null ? 'n/a' : `${pct(p.share)} [${pct(p.low)}, ${pct(p.high)}]`;

/**
 * Consistency across runs: per subject and category, the questions whose runs all pass (pass^k), whose
 * runs disagree (flip) and that never pass, with Wilson intervals, beside the share of cases that pass.
 */
export function consistencySection(s: Summary): string[] {
  const c = s.consistency;
  const rows = Object.entries(c.bySubject).flatMap(([subject, cells]) =>
    Object.entries(cells).map(
      ([category, x]) =>
        `| ${subject} | ${category === CONSISTENCY_ALL ? '**all**' : category} | ${x.questions}${x.incomplete > 0 ? ` (${x.incomplete} incomplete left out)` : ''} | ${x.runs} | ${pct(x.casePassRate)} | ${share(x.allPass)} | ${share(x.flip)} | ${share(x.never)} |`,
    ),
  );
  if (rows.length === 0) return [];
  return [
    '## Consistency across runs',
    '',
    `Whether the same questions pass every time, not only how many cases pass: ${c.rule}.`,
    '',
    '| subject | category | questions | runs (k) | cases passing | pass^k | flip | never |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ];
}
