/**
 * The ranking's uncertainty (methodology RQ4): under each GFS weighting, the bootstrap probability that
 * each subject ranks first and its 95 % rank interval, from the cluster resamples of the GFS table's
 * `all` column: the same seed (`${seed}:all:${weighting}`), the same question draws (shared by every
 * subject, so the comparison stays paired) and the same resample means as the intervals (see
 * `clusterResampleMeans`). Pure.
 */
import { clusterBootstrapRanks, type GroupRank } from '../stats/index.ts';
import { ALL, intervalSeed, type RowsBySubject } from './scores.ts';
import type { CaseRowView } from './views.ts';

export interface RankProbabilities {
  resamples: number;
  confidence: number;
  seeds: { primary: string; equal: string };
  primary: GroupRank[];
  equal: GroupRank[];
}

/** Null with fewer than two subjects scored (nothing to rank). */
export function rankProbabilities(
  bySubject: RowsBySubject,
  seed: string,
  resamples: number,
): RankProbabilities | null {
  const rows = (pick: (r: CaseRowView) => number | null) =>
    [...bySubject].flatMap(([subject, mine]) =>
      // a case with no gold has no GFS: left out, never counted 0
      mine.flatMap((r) => {
        const value = r.scores.unscored ? null : pick(r);
        return value === null ? [] : [{ group: subject, cluster: r.question_id, value }];
      }),
    );
  const primaryRows = rows((r) => r.scores.gfsPrimary);
  if (new Set(primaryRows.map((r) => r.group)).size < 2) return null;
  const seeds = { primary: intervalSeed(seed, ALL, 'primary'), equal: intervalSeed(seed, ALL, 'equal') };
  const confidence = 0.95;
  return {
    resamples,
    confidence,
    seeds,
    primary: clusterBootstrapRanks(primaryRows, { seed: seeds.primary, resamples, confidence }).groups,
    equal: clusterBootstrapRanks(
      rows((r) => r.scores.gfsEqual),
      { seed: seeds.equal, resamples, confidence },
    ).groups,
  };
}
