/**
 * The report's first screen: the answer to the question a run is for. Who is best (the subjects ranked
 * by overall primary GFS with its interval and the bootstrap probability of ranking first; each
 * subject's cases it gave no answer for, scored 0, and its unscored ones, with its answered-only GFS
 * when it failed some), what the judges are when they are not validated against people, by how much and
 * whether it is real (each pair's GFS difference, the paired sign-flip test of GFS at the Bonferroni
 * level the pairwise table prints) and how large a difference the run could have seen (the pair's MDD).
 * Every figure is the summary's own (src/report/scores.ts, outcomes.ts, ranks.ts, power.ts): nothing is
 * recomputed here. In summary.json, each subject's outcomes.
 */
import { figureText } from '../../util/figure.ts';
import { type Outcomes, outcomes } from '../outcomes.ts';
import type { ComparisonPower } from '../power.ts';
import { ALL, type Interval, type PairwiseTest } from '../scores.ts';
import type { ReportSection } from '../section.ts';
import type { AgreementData } from './agreement.ts';
import { f3, pct, signed, tableHead } from './format.ts';
import type { GfsData } from './gfs.ts';
import type { HeaderData } from './header.ts';
import type { PairwiseData } from './pairwise.ts';
import type { RankingData } from './ranking.ts';
import type { ValidationData } from './validation.ts';
import type { WhatWasRunData } from './what-was-run.ts';

export interface AnswerData {
  /** per subject: its cases by outcome (answered, unscored, failed, not computed), its answered-only GFS */
  outcomes: Outcomes;
}

/** What the first screen reads of the summary. */
export type AnswerReads = HeaderData &
  AnswerData &
  GfsData &
  RankingData &
  PairwiseData &
  AgreementData &
  ValidationData &
  WhatWasRunData;

const DIMENSIONS = ['correctness', 'grounding', 'calibration'] as const;

/** The family-wise level a pairwise difference is called significant at (Bonferroni-corrected p). */
export const SIGNIFICANT_BELOW = 0.05;

const gfsText = (i: Interval | null | undefined) =>
  i ? `${f3(i.estimate)} [${f3(i.low)}, ${f3(i.high)}]` : 'n/a';
const pText = (p: number) => (p < 0.001 ? '<0.001' : p.toFixed(3));

/** A pair as the first screen shows it: the better-ranked subject first, its lead, the test, the MDD. */
interface Lead {
  higher: string;
  lower: string;
  difference: number | null;
  pBonferroni: number | null;
  mdd: number | null;
}

function leads(s: AnswerReads): Lead[] {
  const rank = new Map(s.ranking.primary.map((m, i) => [m, i]));
  const power = (p: PairwiseTest): ComparisonPower | undefined =>
    s.power.comparisons.find((c) => c.a === p.a && c.b === p.b);
  return s.pairwise
    .map((p): Lead => {
      const flip = (rank.get(p.a) ?? 0) > (rank.get(p.b) ?? 0);
      const c = power(p);
      return {
        higher: flip ? p.b : p.a,
        lower: flip ? p.a : p.b,
        difference: c ? (flip ? -c.difference : c.difference) : null,
        pBonferroni: p.gfs?.pBonferroni ?? null,
        mdd: c?.mdd ?? null,
      };
    })
    .sort(
      (x, y) =>
        (rank.get(x.higher) ?? 0) - (rank.get(y.higher) ?? 0) ||
        (rank.get(x.lower) ?? 0) - (rank.get(y.lower) ?? 0),
    );
}

const significance = (l: Lead) =>
  l.pBonferroni === null ? 'not tested' : l.pBonferroni < SIGNIFICANT_BELOW ? '**yes**' : 'no';

