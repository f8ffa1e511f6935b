/**
 * Cell leases: a cell is claimed before it is paid for, so that processes spending from one results
 * folder (two `rge eval run`, Vitest workers) never call twice for one cell. A lease is held per
 * (stage, key): `answer` and `verdict` for a cell store's key, `batch` for a batch record's id (the
 * owner of a batch polls it; nobody else does while it lives).
 *
 * The leases are an append-only journal (`.leases.jsonl` in the results folder, util/journal.ts): a
 * claim is an atomic append, decided under the journal's file lock (proper-lockfile) over its whole
 * history, with the owner's pid, host and a token of this lease table. A claim succeeds for the keys
 * that are free, already this owner's, or held by an owner that is gone: dead (its pid is not running
 * on this host) or silent (its heartbeat, a proper-lockfile lock under `.leases/owners/` that its
 * process refreshes every few seconds, is older than `silentAfterMs`). A key held by a live owner is
 * refused: the caller skips it and waits for its record (or for the lease to become free).
 *
 * Why not a lock file per cell: proper-lockfile takes a stale lock over by removing it and making it
 * again, and two processes doing so at once can both end up holding it (each removes the other's new
 * lock), which here would pay for a cell twice; and each held lock needs a timer of its own. One journal
 * decides every claim under one lock, and one heartbeat per process says whether its leases live.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Journal } from './jsonl.ts';
import { resultsLayout, safeName } from './layout.ts';

export { LEASES_JOURNAL } from './layout.ts';

import { heartbeatFresh, startHeartbeat } from '../util/lock.ts';
import { processAlive } from '../util/owner.ts';

/** How long an owner's heartbeat may go unrefreshed before its leases are taken over. */
export const LEASE_SILENT_MS = 30_000;

export const LeaseStage = z.enum(['answer', 'verdict', 'batch']);
export type LeaseStage = z.infer<typeof LeaseStage>;

export const LeaseOwner = z.strictObject({
  pid: z.number().int(),
  host: z.string(),
  /** one lease table of a process (a process may run several) */
  token: z.string(),
});
export type LeaseOwner = z.infer<typeof LeaseOwner>;

export const LeaseEvent = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('claim'),
    stage: LeaseStage,
    keys: z.array(z.string()).min(1),
    owner: LeaseOwner,
    /** the owners whose leases this claim took over (dead or silent), if any */
    took_over: z.array(LeaseOwner).optional(),
    at: z.string(),
  }),
  z.strictObject({
    t: z.literal('release'),
    stage: LeaseStage,
    keys: z.array(z.string()).min(1),
    owner: LeaseOwner,
    at: z.string(),
  }),
]);
export type LeaseEvent = z.infer<typeof LeaseEvent>;

const slot = (stage: LeaseStage, key: string) => `${stage}\u0000${key}`;
const same = (a: LeaseOwner, b: LeaseOwner) => a.token === b.token && a.pid === b.pid && a.host === b.host;

export interface LeaseOptions {
  /** an owner whose heartbeat is older than this is silent, and its leases are taken over */
  silentAfterMs?: number;
}

/** The lease table of a results folder, as one owner sees and changes it. */
export class CellLeases {
  readonly owner: LeaseOwner = { pid: process.pid, host: hostname(), token: randomUUID() };
  private readonly journal: Journal<LeaseEvent>;
  private readonly holders = new Map<string, LeaseOwner>();
  private readonly silentAfterMs: number;
  private heartbeat: Promise<() => Promise<void>> | null = null;
  /** liveness by owner token, looked up at most every 250 ms */
  private readonly liveness = new Map<string, { alive: boolean; at: number }>();

  constructor(
    readonly dir: string,
    opts: LeaseOptions = {},
  ) {
    this.silentAfterMs = opts.silentAfterMs ?? LEASE_SILENT_MS;
    this.journal = new Journal(resultsLayout(dir).leases, LeaseEvent, (e) => this.fold(e));
    this.journal.catchUp();
  }

  get file(): string {
    return this.journal.file;
  }

  private fold(e: LeaseEvent): void {
    for (const key of e.keys) {
      const at = slot(e.stage, key);
      if (e.t === 'claim') this.holders.set(at, e.owner);
      // a release by an owner that lost the lease (taken over meanwhile) frees nothing
      else if (this.holders.get(at) && same(this.holders.get(at) as LeaseOwner, e.owner))
        this.holders.delete(at);
    }
  }

  /** Where an owner's heartbeat lives. */
  heartbeatFile(owner: LeaseOwner): string {
    return join(resultsLayout(this.dir).leaseOwners, safeName(`${owner.host}_${owner.pid}_${owner.token}`));
  }

