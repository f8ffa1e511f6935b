/**
 * The lease of one cell while it is paid for (store/leases.ts): claimed when its call has its rate-limit
 * slot, given way when another live process holds the cell or has just stored it, waited for until that
 * process's record is in or the lease is free again.
 */
import type { StageContext } from './stage-context.ts';

/** A cell's call gave way: another live process holds the cell, or stored it just now (`stored`). */
class CellTaken extends Error {
  constructor(readonly stored: unknown) {
    super("the cell is another process's");
    this.name = 'CellTaken';
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lease of one cell (run/leases.ts), claimed when its call has its rate-limit slot (`beforeSend`),
 * so that a process claims only what it is about to pay for. When another live process holds the cell,
 * or stored it just before letting it go, the call gives way (CellTaken) before anything is reserved or
 * sent; `wait` then waits, holding no slot, for that process's record, or for the lease to be free.
 */
export class CellLease<R> {
  private claimed = false;

  constructor(
    private readonly ctx: StageContext,
    private readonly stage: 'answer' | 'verdict',
    private readonly key: string,
    /** the cell's record, after reading what other processes stored */
    private readonly stored: () => R | undefined,
  ) {}

  readonly beforeSend = async (): Promise<void> => {
    const leases = this.ctx.run.leases;
    const { mine, tookOver } = await leases.claim(this.stage, [this.key]);
    if (tookOver.length > 0) await this.ctx.recoverTakenOver();
    if (!mine.has(this.key)) {
      this.ctx.sharing(leases.holder(this.stage, this.key)?.pid);
      throw new CellTaken(undefined);
    }
    this.claimed = true;
    const now = this.stored();
    if (now !== undefined) throw new CellTaken(now);
  };

  /** The record another process stored, or undefined once the cell is free to claim again. */
  async wait(): Promise<R | undefined> {
    const leases = this.ctx.run.leases;
    for (let delay = 20; ; delay = Math.min(1000, delay * 1.5)) {
      await pause(delay);
      if (this.ctx.opts.signal?.aborted)
        throw new Error(`interrupted while another process was computing this ${this.stage}`);
      const now = this.stored();
      if (now !== undefined) return now;
      leases.refresh();
      if (!leases.heldByOther(this.stage, this.key)) return undefined;
    }
  }

  async release(): Promise<void> {
    if (this.claimed) await this.ctx.run.leases.release(this.stage, [this.key]);
    this.claimed = false;
  }
}

/**
 * Makes a cell's call under its lease (`call` gets the lease's `beforeSend`): its result, or the record
 * another process stored instead (`taken`), waiting for it when that process is still at it.
 */
export async function underLease<R, T>(
  lease: CellLease<R>,
  call: (beforeSend: () => Promise<void>) => Promise<T>,
): Promise<{ done: T } | { taken: R }> {
  try {
    for (;;) {
      try {
        return { done: await call(lease.beforeSend) };
      } catch (err) {
        if (!(err instanceof CellTaken)) throw err;
        const now = (err.stored as R | undefined) ?? (await lease.wait());
        if (now !== undefined) return { taken: now };
      }
    }
  } finally {
    await lease.release();
  }
}

/** A store's record of a key, after reading what other processes appended. */
export function storedNow<R>(
  store: { refresh(): void; get(key: string): R | undefined },
  key: string,
): R | undefined {
  store.refresh();
  return store.get(key);
}
