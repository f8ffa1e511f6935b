/**
 * The benchmark contract. Each `bench/*.bench.ts` default-exports a function that measures rge and a
 * reference in the same run and returns rows; `bench/run.ts` prints them as ratios. A reference that
 * is unavailable here (pdftotext not installed, ../shared absent) gives a row with `skipped` saying why.
 */
import { spawnSync } from 'node:child_process';

export interface BenchRow {
  /** what was measured, e.g. "extraction pages/s (2 workers)" */
  name: string;
  unit: string;
  value: number;
  reference: { name: string; value: number } | null;
  /** value / reference.value for throughputs, reference.value / value for latencies: > 1 means rge is faster */
  ratio: number | null;
  note?: string;
  skipped?: string;
}

export interface BenchContext {
  /** the repository root */
  root: string;
  /** ../shared/corpus when present */
  sharedCorpus: string | null;
  /** a scratch folder removed after the run */
  tmp: string;
  log: (line: string) => void;
  /** set by --quick: fewer repetitions, smaller inputs */
  quick: boolean;
}

export type Bench = (ctx: BenchContext) => Promise<BenchRow[]>;

/** Whether poppler's `pdftotext` (the speed reference for extraction) is installed. */
export function hasPdftotext(): boolean {
  return !spawnSync('pdftotext', ['-v']).error;
}

/** A row for a measurement that could not be made here, saying why. */
export function skippedRow(name: string, unit: string, why: string): BenchRow {
  return { name, unit, value: 0, reference: null, ratio: null, skipped: why };
}

export function throughputRow(
  name: string,
  unit: string,
  value: number,
  reference: { name: string; value: number } | null,
  note?: string,
): BenchRow {
  return {
    name,
    unit,
    value,
    reference,
    ratio: reference ? value / reference.value : null,
    ...(note ? { note } : {}),
  };
}

export function latencyRow(
  name: string,
  unit: string,
  value: number,
  reference: { name: string; value: number } | null,
  note?: string,
): BenchRow {
  return {
    name,
    unit,
    value,
    reference,
    ratio: reference ? reference.value / value : null,
    ...(note ? { note } : {}),
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = (sorted.length - 1) * p;
  const lo = Math.floor(idx);
  const hi = Math.ceil(idx);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (idx - lo);
}
