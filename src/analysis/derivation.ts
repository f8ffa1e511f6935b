/**
 * Figures computed from printed figures, by the arithmetic a question records.
 *
 * A multi-hop question's gold figure is often printed nowhere: "by how much was Reliance's revenue
 * higher than Tata Motors'?" is answered by a difference of two printed revenues. The question records
 * that arithmetic (`numeric_gold[].derivation` in src/questions/schema.ts: an operation and its operands,
 * each with its label, value and unit), and this module decides, for the judges and the checks alike,
 * whether an answer's figure is that figure computed from what the passages print:
 * - every operand is printed in some passage, in any printed form (figureReader: a scale word, a table's
 *   stated unit, Indian or western grouping, brackets for a negative; "Rs 0.07" too);
 * - the operation over the operands as printed gives the answer's figure as it is written, to half a
 *   unit of its last digit: "Rs 4,76,544.23 crore" must be the difference of the printed figures to the
 *   paisa, "Rs 4.77 lakh crore" to 0.005 lakh crore, "27.0%" to 0.05 points;
 * - a difference or a growth may be written as its magnitude ("fell by Rs 120.00 crore").
 * Wrong arithmetic, or an operand no passage prints, is not derived. Pure; no I/O.
 */
import { type GoldUnit, inGoldUnit, intervalsMeet, printedHalfUnit, type Quantity } from './numbers.ts';
import { type FigureHit, figureReader, printedValue } from './printed-figures.ts';

/** sum: a + b (+ ...); difference: a - b; ratio: a / b; growth: (a - b) / |b|. */
export const DERIVATION_OPS = ['difference', 'ratio', 'growth', 'sum'] as const;
export type DerivationOp = (typeof DERIVATION_OPS)[number];

export interface DerivationOperand {
  /** what the operand is, e.g. "consolidated revenue from operations FY24, Reliance Industries Limited" */
  label: string;
  value: number;
  unit: GoldUnit | string;
}

/** How a gold figure is computed: an operation over operands, in order (a - b, a / b). */
export interface FigureDerivation {
  op: DerivationOp;
  operands: readonly DerivationOperand[];
}

/** A numeric gold figure as the judges and checks read it, with the arithmetic that computes it, if any. */
export interface DerivableGold {
  label: string;
  value: number;
  unit: string;
  tolerance: number;
  derivation?: FigureDerivation | undefined;
}

/** A passage the operands may be printed in: a retrieved chunk, a system's context. */
export interface Passage {
  id: string;
  text: string;
}

/** How many operands an operation takes: a sum two or more, the others exactly two. */
export function operandCount(op: DerivationOp): { min: number; max: number } {
  return op === 'sum' ? { min: 2, max: Number.POSITIVE_INFINITY } : { min: 2, max: 2 };
}

/** A ratio or a growth is in per cent when the figure's unit is '%', a plain number otherwise. */
const percentFactor = (op: DerivationOp, unit: string) =>
  (op === 'ratio' || op === 'growth') && unit === '%' ? 100 : 1;

/** The operation over the operands' values, in the figure's unit (ratio and growth x 100 for '%'). */
export function derive(op: DerivationOp, values: readonly number[], unit: string): number {
  const [a = Number.NaN, b = Number.NaN] = values;
  const factor = percentFactor(op, unit);
  switch (op) {
    case 'sum':
      return values.reduce((s, v) => s + v, 0);
    case 'difference':
      return a - b;
    case 'ratio':
      return (a / b) * factor;
    case 'growth':
      return ((a - b) / Math.abs(b)) * factor;
  }
}

interface Known {
  value: number;
  halfUnit: number;
}

/** Half a unit of the last decimal a value is written with (JSON writes 476544.23 with two). */
function writtenHalfUnit(value: number): number {
  const decimals = (String(Math.abs(value)).split('.')[1] ?? '').length;
  return decimals > 6 ? 0 : 0.5 * 10 ** -decimals;
}

/**
 * Whether a recorded derivation gives its figure: the operation over the operands' values is within
 * the figure's tolerance of its value (relative), or within half a unit of its last written decimal.
 */
