/**
 * Bootstrap ranks: the resample means are bit for bit those of clusterBootstrapCI for the same seed
 * (the ranks come from the intervals' resamples), the probability of ranking first, ties, rank
 * intervals and determinism.
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { clusterBootstrapCI, clusterBootstrapRanks, clusterResampleMeans } from '../../src/stats/index.ts';
import { linearPercentile } from '../../src/stats/percentile.ts';

/** GFS-like cells on a 1/40 grid: `groups` subjects x 30 questions x 2 runs, group g shifted by shift[g]. */
function cells(shift: readonly number[], seed = 'cells') {
  const random = seedrandom(seed);
  const out: { group: string; cluster: string; value: number }[] = [];
  for (let q = 0; q < 30; q++) {
    const difficulty = Math.floor(random() * 20);
    for (let run = 0; run < 2; run++)
      shift.forEach((s, g) => {
        const units = Math.min(40, Math.max(0, difficulty + s + Math.floor(random() * 8)));
        out.push({ group: `s${g}`, cluster: `q-${String(q).padStart(2, '0')}`, value: units / 40 });
      });
  }
  return out;
}

describe('clusterResampleMeans', () => {
  it("each group's resample means are clusterBootstrapCI's for the same seed (the same percentile interval)", () => {
    const rows = cells([0, 2, 4]);
    const opts = { seed: 'rank-test', resamples: 2000 };
    const joint = clusterResampleMeans(rows, opts);
    expect(joint.groups).toEqual(['s0', 's1', 's2']);
    joint.groups.forEach((g, i) => {
      const mine = rows.filter((r) => r.group === g).sort((a, b) => (a.cluster < b.cluster ? -1 : 1));
      const ci = clusterBootstrapCI(mine, { ...opts, method: 'percentile' });
      const sorted = Float64Array.from(joint.means[i] as Float64Array).sort();
      const alpha = (1 - 0.95) / 2; // as clusterBootstrapCI computes it
      expect(linearPercentile(sorted, alpha)).toBe(ci.low);
      expect(linearPercentile(sorted, 1 - alpha)).toBe(ci.high);
      expect(joint.estimates[i]).toBeCloseTo(ci.estimate, 15);
    });
  });
});

describe('clusterBootstrapRanks', () => {
  it('a clearly better group ranks first in (nearly) every resample; probabilities sum to 1', () => {
    const r = clusterBootstrapRanks(cells([0, 1, 12]), { seed: 's', resamples: 1000 });
    const top = r.groups.find((g) => g.group === 's2');
    expect(top).toMatchObject({ rank: 1, rankLow: 1, rankHigh: 1 });
    expect(top?.probabilityFirst).toBeGreaterThan(0.99);
    expect(r.groups.reduce((s, g) => s + g.probabilityFirst, 0)).toBeCloseTo(1, 12);
    const close = r.groups.filter((g) => g.group !== 's2');
    for (const g of close) {
      expect(g.rankLow).toBeGreaterThanOrEqual(2);
      expect(g.rankHigh).toBeLessThanOrEqual(3);
    }
    // competition ranks: 1 + 2 + 3 per resample, less where two tie (2 + 2)
    const rankSum = r.groups.reduce((s, g) => s + g.meanRank, 0);
    expect(rankSum).toBeLessThanOrEqual(6);
    expect(rankSum).toBeGreaterThan(5.9);
  });

  it('identical groups tie: each gets half of every resample, both rank 1', () => {
    const one = cells([0, 6]);
    const twin = one.filter((r) => r.group === 's1').map((r) => ({ ...r, group: 's1-copy' }));
    const r = clusterBootstrapRanks([...one, ...twin], { seed: 't', resamples: 500 });
    const [a, b, low] = ['s1', 's1-copy', 's0'].map((g) => r.groups.find((x) => x.group === g));
    expect(a?.probabilityFirst).toBe(b?.probabilityFirst);
    expect(a?.rank).toBe(1);
    expect(b?.rank).toBe(1);
    expect(low?.rank).toBe(3);
  });

  it('is deterministic for a seed, and the seed matters', () => {
    const rows = cells([0, 0, 0]);
    const a = clusterBootstrapRanks(rows, { seed: 'x', resamples: 300 });
    expect(clusterBootstrapRanks(rows, { seed: 'x', resamples: 300 })).toEqual(a);
    const b = clusterBootstrapRanks(rows, { seed: 'y', resamples: 300 });
    expect(b.groups.map((g) => g.probabilityFirst)).not.toEqual(a.groups.map((g) => g.probabilityFirst));
  });

  it('rejects bad rows and options', () => {
    expect(() => clusterBootstrapRanks([], { seed: 's' })).toThrow(/rows is empty/);
    expect(() =>
      clusterBootstrapRanks([{ group: 'a', cluster: 'q', value: Number.NaN }], { seed: 's' }),
    ).toThrow(/rows\[0\]\.value/);
    expect(() => clusterBootstrapRanks(cells([0]), { seed: 's', confidence: 2 })).toThrow(/confidence/);
  });
});