/** One sentence: who ranks first, how likely, and whether its lead over the next subject is real. */
function headline(s: AnswerReads, all: Lead[]): string {
  const [first, second] = s.ranking.primary;
  if (first === undefined) return 'No subject has a scored case.';
  const p = s.ranks?.primary.find((g) => g.group === first)?.probabilityFirst;
  const opening = `**${first}** ranks first, GFS ${gfsText(s.gfs[first]?.[ALL]?.primary)}`;
  if (second === undefined) return `${opening}; one subject: nothing to compare.`;
  const lead = all.find((l) => l.higher === first && l.lower === second);
  const by = lead?.difference === null || lead === undefined ? '' : ` (${signed(lead.difference)})`;
  const real =
    lead?.pBonferroni === null || lead === undefined
      ? 'was not tested (no cell both scored)'
      : lead.pBonferroni < SIGNIFICANT_BELOW
        ? 'is significant'
        : `is not significant${lead.mdd !== null && lead.difference !== null && Math.abs(lead.difference) < lead.mdd ? `, and smaller than the ${f3(lead.mdd)} this run could detect` : ''}`;
  return `${opening}${p === undefined ? '' : `, with probability ${pct(p)}`}; its lead over ${second}${by} ${real}.`;
}

/** The judges as a reader must know them: each id, whether it is an offline heuristic, and its names. */
function judgesOf(s: AnswerReads): { id: string; names: string[]; heuristic: boolean }[] {
  if (s.describe)
    return s.describe.judges.map((j) => ({
      id: j.id,
      names: [j.id, `${j.provider}/${j.model}`],
      heuristic: j.provider === 'heuristic',
    }));
  // no description (an older summary, a test): the judges that scored the cases, by their verdicts' ids
  const ids = [...new Set(Object.values(s.judgeAgreement.bySubject).flatMap((x) => x.judges))].filter(
    Boolean,
  );
  return ids.sort().map((id) => ({ id, names: [id], heuristic: id.startsWith('heuristic/') }));
}

/** Whether table 5.5 of this run has a kappa against people for every dimension of a judge. */
function validated(s: AnswerReads, names: readonly string[]): boolean {
  return DIMENSIONS.every((d) =>
    s.validation.table.some(
      (c) => names.includes(c.judge) && c.dimension === d && c.n > 0 && Number.isFinite(c.kappa),
    ),
  );
}

/**
 * One sentence beside the ranking when its scores are not a measurement: the judges are the offline
 * heuristics, or a judge has no kappa against people in this run's validation section (table 5.5).
 * Null when every judge is a model with a kappa there.
 */
export function judgesSentence(s: AnswerReads): string | null {
  const judges = judgesOf(s).map((j) => ({ ...j, validated: validated(s, j.names) }));
  const heuristic = judges.filter((j) => j.heuristic);
  const others = judges.filter((j) => !j.heuristic && !j.validated).map((j) => j.id);
  if (heuristic.length === 0 && others.length === 0) return null;
  const list = (ids: readonly string[]) => ids.join(', ');
  const heuristicIds = list(heuristic.map((j) => j.id));
  if (others.length === 0)
    return heuristic.every((j) => j.validated)
      ? `**Judges:** the scores come from offline heuristic judges (${heuristicIds}), checked against people in this run's validation section (judges against people, below): read their kappas there before reading the scores as a measurement.`
      : `**Judges:** the scores come from offline heuristic judges (${heuristicIds}), not validated against people: they exercise the pipeline and are not a measurement.`;
  const also = heuristic.length > 0 ? `offline heuristic judges (${heuristicIds}) and ` : '';
  return `**Judges:** ${also}${others.length === 1 ? 'the judge' : 'the judges'} ${list(others)} ${others.length === 1 ? 'has' : 'have'} no kappa against people in this run's validation section (judges against people, below): the scores are the judges' own, not validated against people, so they are not a measurement.`;
}

/** A subject's cases the ranking counts as it does (its own failures scored 0; its unscored left out). */
function outcomeCells(s: AnswerReads, m: string): string {
  const o = s.outcomes[m];
  return `${o?.failed ?? 0} | ${o?.unscored ?? 0}`;
}

