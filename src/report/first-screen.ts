/**
 * The report's first screen: the answer to the question a run is for. Who is best (the subjects ranked
 * by overall primary GFS with its interval and the bootstrap probability of ranking first), by how much
 * and whether it is real (each pair's GFS difference, the McNemar test at the Bonferroni level the
 * pairwise table prints) and how large a difference the run could have seen (the pair's MDD). Every
 * figure is the summary's own (src/report/scores.ts, ranks.ts, power.ts): nothing is recomputed here.
 */
import { tableHead } from './markdown-table.ts';
import type { ComparisonPower } from './power.ts';
import { ALL, type Interval, type PairwiseTest } from './scores.ts';
import type { Summary } from './summary.ts';

/** The family-wise level a pairwise difference is called significant at (Bonferroni-corrected p). */
export const SIGNIFICANT_BELOW = 0.05;

const f3 = (x: number | null) => (x !== null && Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? '+' : '\u2212'}${Math.abs(x).toFixed(3)}`;
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

function leads(s: Summary): Lead[] {
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
        pBonferroni: p.pBonferroni,
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
function headline(s: Summary, all: Lead[]): string {
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

/** The first screen's section: a headline, the ranking table, the pairs' table, and what they mean. */
export function answerSection(s: Summary): string[] {
  const all = leads(s);
  const ranks = new Map((s.ranks?.primary ?? []).map((g) => [g.group, g]));
  const out = [
    '## The answer: who is best, by how much, and is it real',
    '',
    headline(s, all),
    '',
    ...tableHead(['rank', 'subject', 'GFS, 95% interval', 'P(ranks first)', 'rank interval']),
  ];
  for (const [i, m] of s.ranking.primary.entries()) {
    const g = ranks.get(m);
    const interval = g
      ? g.rankLow === g.rankHigh
        ? `${g.rankLow}`
        : `${g.rankLow}\u2013${g.rankHigh}`
      : 'n/a';
    out.push(
      `| ${i + 1} | ${m} | ${gfsText(s.gfs[m]?.[ALL]?.primary)} | ${g ? pct(g.probabilityFirst) : 'n/a'} | ${interval} |`,
    );
  }
  out.push('');
  if (all.length > 0) {
    out.push(...tableHead(['difference', 'GFS', 'significant', 'p (Bonferroni)', 'MDD']));
    for (const l of all)
      out.push(
        `| ${l.higher} \u2212 ${l.lower} | ${l.difference === null ? 'n/a' : signed(l.difference)} | ${significance(l)} | ${l.pBonferroni === null ? '-' : pText(l.pBonferroni)} | ${f3(l.mdd)} |`,
      );
    out.push(
      '',
      `GFS: primary weighting, all questions. Significant: McNemar on binarised correctness, p below ${SIGNIFICANT_BELOW} after Bonferroni over ${s.power.family} pair${s.power.family === 1 ? '' : 's'}. MDD: the GFS difference this run detects with ${100 * s.power.power}% power; a smaller real difference can go unseen. Ranking ${s.ranking.robust ? 'robust' : '**not robust**'}: ${s.ranking.reason}. Details below: per category, the ranking under both weightings, the pairwise table.`,
      '',
    );
  }
  return out;
}
