/** Deterministic Fisher-Yates: the same items and generator give the same order. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The items by group (`groupOf`), groups in order of first appearance, items in input order. */
function groupItems<T>(items: Iterable<T>, groupOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = groupOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** A seeded draw of up to `n` of `items` (with `random`) that weighs their groups (`groupOf`). */
export type GroupedDraw = <T>(
  items: readonly T[],
  n: number,
  random: () => number,
  groupOf: (item: T) => string,
) => T[];

/**
 * Up to `n` items, taken round-robin over their groups (`groupOf`, groups in sorted order) after a
 * seeded shuffle, so that every group is represented before any gives a second item.
 */
export const pickRoundRobin: GroupedDraw = (items, n, random, groupOf) => {
  const groups = groupItems(shuffle(items, random), groupOf);
  const queues = [...groups.keys()].sort().map((k) => groups.get(k) ?? []);
  const out: (typeof items)[number][] = [];
  while (out.length < n && queues.some((q) => q.length > 0))
    for (const q of queues) {
      const item = q.shift();
      if (item !== undefined && out.length < n) out.push(item);
    }
  return out;
};

/** Largest-remainder allocation of n over weights (floors, then the largest remainders; ties by order). */
export function largestRemainder(n: number, weights: readonly number[]): number[] {
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (total <= 0) return weights.map(() => 0);
  const quotas = weights.map((w) => (n * w) / total);
  const shares = quotas.map(Math.floor);
  let left = n - shares.reduce((sum, s) => sum + s, 0);
  const order = quotas
    .map((q, i) => ({ i, remainder: q - Math.floor(q) }))
    .sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (const { i } of order) {
    if (left === 0) break;
    shares[i] = (shares[i] ?? 0) + 1;
    left -= 1;
  }
  return shares;
}

/**
 * A stratified sample of `n` items: each group (`groupOf`, in order of first appearance) gets its
 * share of n in proportion to its size (`largestRemainder`), drawn after a seeded shuffle of the group;
 * the sample keeps the items' input order. All of them when n is at least their number.
 */
export const stratifiedSample: GroupedDraw = (items, n, random, groupOf) => {
  if (n >= items.length) return [...items];
  const members = [...groupItems(items, groupOf).values()];
  const shares = largestRemainder(
    n,
    members.map((g) => g.length),
  );
  const chosen = new Set<(typeof items)[number]>();
  members.forEach((g, i) => {
    for (const item of shuffle(g, random).slice(0, shares[i])) chosen.add(item);
  });
  return items.filter((item) => chosen.has(item));
};
