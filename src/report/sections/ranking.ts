/**
 * The ranking under both weightings, whether it is robust, and each subject's bootstrap probability of
 * ranking first with its rank interval (src/report/ranks.ts). In summary.json, `ranking` and `ranks`.
 */
import { figureText } from '../../util/figure.ts';
import { type RankProbabilities, rankProbabilities } from '../ranks.ts';
import { type Ranking, ranking } from '../scores.ts';
import type { ReportSection } from '../section.ts';
import { pct } from './format.ts';

export interface RankingData {
  ranking: Ranking;
  /** each subject's bootstrap probability of ranking first and rank interval, both weightings (null: one subject) */
  ranks: RankProbabilities | null;
}

function rankingSection(s: RankingData): string[] {
  return [
    '## Ranking',
    '',
    `Primary: ${s.ranking.primary.join(' > ')}. Equal: ${s.ranking.equal.join(' > ')}.`,
    `Robust: **${s.ranking.robust ? 'yes' : 'no'}** (${s.ranking.reason}).`,
    '',
    ...rankProbabilitiesLines(s),
  ];
}

/** The ranking's bootstrap probabilities, under both weightings. */
function rankProbabilitiesLines(s: RankingData): string[] {
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

const section: ReportSection<RankingData> = {
  id: 'ranking',
  place: 'below',
  compute: (c) => ({
    ranking: ranking(c.ranked, c.gfs),
    ranks: rankProbabilities(c.ranked, c.seed, c.resamples),
  }),
  render: rankingSection,
};
export default section;
