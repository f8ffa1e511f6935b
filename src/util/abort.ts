/**
 * A signal of one request's own, following a long-lived one (a run's). The model SDKs leave an abort
 * listener on the signal of every request they send and never remove it (openai and @anthropic-ai/sdk
 * in `fetchWithTimeout`, openai/openai-node#1811; @google/genai once per attempt), so a run's signal
 * handed to thousands of requests gathered thousands of listeners, and Node warned of a leak after 10.
 * Each request gets a signal of its own instead, and the SDK's listeners go with it; the long-lived
 * signal carries one listener however many requests are in flight, removed when the last one ends.
 */
export async function withRequestSignal<T>(
  outer: AbortSignal | undefined,
  fn: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!outer) return fn(undefined);
  const own = new AbortController();
  if (outer.aborted) own.abort(outer.reason);
  else follow(outer, own);
  try {
    return await fn(own.signal);
  } finally {
    unfollow(outer, own);
  }
}

/**
 * The requests in flight on each long-lived signal. However many there are, the long-lived signal
 * carries one listener, which aborts them all (one listener per request would pass Node's limit of 10,
 * and warn, as soon as more than 10 requests were in flight at once).
 */
const inFlight = new WeakMap<AbortSignal, { requests: Set<AbortController>; onAbort: () => void }>();

function follow(outer: AbortSignal, own: AbortController): void {
  let entry = inFlight.get(outer);
  if (!entry) {
    const requests = new Set<AbortController>();
    const onAbort = () => {
      inFlight.delete(outer);
      for (const r of requests) r.abort(outer.reason);
    };
    entry = { requests, onAbort };
    inFlight.set(outer, entry);
    outer.addEventListener('abort', onAbort, { once: true });
  }
  entry.requests.add(own);
}

function unfollow(outer: AbortSignal, own: AbortController): void {
  const entry = inFlight.get(outer);
  if (!entry) return;
  entry.requests.delete(own);
  if (entry.requests.size === 0) {
    inFlight.delete(outer);
    outer.removeEventListener('abort', entry.onAbort);
  }
}

/** Waits `ms`, or less when `signal` aborts; the abort listener goes with the wait (one per poll otherwise). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