  /** Is the owner there: this table, or a process that runs and keeps its heartbeat? */
  isLive(owner: LeaseOwner): boolean {
    if (same(owner, this.owner)) return true;
    const now = Date.now();
    const known = this.liveness.get(owner.token);
    if (known && now - known.at < 250) return known.alive;
    const alive = processAlive(owner) && heartbeatFresh(this.heartbeatFile(owner), this.silentAfterMs);
    this.liveness.set(owner.token, { alive, at: now });
    return alive;
  }

  /** Starts this owner's heartbeat (once), before its first claim. */
  private async beating(): Promise<void> {
    if (!this.heartbeat) {
      this.heartbeat = startHeartbeat(this.heartbeatFile(this.owner), this.silentAfterMs);
      this.heartbeat.catch(() => {
        this.heartbeat = null;
      });
    }
    await this.heartbeat;
  }

  /** The owner holding a key, if any (as last read; `refresh` reads what others wrote). */
  holder(stage: LeaseStage, key: string): LeaseOwner | undefined {
    return this.holders.get(slot(stage, key));
  }

  /** Is the key held by a live owner other than this one? */
  heldByOther(stage: LeaseStage, key: string): boolean {
    const holder = this.holder(stage, key);
    return holder !== undefined && !same(holder, this.owner) && this.isLive(holder);
  }

  /** Re-reads what other processes wrote. */
  refresh(): void {
    this.journal.catchUp();
  }

  /**
   * Claims the keys that are free, this owner's, or held by a dead or silent owner, in one append;
   * returns the keys this owner now holds, and the owners it took leases over from.
   */
  async claim(
    stage: LeaseStage,
    keys: readonly string[],
  ): Promise<{ mine: Set<string>; tookOver: LeaseOwner[] }> {
    if (keys.length === 0) return { mine: new Set(), tookOver: [] };
    await this.beating();
    const outcome = await this.journal.transact(() => {
      const mine = new Set<string>();
      const fresh: string[] = [];
      const tookOver = new Map<string, LeaseOwner>();
      for (const key of new Set(keys)) {
        const holder = this.holder(stage, key);
        if (holder && same(holder, this.owner)) mine.add(key);
        else if (!holder || !this.isLive(holder)) {
          if (holder) tookOver.set(holder.token, holder);
          fresh.push(key);
          mine.add(key);
        }
      }
      const gone = [...tookOver.values()];
      const records: LeaseEvent[] =
        fresh.length === 0
          ? []
          : [
              {
                t: 'claim',
                stage,
                keys: fresh,
                owner: this.owner,
                ...(gone.length > 0 ? { took_over: gone } : {}),
                at: new Date().toISOString(),
              },
            ];
      return { records, result: { mine, tookOver: gone } };
    });
    // a dead owner's heartbeat (a process killed with SIGKILL leaves it) goes with its leases
    for (const owner of outcome.tookOver)
      if (!processAlive(owner)) rmSync(`${this.heartbeatFile(owner)}.lock`, { recursive: true, force: true });
    return outcome;
  }

  /** Gives up this owner's leases of the keys (those another owner took over stay that owner's). */
  async release(stage: LeaseStage, keys: readonly string[]): Promise<void> {
    const held = (k: string) => {
      const holder = this.holder(stage, k);
      return holder !== undefined && same(holder, this.owner);
    };
    if (!keys.some(held)) return;
    await this.journal.transact(() => {
      const mine = [...new Set(keys)].filter(held);
      return {
        records:
          mine.length === 0
            ? []
            : [{ t: 'release', stage, keys: mine, owner: this.owner, at: new Date().toISOString() }],
        result: undefined,
      };
    });
  }

  /** Every lease held (as last read), with its owner. */
  heldLeases(): { stage: LeaseStage; key: string; owner: LeaseOwner }[] {
    return [...this.holders].map(([at, owner]) => {
      const [stage, key] = at.split('\u0000') as [LeaseStage, string];
      return { stage, key, owner };
    });
  }

  /** Every lease this owner holds, by stage. */
  held(): Map<LeaseStage, string[]> {
    const out = new Map<LeaseStage, string[]>();
    for (const { stage, key, owner } of this.heldLeases())
      if (same(owner, this.owner)) out.set(stage, [...(out.get(stage) ?? []), key]);
    return out;
  }

  /** Releases every lease of this owner and stops its heartbeat (the end of a run's stages). */
  async close(): Promise<void> {
    for (const [stage, keys] of this.held()) await this.release(stage, keys);
    const stop = this.heartbeat;
    this.heartbeat = null;
    if (stop) await (await stop.catch(() => async () => {}))();
  }
}