/** The ranking table: GFS (failures scored 0) and, when a subject failed some, the answered-only GFS. */
function rankingTable(s: AnswerReads): string[] {
  const ranks = new Map((s.ranks?.primary ?? []).map((g) => [g.group, g]));
  const anyFailed = s.models.some((m) => (s.outcomes[m]?.failed ?? 0) > 0);
  const out = tableHead([
    'rank',
    'subject',
    'GFS, 95% interval',
    ...(anyFailed ? ['answered only'] : []),
    'P(ranks first)',
    'rank interval',
    'failed (no answer)',
    'unscored',
  ]);
  for (const [i, m] of s.ranking.primary.entries()) {
    const g = ranks.get(m);
    const interval = g
      ? g.rankLow === g.rankHigh
        ? `${g.rankLow}`
        : `${g.rankLow}\u2013${g.rankHigh}`
      : 'n/a';
    const answered = s.outcomes[m]?.answeredOnly;
    const onlyAnswered = anyFailed ? [answered ? gfsText(answered.primary) : 'as GFS'] : [];
    out.push(
      `| ${[i + 1, m, gfsText(s.gfs[m]?.[ALL]?.primary), ...onlyAnswered, g ? pct(g.probabilityFirst) : 'n/a', interval, outcomeCells(s, m)].join(' | ')} |`,
    );
  }
  return out;
}

/** What the ranking's counts mean, and the cases left out for reasons that are not the subject's. */
function outcomeNote(s: AnswerReads): string {
  const anyFailed = s.models.some((m) => (s.outcomes[m]?.failed ?? 0) > 0);
  const left = Object.values(s.outcomes).reduce((n, o) => n + o.notComputed, 0);
  return (
    "Failed: cases the subject gave no answer for (its own failure), scored 0 in GFS and in the gate; unscored: no judge scored the answer, left out (a judge's failure is not the subject's)." +
    (anyFailed ? ' Answered only: GFS over the cases the subject answered.' : '') +
    (left > 0
      ? ` ${left} case${left === 1 ? '' : 's'} of these subjects ${left === 1 ? 'has' : 'have'} no result for other reasons (the run stopped, a judge's call failed): listed under Errors, left out.`
      : '')
  );
}

/** The first screen's section: a headline, the ranking table, the pairs' table, and what they mean. */
export function answerSection(s: AnswerReads): string[] {
  const all = leads(s);
  const judges = judgesSentence(s);
  const out = [
    '## The answer: who is best, by how much, and is it real',
    '',
    headline(s, all),
    '',
    ...rankingTable(s),
    '',
    ...(judges ? [judges, ''] : []),
  ];
  if (all.length > 0) {
    out.push(...tableHead(['difference', 'GFS', 'significant', 'p (Bonferroni)', 'MDD']));
    for (const l of all)
      out.push(
        `| ${l.higher} \u2212 ${l.lower} | ${l.difference === null ? 'n/a' : signed(l.difference)} | ${significance(l)} | ${l.pBonferroni === null ? '-' : pText(l.pBonferroni)} | ${f3(l.mdd)} |`,
      );
    out.push(
      '',
      `GFS: primary weighting, all questions. Significant: the paired sign-flip test of GFS over questions (a question's runs together, as \`rge gate\`), p below ${figureText(SIGNIFICANT_BELOW)} after Bonferroni over ${s.power.family} pair${s.power.family === 1 ? '' : 's'}; each dimension and pass/fail (McNemar) in the pairwise table below. MDD: the GFS difference this run detects with ${figureText(100 * s.power.power)}% power; a smaller real difference can go unseen. ${outcomeNote(s)} Ranking ${s.ranking.robust ? 'robust' : '**not robust**'}: ${s.ranking.reason}. Details below: per category, the ranking under both weightings, the pairwise table.`,
      '',
    );
  } else out.push(outcomeNote(s), '');
  return out;
}

const section: ReportSection<AnswerData, AnswerReads> = {
  id: 'answer',
  place: 'first-screen',
  compute: (c) => ({
    outcomes: outcomes(c.bySubject, c.failed, c.errors, { seed: c.seed, resamples: c.resamples }),
  }),
  render: answerSection,
};
export default section;
