import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { LineAt } from '../../src/store/jsonl.ts';
import { LineIndex } from '../../src/store/line-index.ts';
import { sha256 } from '../../src/util/fs.ts';

/** Keys of every form the stores use: cell keys (64 lowercase hex), results keys (ids, NULs, a hash), others. */
function keyOf(rng: () => number, i: number): string {
  switch (Math.floor(rng() * 5)) {
    case 0:
    case 1:
      return sha256(`k${i}`);
    case 2:
      return `gd-${i}\u0000extractive\u0000${i % 7}\u0000${sha256(String(i))}`;
    case 3:
      return sha256(`k${i}`).toUpperCase(); // not packed: a different key from its lowercase form
    default:
      return `réservation-${i}-✓-${'x'.repeat(i % 40)}`;
  }
}

describe('LineIndex', () => {
  it('answers like a Map with first-wins adds, over 60,000 keys (seeded, rehashes included)', () => {
    const rng = seedrandom('line-index-1');
    const index = new LineIndex();
    const model = new Map<string, LineAt>();
    const keys: string[] = [];
    for (let i = 0; i < 60_000; i++) {
      // one add in five repeats an earlier key, which keeps its first place
      const key =
        keys.length > 0 && rng() < 0.2 ? (keys[Math.floor(rng() * keys.length)] as string) : keyOf(rng, i);
      const at = { offset: Math.floor(rng() * 2 ** 40), bytes: Math.floor(rng() * 2 ** 31) };
      const added = index.add(key, at);
      expect(added).toBe(!model.has(key));
      if (added) {
        model.set(key, at);
        keys.push(key);
      }
    }
    expect(index.size).toBe(model.size);
    expect([...index.values()]).toEqual([...model.values()]);
    for (const key of keys) expect(index.get(key)).toEqual(model.get(key));
    for (let i = 0; i < 2_000; i++) {
      const absent = `absent-${i}-${sha256(`absent${i}`)}`;
      expect(index.has(absent)).toBe(false);
      expect(index.get(sha256(`absent${i}`))).toBeUndefined();
    }
  });

  it('keeps a packed hex key apart from a text key of the same bytes, and lowercase from uppercase', () => {
    const index = new LineIndex();
    const hex = sha256('a');
    index.add(hex, { offset: 1, bytes: 1 });
    expect(index.has(hex.toUpperCase())).toBe(false);
    const sameBytes = String.fromCharCode(...Buffer.from(hex, 'hex').filter((b) => b < 128));
    expect(index.has(sameBytes)).toBe(false);
    expect(index.has(hex.slice(0, 63))).toBe(false);
    expect(index.has('')).toBe(false);
    index.add('', { offset: 2, bytes: 0 });
    expect(index.get('')).toEqual({ offset: 2, bytes: 0 });
    expect(index.get(hex)).toEqual({ offset: 1, bytes: 1 });
  });

  it('set moves a key to a new place and keeps its order; add never does', () => {
    const index = new LineIndex();
    index.set('a', { offset: 0, bytes: 3 });
    index.set('b', { offset: 4, bytes: 3 });
    expect(index.add('a', { offset: 99, bytes: 1 })).toBe(false);
    index.set('a', { offset: 8, bytes: 5 });
    expect([...index.values()]).toEqual([
      { offset: 8, bytes: 5 },
      { offset: 4, bytes: 3 },
    ]);
    expect(index.size).toBe(2);
  });

  it('takes keys longer than its scratch buffer', () => {
    const index = new LineIndex();
    const long = 'q'.repeat(10_000);
    index.add(long, { offset: 5, bytes: 6 });
    expect(index.get(long)).toEqual({ offset: 5, bytes: 6 });
    expect(index.has(long.slice(1))).toBe(false);
  });
});
