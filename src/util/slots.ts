/**
 * At most `size` tasks at once; the others wait their turn, first come first served. A plain
 * in-process semaphore for callers that need nothing else (no rate, no priority, no reservoir).
 *
 * Bottleneck, which the providers' limiters need for their rates and token reservoirs, yields to the
 * event loop through a timer several times a job (its local datastore's `yieldLoop`, `setTimeout(0)`,
 * at least 1 ms each): a job through it takes about 5 ms even when a slot is free, and about 2.5 ms of
 * throughput when all are queued at once at 4 in flight. Nothing beside a model call; 100 times the
 * answer of a module system that answers in 50 us (bench/system.bench.ts).
 */
export class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots: a whole number >= 1, not ${size}`);
  }

  /** Tasks running now. */
  get running(): number {
    return this.active;
  }

  /** Runs `task` when a slot is free; its result or its error is the caller's. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.size) this.active++;
    // the slot is handed over by the task that frees it: `active` counts it throughout
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
