import { describe, expect, it } from 'vitest';
import { Slots } from '../../src/util/slots.ts';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function gate(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('Slots', () => {
  it('never runs more than its size at once, and starts the waiting tasks first come first served', async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 6 }, gate);
    const done = gates.map((g, i) =>
      slots.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await g.promise;
        running--;
        return i;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    gates[1]?.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.resolve();
    expect(await Promise.all(done)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    expect(slots.running).toBe(0);
  });

  it("a task's error is its caller's, and its slot is freed for the next", async () => {
    const slots = new Slots(1);
    const failing = slots.run(async () => {
      throw new Error('no answer');
    });
    const throwsAtOnce = slots.run(() => {
      throw new Error('thrown before a promise');
    });
    const next = slots.run(async () => 'answered');
    await expect(failing).rejects.toThrow('no answer');
    await expect(throwsAtOnce).rejects.toThrow('thrown before a promise');
    expect(await next).toBe('answered');
    expect(slots.running).toBe(0);
  });

  it('refuses a size that is not a whole number >= 1', () => {
    expect(() => new Slots(0)).toThrow(RangeError);
    expect(() => new Slots(1.5)).toThrow('a whole number >= 1, not 1.5');
  });
});
