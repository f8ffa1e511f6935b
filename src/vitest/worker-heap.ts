/**
 * The old-space limit of the eval suite's Vitest workers (issue 41). V8 sizes its heap by how fast a
 * process allocates, not by how much it keeps: a worker building a hundred thousand case rows keeps a
 * few hundred MB live but, left to V8's default limit (a quarter of the machine's memory), grows to
 * well over a gigabyte of garbage before it collects. A limit makes it collect sooner, at some CPU cost.
 * RGE_WORKER_HEAP_MB sets it (default 512; 0 leaves V8's default); what is outside V8's heap (an
 * embedding model's weights, file buffers) is not counted in it.
 */
export const DEFAULT_WORKER_HEAP_MB = 512;

/** The workers' `execArgv` for the heap limit RGE_WORKER_HEAP_MB asks (throws, naming it, when it is not a count). */
export function workerHeapArgs(env: { RGE_WORKER_HEAP_MB?: string | undefined }): string[] {
  const raw = env.RGE_WORKER_HEAP_MB;
  const mb = raw === undefined || raw.trim() === '' ? DEFAULT_WORKER_HEAP_MB : Number(raw);
  if (!Number.isInteger(mb) || mb < 0 || (mb > 0 && mb < 128))
    throw new Error(
      `RGE_WORKER_HEAP_MB must be 0 (V8's default) or a whole number of megabytes of at least 128, got ${JSON.stringify(raw)}`,
    );
  return mb === 0 ? [] : [`--max-old-space-size=${mb}`];
}
