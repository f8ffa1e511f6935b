import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { largestRemainder, pickRoundRobin, shuffle, stratifiedSample } from '../../src/util/shuffle.ts';

const items = [
  ...Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, group: 'a' })),
  ...Array.from({ length: 3 }, (_, i) => ({ id: `b${i}`, group: 'b' })),
  { id: 'c0', group: 'c' },
];
const group = (x: { group: string }) => x.group;

describe('shuffle', () => {
  it('permutes the items, the same way for the same seed', () => {
    const once = shuffle(items, seedrandom('s'));
    expect(once).toEqual(shuffle(items, seedrandom('s')));
    expect([...once].sort((x, y) => x.id.localeCompare(y.id))).toEqual(
      [...items].sort((x, y) => x.id.localeCompare(y.id)),
    );
  });
});

describe('pickRoundRobin', () => {
  it('takes one item of every group (in sorted order) before any group gives a second', () => {
    const picked = pickRoundRobin(items, 5, seedrandom('s'), group);
    expect(picked.map(group)).toEqual(['a', 'b', 'c', 'a', 'b']);
    expect(new Set(picked.map((x) => x.id)).size).toBe(5);
  });

  it('gives every item when n exceeds their number, and none of an empty list', () => {
    expect(pickRoundRobin(items, 50, seedrandom('s'), group)).toHaveLength(items.length);
    expect(pickRoundRobin([], 3, seedrandom('s'), group)).toEqual([]);
  });
});

describe('stratifiedSample', () => {
  it("gives each group its largest-remainder share and keeps the items' input order", () => {
    const sample = stratifiedSample(items, 5, seedrandom('s'), group);
    // quotas 3, 1.5 and 0.5: the tie of remainders goes to the earlier group
    expect(largestRemainder(5, [6, 3, 1])).toEqual([3, 2, 0]);
    expect(sample.map(group)).toEqual(['a', 'a', 'a', 'b', 'b']);
    const order = items.map((x) => x.id);
    const at = sample.map((x) => order.indexOf(x.id));
    expect(at).toEqual([...at].sort((x, y) => x - y));
  });

  it('is every item, in order, when n is at least their number', () => {
    expect(stratifiedSample(items, 10, seedrandom('s'), group)).toEqual(items);
  });
});
