/** Deterministic Fisher-Yates: the same items and generator give the same order. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * Up to `n` items, taken round-robin over their groups (`groupOf`, groups in sorted order) after a
 * seeded shuffle, so that every group is represented before any gives a second item.
 */
export function pickRoundRobin<T>(
  items: readonly T[],
  n: number,
  random: () => number,
  groupOf: (item: T) => string,
): T[] {
  const groups = new Map<string, T[]>();
  for (const item of shuffle(items, random))
    groups.set(groupOf(item), [...(groups.get(groupOf(item)) ?? []), item]);
  const queues = [...groups.keys()].sort().map((k) => groups.get(k) as T[]);
  const out: T[] = [];
  while (out.length < n && queues.some((q) => q.length > 0))
    for (const q of queues) {
      const item = q.shift();
      if (item !== undefined && out.length < n) out.push(item);
    }
  return out;
}
