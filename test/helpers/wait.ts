/** Waiting in tests: poll until a condition holds, with a deadline. */

/** Calls `poll` until `done` holds (every 10 ms, at most `timeoutMs`); returns the last value. */
export async function until<T>(
  poll: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 3000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await poll();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
