/**
 * The batch plan (src/run/batch/plan.ts): the sizing rule of a batch run under the cap, on made-up
 * calls. Each batch reserves its items' worst case and holds what the cap leaves room for; what does
 * not fit waits for a later wave, once the wave before has settled (at the expected cost); answers
 * first, then verdicts; a provider's item and byte limits split batches too.
 */
import { describe, expect, it } from 'vitest';
import { batchHead, type PlanLane, planBatches } from '../../src/run/batch/plan.ts';

const WIDE = { items: 1000, bytes: 1e9 };

/** A lane of `n` calls, each `worst` at worst and `expected` expected, of 100 bytes. */
function lane(
  role: 'subject' | 'judge',
  provider: string,
  n: number,
  worst: number,
  expected: number,
  limits = WIDE,
): PlanLane {
  const calls = Array.from({ length: n }, () => ({ worstUsd: worst, expectedUsd: expected, bytes: 100 }));
  return { provider, model: `${provider}-m`, role, limits, calls };
}

const shape = (p: ReturnType<typeof planBatches>) =>
  p.batches.map((b) => `${b.wave} ${b.role} ${b.provider} ${b.calls} ${b.reservedUsd.toFixed(2)}`);

describe('the batch plan', () => {
  it('is one batch per model and role, in two waves, when the whole worst case fits', () => {
    const p = planBatches([lane('subject', 'a', 4, 0.1, 0.03), lane('judge', 'b', 8, 0.2, 0.07)], 10);
    expect(shape(p)).toEqual(['1 subject a 4 0.40', '2 judge b 8 1.60']);
    expect(p).toMatchObject({
      fitsAtWorst: true,
      waves: 2,
      unplacedCalls: 0,
      callsAtWorst: 12,
      tooLarge: null,
    });
  });

  it('splits the batch that does not fit and submits the rest once the earlier wave settled below its worst case', () => {
    // left 1: the answers reserve 0.4 and settle at 0.12; the verdicts' worst case is 1.6 in all
    const p = planBatches(
      [
        lane('subject', 'a', 4, 0.1, 0.03),
        lane('judge', 'b', 4, 0.2, 0.07),
        lane('judge', 'c', 4, 0.2, 0.07),
      ],
      1,
    );
    // wave 2: room 0.88 holds b's four (0.8) and none of c's (0.2 > 0.08); they settle at 0.28;
    // wave 3: room 1 - 0.12 - 0.28 = 0.6 holds three of c's; wave 4 the last
    expect(shape(p)).toEqual([
      '1 subject a 4 0.40',
      '2 judge b 4 0.80',
      '3 judge c 3 0.60',
      '4 judge c 1 0.20',
    ]);
    expect(p).toMatchObject({ fitsAtWorst: false, waves: 4, unplacedCalls: 0, tooLarge: null });
    // at worst: the answers spend 0.4, b's four 0.8 would not all fit (room 0.6): three of them, then
    // nothing is left for even one call
    expect(p.callsAtWorst).toBe(7);
    for (const wave of [1, 2, 3, 4])
      expect(
        p.batches.filter((b) => b.wave === wave).reduce((a, b) => a + b.reservedUsd, 0),
      ).toBeLessThanOrEqual(1);
  });

  it("splits by the provider's item and byte limits as the run does", () => {
    expect(batchHead(5, () => 100, { items: 3, bytes: 1e9 })).toBe(3);
    expect(batchHead(5, () => 100, { items: 10, bytes: 250 })).toBe(2);
    // one item larger than the byte limit still goes, alone
    expect(batchHead(5, () => 400, { items: 10, bytes: 250 })).toBe(1);
    const p = planBatches([lane('judge', 'g', 5, 0.1, 0.03, { items: 2, bytes: 1e9 })], 10);
    expect(shape(p)).toEqual(['1 judge g 2 0.20', '1 judge g 2 0.20', '1 judge g 1 0.10']);
  });

  it('says when the cap stops the run even at the expected cost, and when one call alone cannot fit', () => {
    const short = planBatches([lane('subject', 'a', 10, 0.1, 0.09)], 0.5);
    // 0.5, settling at 0.45, then 0.05 left: not one more call
    expect(short).toMatchObject({ unplacedCalls: 5, callsAtWorst: 5, tooLarge: null });
    const huge = planBatches([lane('subject', 'a', 2, 0.1, 0.03), lane('judge', 'b', 2, 0.6, 0.2)], 0.5);
    expect(huge.tooLarge).toEqual({ provider: 'b', model: 'b-m', role: 'judge', worstUsd: 0.6 });
    expect(huge.unplacedCalls).toBe(2);
  });
});
