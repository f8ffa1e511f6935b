import { getEventListeners, setMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { withRequestSignal } from '../../src/util/abort.ts';

/** What the SDKs do with the signal of a request: listen, and never stop listening. */
const sdkRequest = async (signal: AbortSignal | undefined) => {
  signal?.addEventListener('abort', () => {}, { once: true });
  await new Promise((r) => setTimeout(r, 1));
  return 'reply';
};

describe('withRequestSignal', () => {
  it('leaves no listener on the long-lived signal, however many requests it served', async () => {
    const run = new AbortController();
    let most = 0;
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        withRequestSignal(run.signal, async (signal) => {
          // all 50 are in flight at once here: the run's signal carries one listener for them all
          most = Math.max(most, getEventListeners(run.signal, 'abort').length);
          return sdkRequest(signal);
        }),
      ),
    );
    expect(most).toBe(1);
    expect(replies).toHaveLength(50);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    // the same 50 requests on the run's signal itself leave 50 listeners behind (Node warns past 10;
    // the limit is raised here so that this control does not print that warning into the test log)
    setMaxListeners(60, run.signal);
    await Promise.all(Array.from({ length: 50 }, () => sdkRequest(run.signal)));
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(50);
  });

  it("a request in flight is aborted with the run's reason; one started after the abort starts aborted", async () => {
    const run = new AbortController();
    let seen: AbortSignal | undefined;
    const pending = withRequestSignal(run.signal, async (signal) => {
      seen = signal;
      await new Promise((r) => setTimeout(r, 20));
      return signal?.aborted;
    });
    run.abort(new Error('interrupted'));
    expect(await pending).toBe(true);
    expect(seen?.reason).toEqual(new Error('interrupted'));
    expect(await withRequestSignal(run.signal, async (signal) => signal?.aborted)).toBe(true);
    expect(await withRequestSignal(undefined, async (signal) => signal)).toBeUndefined();
  });
});
