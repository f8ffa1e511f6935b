/**
 * How the eval suite's processes size their V8 heaps (issue 41). V8 sizes a heap by how fast a process
 * allocates, not by how much it keeps: a worker building a hundred thousand case rows keeps a few hundred
 * MB live but, left to V8's defaults, grows to well over a gigabyte of garbage before it collects, and
 * Vitest's own start-up leaves the main process a few hundred MB of garbage it collects only later.
 * - RGE_WORKER_HEAP_MB: the workers' old-space limit (default 512, with 8 MB semi-spaces for the young
 *   generation; 0 leaves V8's defaults for both); what is outside V8's heap (an embedding model's
 *   weights, file buffers) is not counted in it.
 * - RGE_HEAP_GROWTH_PERCENT: how far past what it kept at its last full collection a heap may grow before
 *   the next (default 20; V8's own is 10 to 300 by how fast it collects; 0 leaves V8's), in the workers
 *   and in the process that runs the suite (`rge eval run`, or Vitest's main for `npx vitest run evals`).
 * Both trade some CPU (more collections) for a resident size close to what is live.
 */
import { setFlagsFromString } from 'node:v8';
import { UsageError } from '../util/errors.ts';

export const DEFAULT_WORKER_HEAP_MB = 512;
export const DEFAULT_HEAP_GROWTH_PERCENT = 20;
/**
 * The workers' young generation (each semi-space, MB; V8's default is 16) when their heap is limited: a
 * case's garbage dies young, so half the space costs a few more scavenges and keeps some 20 MB fewer
 * resident (docs/adr/0029).
 */
export const WORKER_SEMI_SPACE_MB = 8;

type HeapEnv = { RGE_WORKER_HEAP_MB?: string | undefined; RGE_HEAP_GROWTH_PERCENT?: string | undefined };

/** The heap growth RGE_HEAP_GROWTH_PERCENT asks (null: V8's own); throws, naming it, when it is not 0 or 10-300. */
export function heapGrowthPercent(env: HeapEnv): number | null {
  const raw = env.RGE_HEAP_GROWTH_PERCENT;
  const pct = raw === undefined || raw.trim() === '' ? DEFAULT_HEAP_GROWTH_PERCENT : Number(raw);
  if (!Number.isInteger(pct) || (pct !== 0 && (pct < 10 || pct > 300)))
    throw new UsageError(
      `RGE_HEAP_GROWTH_PERCENT must be 0 (V8's own) or a whole percentage from 10 to 300, got ${JSON.stringify(raw)}`,
    );
  return pct === 0 ? null : pct;
}

/** The workers' `execArgv` for the heap limit and growth the environment asks (throws, naming the variable, on a bad one). */
export function workerHeapArgs(env: HeapEnv): string[] {
  const raw = env.RGE_WORKER_HEAP_MB;
  const mb = raw === undefined || raw.trim() === '' ? DEFAULT_WORKER_HEAP_MB : Number(raw);
  if (!Number.isInteger(mb) || mb < 0 || (mb > 0 && mb < 128))
    throw new UsageError(
      `RGE_WORKER_HEAP_MB must be 0 (V8's default) or a whole number of megabytes of at least 128, got ${JSON.stringify(raw)}`,
    );
  const growth = heapGrowthPercent(env);
  return [
    ...(mb === 0 ? [] : [`--max-old-space-size=${mb}`, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`]),
    ...(growth === null ? [] : [`--heap-growing-percent=${growth}`]),
  ];
}

/**
 * Sets this process's heap growth (RGE_HEAP_GROWTH_PERCENT). V8 reads it at each full collection, so it
 * takes effect in a running process (a heap limit does not: it is fixed when the process starts).
 */
export function setHeapGrowth(env: HeapEnv): void {
  const growth = heapGrowthPercent(env);
  if (growth !== null) setFlagsFromString(`--heap-growing-percent=${growth}`);
}
