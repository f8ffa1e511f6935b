/**
 * Ranks under the cluster bootstrap: how sure is the order of several groups' means (subjects' GFS)
 * when the questions are a sample? Each resample draws questions (clusters) with their runs, once for
 * all groups, so that groups answering the same questions stay paired; each group's resample mean is
 * the one `clusterBootstrapCI` computes for the same seed, so the ranks come from the very resamples
 * of the groups' intervals (when the groups share their clusters, as the subjects of a full run do).
 */
import { scoreGrid } from './bootstrap.ts';
import { resamplingStreams } from './resampling.ts';
import { assertArray, tailAlpha } from './validate.ts';

export interface RankRow {
  group: string;
  cluster: string;
  value: number;
}

export interface ResampleMeans {
  /** the groups, sorted */
  groups: string[];
  /** the clusters, sorted (the order the draws index) */
  clusters: string[];
  /** per group (in `groups` order), its mean on each resample; NaN where no row of the group was drawn */
  means: Float64Array[];
  /** per group, its mean over all its rows */
  estimates: number[];
}

function readRows(fn: string, rows: readonly RankRow[]): Map<string, Map<string, number[]>> {
  assertArray(fn, 'rows', rows);
  if (rows.length === 0) throw new RangeError(`${fn}: rows is empty`);
  const byGroup = new Map<string, Map<string, number[]>>();
  rows.forEach((row, i) => {
    if (row === null || typeof row !== 'object') throw new TypeError(`${fn}: rows[${i}] is not an object`);
    if (typeof row.group !== 'string') throw new TypeError(`${fn}: rows[${i}].group must be a string`);
    if (typeof row.cluster !== 'string') throw new TypeError(`${fn}: rows[${i}].cluster must be a string`);
    if (typeof row.value !== 'number' || !Number.isFinite(row.value))
      throw new RangeError(`${fn}: rows[${i}].value must be a finite number, got ${String(row.value)}`);
    let clusters = byGroup.get(row.group);
    if (!clusters) {
      clusters = new Map();
      byGroup.set(row.group, clusters);
    }
    const list = clusters.get(row.cluster);
    if (list) list.push(row.value);
    else clusters.set(row.cluster, [row.value]);
  });
  return byGroup;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The resample means of every group on shared cluster draws. Clusters are the sorted union of all
 * groups' clusters; resample b draws as many clusters as there are, the j-th as floor(u K) with u from
 * the even stream of `resamplingStreams(seed)` for even j and the odd one for odd j, exactly as
 * `clusterBootstrapCI` draws them. A group's mean is the sum of its rows in the drawn clusters over
 * their count, computed as `clusterBootstrapCI` computes it (on a score grid: integer units over
 * D x rows), so for a group whose clusters are all the clusters, in sorted order, the means are bit for
 * bit those of `clusterBootstrapCI(rows of the group sorted by cluster, { seed, resamples })`.
 */
export function clusterResampleMeans(
  rows: readonly RankRow[],
  opts: { seed: string; resamples: number },
): ResampleMeans {
  const fn = 'clusterResampleMeans';
  const byGroup = readRows(fn, rows);
  if (typeof opts?.seed !== 'string') throw new TypeError(`${fn}: seed must be a string`);
  if (!Number.isInteger(opts.resamples) || opts.resamples < 1)
    throw new RangeError(`${fn}: resamples must be a positive integer, got ${opts.resamples}`);
  const groups = [...byGroup.keys()].sort(byString);
  const clusters = [...new Set([...byGroup.values()].flatMap((m) => [...m.keys()]))].sort(byString);
  const k = clusters.length;
  // per group: each cluster's sum (in grid units when the group's values lie on a grid) and size
  const parts = groups.map((g) => {
    const members = byGroup.get(g) as Map<string, number[]>;
    const values = [...members.values()].flat();
    const grid = scoreGrid(values);
    const sums = new Float64Array(k);
    const sizes = new Float64Array(k);
    clusters.forEach((c, at) => {
      for (const v of members.get(c) ?? []) {
        sums[at] = (sums[at] as number) + (grid ? Math.round(v * grid.denominator) : v);
        sizes[at] = (sizes[at] as number) + 1;
      }
    });
    let plainSum = 0;
    for (const v of values) plainSum += v;
    return { sums, sizes, denominator: grid?.denominator ?? 1, estimate: plainSum / values.length };
  });
  const means = groups.map(() => new Float64Array(opts.resamples));
  const [even, odd] = resamplingStreams(opts.seed);
  const drawn = new Int32Array(k);
  for (let b = 0; b < opts.resamples; b++) {
    for (let j = 0; j < k; j++) drawn[j] = ((j & 1 ? odd() : even()) * k) | 0;
    parts.forEach((p, g) => {
      let sum = 0;
      let size = 0;
      for (let j = 0; j < k; j++) {
        const c = drawn[j] as number;
        sum += p.sums[c] as number;
        size += p.sizes[c] as number;
      }
      (means[g] as Float64Array)[b] = size === 0 ? Number.NaN : sum / (p.denominator * size);
    });
  }
  return { groups, clusters, means, estimates: parts.map((p) => p.estimate) };
}

export interface GroupRank {
  group: string;
  /** the group's mean over all its rows */
  estimate: number;
  /** the rank of the estimate (1 = highest mean; tied means share the better rank) */
  rank: number;
  /** the share of resamples in which the group ranks first (a tie for first shares the resample) */
  probabilityFirst: number;
  /** the mean rank over the resamples */
  meanRank: number;
  /** the rank interval: the alpha and 1 - alpha quantiles of the rank over the resamples */
  rankLow: number;
  rankHigh: number;
}

export interface RanksResult {
  groups: GroupRank[];
  resamples: number;
  seed: string;
  confidence: number;
}

/** Competition ranks of `values` (1 + the number of strictly greater values); NaN ranks last. */
function ranksOf(values: readonly number[]): number[] {
  const key = (x: number) => (Number.isNaN(x) ? Number.NEGATIVE_INFINITY : x);
  return values.map((v) => 1 + values.filter((w) => key(w) > key(v)).length);
}

/** The smallest rank whose cumulative share of resamples reaches `level` (the inverse CDF). */
function rankQuantile(counts: Float64Array, total: number, level: number): number {
  let cumulative = 0;
  for (let r = 1; r < counts.length; r++) {
    cumulative += counts[r] as number;
    if (cumulative >= level * total * (1 - 1e-12)) return r;
  }
  return counts.length - 1;
}

/**
 * The bootstrap distribution of the groups' ranks by mean (highest first), from the shared cluster
 * resamples of `clusterResampleMeans`: per group the probability of ranking first (a tie for first
 * splits the resample evenly among the tied), the mean rank and the rank interval at `confidence`
 * (default 0.95: the 2.5 % and 97.5 % quantiles of its rank; ranks are competition ranks, tied means
 * sharing the better one; a group with no row drawn ranks last). Deterministic for a seed.
 */
export function clusterBootstrapRanks(
  rows: readonly RankRow[],
  opts: { seed: string; resamples?: number; confidence?: number },
): RanksResult {
  const fn = 'clusterBootstrapRanks';
  const resamples = opts?.resamples ?? 9999;
  const confidence = opts?.confidence ?? 0.95;
  const alpha = tailAlpha(fn, confidence);
  const { groups, means, estimates } = clusterResampleMeans(rows, { seed: opts?.seed, resamples });
  const g = groups.length;
  const counts = groups.map(() => new Float64Array(g + 1));
  const first = new Float64Array(g);
  const rankSums = new Float64Array(g);
  const column = new Array<number>(g);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < g; i++) column[i] = (means[i] as Float64Array)[b] as number;
    const ranks = ranksOf(column);
    const tiedFirst = ranks.filter((r) => r === 1).length;
    ranks.forEach((r, i) => {
      const c = counts[i] as Float64Array;
      c[r] = (c[r] as number) + 1;
      rankSums[i] = (rankSums[i] as number) + r;
      if (r === 1) first[i] = (first[i] as number) + 1 / tiedFirst;
    });
  }
  const estimateRanks = ranksOf(estimates);
  return {
    groups: groups.map((group, i) => ({
      group,
      estimate: estimates[i] as number,
      rank: estimateRanks[i] as number,
      probabilityFirst: (first[i] as number) / resamples,
      meanRank: (rankSums[i] as number) / resamples,
      rankLow: rankQuantile(counts[i] as Float64Array, resamples, alpha),
      rankHigh: rankQuantile(counts[i] as Float64Array, resamples, 1 - alpha),
    })),
    resamples,
    seed: opts.seed,
    confidence,
  };
}
