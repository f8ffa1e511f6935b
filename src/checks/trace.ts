/**
 * Tracing an answer's figures to the retrieved chunks.
 *
 * A figure is traced directly when some retrieved chunk holds the same quantity (compatible unit,
 * value within ±1% relative after scaling; `sameQuantity`). A figure the answer computes is traced as
 * derived when
 * - it is the question's recorded derivation (`numeric_gold[].derivation`: a difference, ratio, growth
 *   or sum) over figures the chunks print, at the printed precision (analysis/derivation.ts, the rule
 *   the offline judges use too): "Reliance, by Rs 4,76,544.23 crore" traces when the chunks print both
 *   revenues, whether or not the answer restates them; or
 * - it is the sum, difference, ratio (as a %) or relative change (as a %) of two other figures of the
 *   same answer that are themselves traced directly: the answer shows its work ("by Rs 2,06,808.53
 *   crore (Rs 2,83,649.02 crore; Rs 76,840.49 crore)").
 * Derivation is deliberately limited to these: over all pairs of chunk figures almost any number would
 * be "derivable".
 */
import { type DerivableGold, derivedFromPassages } from '../analysis/derivation.ts';
import {
  extractQuantities,
  type Quantity,
  sameQuantity,
  unitsCompatible,
  withinRelative,
} from '../analysis/numbers.ts';
import type { ContextChunk } from '../providers/types.ts';

export const TRACE_TOLERANCE = 0.01;

export interface QuantityTrace {
  quantity: Quantity;
  how: 'direct' | 'derived' | null;
  /** chunks holding the figure (direct) or its operands (derived) */
  chunkIds: string[];
  /** for derived figures, e.g. "Rs 2,83,649.02 crore - Rs 76,840.49 crore" */
  derivation?: string;
}

export interface ChunkQuantities {
  chunkId: string;
  quantities: Quantity[];
}

export function chunkQuantities(chunks: readonly ContextChunk[]): ChunkQuantities[] {
  return chunks.map((c) => ({ chunkId: c.id, quantities: extractQuantities(c.text) }));
}

/** Ids of the chunks that hold the quantity. */
export function chunksHolding(
  q: Quantity,
  indexed: readonly ChunkQuantities[],
  relTol = TRACE_TOLERANCE,
): string[] {
  return indexed.filter((c) => c.quantities.some((cq) => sameQuantity(q, cq, relTol))).map((c) => c.chunkId);
}

/** A percentage written with decimals also agrees with a value that rounds to it ("0.4%" for 0.421). */
function percentAgrees(q: Quantity, value: number, relTol: number): boolean {
  if (withinRelative(q.value, value, relTol)) return true;
  const decimals = /\d\.(\d+)/.exec(q.raw)?.[1]?.length ?? 0;
  return decimals > 0 && Number(value.toFixed(decimals)) === Number(q.value.toFixed(decimals));
}

function derive(q: Quantity, operands: readonly QuantityTrace[], relTol: number): QuantityTrace | null {
  for (const a of operands)
    for (const b of operands) {
      if (a === b || !unitsCompatible(a.quantity.unit, b.quantity.unit)) continue;
      const x = a.quantity.value;
      const y = b.quantity.value;
      const chunkIds = [...new Set([...a.chunkIds, ...b.chunkIds])];
      const found = (derivation: string): QuantityTrace => ({
        quantity: q,
        how: 'derived',
        chunkIds,
        derivation,
      });
      if (unitsCompatible(q.unit, a.quantity.unit) && (q.unit !== '%' || a.quantity.unit === '%')) {
        if (withinRelative(q.value, x + y, relTol)) return found(`${a.quantity.raw} + ${b.quantity.raw}`);
        if (withinRelative(q.value, x - y, relTol)) return found(`${a.quantity.raw} - ${b.quantity.raw}`);
      }
      if (q.unit === '%' && a.quantity.unit !== '%' && y !== 0) {
        if (percentAgrees(q, (100 * x) / y, relTol)) return found(`${a.quantity.raw} / ${b.quantity.raw}`);
        if (percentAgrees(q, (100 * (x - y)) / Math.abs(y), relTol))
          return found(`(${a.quantity.raw} - ${b.quantity.raw}) / ${b.quantity.raw}`);
      }
    }
  return null;
}

/** The figure as the question's recorded derivation over figures the chunks print, or null. */
function recorded(
  q: Quantity,
  golds: readonly DerivableGold[],
  chunks: readonly ContextChunk[],
): QuantityTrace | null {
  const d = derivedFromPassages(q, golds, chunks);
  if (!d) return null;
  return {
    quantity: q,
    how: 'derived',
    chunkIds: [...new Set(d.operands.map((o) => o.passageId))],
    derivation: d.formula,
  };
}

/**
 * Every quantity of the answer with how (and where) it is traced; `golds` are the question's numeric
 * gold figures, whose recorded derivations a computed figure may follow.
 */
export function traceQuantities(
  answer: string,
  chunks: readonly ContextChunk[],
  relTol = TRACE_TOLERANCE,
  golds: readonly DerivableGold[] = [],
): QuantityTrace[] {
  const indexed = chunkQuantities(chunks);
  const traces: QuantityTrace[] = extractQuantities(answer).map((quantity) => {
    const chunkIds = chunksHolding(quantity, indexed, relTol);
    return { quantity, how: chunkIds.length > 0 ? 'direct' : null, chunkIds };
  });
  const direct = traces.filter((t) => t.how === 'direct');
  return traces.map((t) =>
    t.how === null ? (recorded(t.quantity, golds, chunks) ?? derive(t.quantity, direct, relTol) ?? t) : t,
  );
}
