/**
 * A signal of one request's own, following a long-lived one (a run's). The model SDKs leave an abort
 * listener on the signal of every request they send and never remove it (openai and @anthropic-ai/sdk
 * in `fetchWithTimeout`, openai/openai-node#1811; @google/genai once per attempt), so a run's signal
 * handed to thousands of requests gathered thousands of listeners, and Node warned of a leak after 10.
 * Each request gets a signal of its own instead; the one listener it puts on the long-lived signal is
 * removed when the request ends, and the SDK's listeners go with the request's signal.
 */
export async function withRequestSignal<T>(
  outer: AbortSignal | undefined,
  fn: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!outer) return fn(undefined);
  const own = new AbortController();
  const follow = () => own.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener('abort', follow, { once: true });
  try {
    return await fn(own.signal);
  } finally {
    outer.removeEventListener('abort', follow);
  }
}
