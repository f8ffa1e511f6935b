/**
 * Coverage (verification check 8): how many questions each document keeps in each category. Within a
 * category, the target is shared out over the documents that have verified candidates by max-min
 * fairness (each document gets an equal share; what a document cannot fill goes to the others), never
 * above the cap of `maxShare` of the target (default: twice an equal share, at most the whole). A
 * candidate beyond its document's allocation is rejected as `over-share` when its category fell short
 * because of the cap, else as `surplus` (its category has its target).
 */
import type { RejectionReason } from '../candidate.ts';

export interface CoverageItem {
  id: string;
  document: string;
}

export interface Allocation {
  kept: string[];
  dropped: { id: string; reason: RejectionReason; message: string }[];
}

/** The default cap: twice an equal share of `documents`, at most 1. */
export function defaultMaxShare(documents: number): number {
  return documents <= 2 ? 1 : Math.min(1, 2 / documents);
}

/** Max-min fair allocation of `target` over the documents' candidate counts, each capped. */
function allocate(available: ReadonlyMap<string, number>, target: number, cap: number): Map<string, number> {
  const given = new Map([...available.keys()].map((d) => [d, 0]));
  let left = target;
  let open = [...available.keys()];
  while (left > 0 && open.length > 0) {
    const each = Math.max(1, Math.floor(left / open.length));
    for (const d of open) {
      if (left === 0) break;
      const room = Math.min(available.get(d) as number, cap) - (given.get(d) as number);
      const add = Math.min(each, room, left);
      given.set(d, (given.get(d) as number) + add);
      left -= add;
    }
    open = open.filter((d) => (given.get(d) as number) < Math.min(available.get(d) as number, cap));
  }
  return given;
}

/**
 * Which of a category's verified candidates (in generation order) are kept for a target of `target`,
 * `maxShare` of it at most per document (null: the default).
 */
export function coverCategory(
  items: readonly CoverageItem[],
  target: number,
  maxShare: number | null,
): Allocation {
  const available = new Map<string, number>();
  for (const it of items) available.set(it.document, (available.get(it.document) ?? 0) + 1);
  const share = maxShare ?? defaultMaxShare(available.size);
  const cap = Math.max(1, Math.ceil(share * target));
  const given = allocate(available, target, cap);
  const short = [...given.values()].reduce((a, b) => a + b, 0) < target;
  const taken = new Map<string, number>();
  const out: Allocation = { kept: [], dropped: [] };
  for (const it of items) {
    const n = taken.get(it.document) ?? 0;
    if (n < (given.get(it.document) ?? 0)) {
      out.kept.push(it.id);
      taken.set(it.document, n + 1);
    } else if (short && n >= cap)
      out.dropped.push({
        id: it.id,
        reason: 'over-share',
        message: `${it.document} already holds ${n} of this category's ${target} (its cap, ${Math.round(share * 100)}% of the target; --max-share raises it)`,
      });
    else
      out.dropped.push({
        id: it.id,
        reason: 'surplus',
        message: `not needed: the category has its ${target}, and ${it.document} its share (${given.get(it.document) ?? 0})`,
      });
  }
  return out;
}