export function derivationReproduces(gold: DerivableGold): { ok: boolean; computed: number } {
  const d = gold.derivation;
  if (!d) return { ok: true, computed: gold.value };
  const computed = derive(
    d.op,
    d.operands.map((o) => o.value),
    gold.unit,
  );
  const room = Math.max(gold.tolerance * Math.abs(gold.value), writtenHalfUnit(gold.value)) + 1e-9;
  return { ok: Number.isFinite(computed) && Math.abs(computed - gold.value) <= room, computed };
}

/** An operand where a passage prints it. */
export interface PrintedOperand {
  operand: DerivationOperand;
  passageId: string;
  hit: FigureHit;
}

/** A figure derived from printed operands: the gold figure it is, the operands as printed, the formula. */
export interface DerivedFigure {
  gold: DerivableGold;
  operands: PrintedOperand[];
  /** the operation over the operands as printed, e.g. "Rs 9,14,472.00 crore - Rs 4,37,927.77 crore" */
  formula: string;
}

/** Each text's figure reader, kept for the texts seen last (a judge asks of the same chunks many times). */
const readers = new Map<string, ReturnType<typeof figureReader>>();
const READERS_KEPT = 512;

function readerOf(text: string): ReturnType<typeof figureReader> {
  let reader = readers.get(text);
  if (!reader) {
    if (readers.size >= READERS_KEPT) readers.clear();
    reader = figureReader(text, 1);
    readers.set(text, reader);
  }
  return reader;
}

/**
 * Where the passages print every operand of the derivation (for each, its most precise printing, the
 * first passage first), or null when some operand is printed in none of them.
 */
export function printedOperands(
  derivation: FigureDerivation,
  passages: readonly Passage[],
): PrintedOperand[] | null {
  const out: PrintedOperand[] = [];
  for (const operand of derivation.operands) {
    let best: PrintedOperand | null = null;
    for (const p of passages)
      for (const hit of readerOf(p.text)(operand.value, operand.unit))
        if (best === null || printedValue(hit).halfUnit < printedValue(best.hit).halfUnit)
          best = { operand, passageId: p.id, hit };
    if (best === null) return null;
    out.push(best);
  }
  return out;
}

function formulaOf(op: DerivationOp, operands: readonly PrintedOperand[]): string {
  const raw = operands.map((o) => o.hit.raw);
  switch (op) {
    case 'sum':
      return raw.join(' + ');
    case 'difference':
      return `${raw[0]} - ${raw[1]}`;
    case 'ratio':
      return `${raw[0]} / ${raw[1]}`;
    case 'growth':
      return `(${raw[0]} - ${raw[1]}) / ${raw[1]}`;
  }
}

/** The quantity in the gold's unit, with half a unit of its last written digit, or null when it cannot be. */
function answerFigure(q: Quantity, unit: string): Known | null {
  const value = inGoldUnit(q, unit);
  if (value === null) return null;
  const half = printedHalfUnit(q);
  const upper = inGoldUnit({ ...q, value: q.value + half }, unit) ?? value;
  return { value, halfUnit: Math.abs(upper - value) };
}

/**
 * Whether the answer's figure `q` is one of the question's recorded derivations computed from figures
 * the passages print (see the module doc): the first gold figure whose derivation it is, with where
 * each operand is printed and the formula; null when it is none.
 */
export function derivedFromPassages(
  q: Quantity,
  golds: readonly DerivableGold[],
  passages: readonly Passage[],
): DerivedFigure | null {
  for (const gold of golds) {
    const d = gold.derivation;
    if (!d) continue;
    const stated = answerFigure(q, gold.unit);
    if (stated === null) continue;
    const operands = printedOperands(d, passages);
    if (operands === null) continue;
    const value = derive(
      d.op,
      operands.map((o) => printedValue(o.hit).value),
      gold.unit,
    );
    if (!Number.isFinite(value)) continue;
    const meets = (v: number) => intervalsMeet(v, stated.halfUnit, value, 0);
    const magnitude = (d.op === 'difference' || d.op === 'growth') && stated.value > 0;
    if (meets(stated.value) || (magnitude && meets(-stated.value)))
      return { gold, operands, formula: formulaOf(d.op, operands) };
  }
  return null;
}

/** Whether the question records the arithmetic of any of its gold figures. */
export function recordsDerivation(golds: readonly DerivableGold[]): boolean {
  return golds.some((g) => g.derivation !== undefined);
}
