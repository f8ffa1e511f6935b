/**
 * The budget ledger (`data/results/.budget_ledger.jsonl`, summarised in `.budget_ledger.json`): what
 * every live call cost, persistent across restarts and shared by every process that spends at once.
 *
 * Every call RESERVES its worst-case cost before it is sent and is SETTLED to its real cost after its
 * record is stored. A reservation is refused when spent + unknown + what open reservations still hold +
 * the new claim would pass the cap, so the cap is never crossed, whatever the replies, however many
 * processes spend: each decision is made under a file lock on the journal over its full history.
 *
 * A process killed with SIGKILL leaves open reservations behind. The next process recovers them: a
 * reservation whose call has a stored record (or a reply in the dead process's inbox) is settled at the
 * recorded cost; one without (the call was in flight, its reply lost in transit or never sent) is closed
 * as UNKNOWN: possibly billed, at most the worst case it reserved. Unknown is not spend (nothing says a
 * bill came); it still counts against the cap, so the cap is never crossed whatever the provider billed
 * (docs/adr/0034). A stop signal leaves none: its calls are aborted and released, or their replies
 * stored. Batch reservations are never closed this way: the batch runner adopts them with their batch.
 * So: spent == the sum of recorded costs <= what providers billed <= spent + unknown.
 *
 * The cap a run spends under is recorded with its first reservation (when it differs from the last one
 * recorded), so `rge budget` reads the cap from the ledger rather than from a config.
 *
 * The journal's records and the state they fold into (spent, unknown, held, by payer) are in
 * ledger-tally.ts; this file decides, under the journal's lock, what to record.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { CallCharge } from '../providers/types.ts';
import { RgeError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { processAlive } from '../util/owner.ts';
import { Journal } from './jsonl.ts';
import { resultsLayout } from './layout.ts';
import {
  LedgerEvent,
  type LedgerSummary,
  LedgerTally,
  type Owner,
  type Payer,
  type RecordedCap,
} from './ledger-tally.ts';

export { LEDGER_JOURNAL, LEDGER_SUMMARY } from './layout.ts';

/** Thrown when a claim would cross the cap: says what was spent, what is left and how to raise the cap. */
export class BudgetExceededError extends RgeError {
  constructor(
    readonly claimUsd: number,
    readonly summary: LedgerSummary,
    readonly configFile: string,
  ) {
    super(
      `budget cap of $${fmt(summary.capUsd)} reached: spent $${fmt(summary.spentUsd)}` +
        (summary.unknownUsd > 0
          ? ` (+ up to $${fmt(summary.unknownUsd)} unknown: calls of a killed process, possibly billed)`
          : '') +
        (summary.heldUsd > 0 ? `, $${fmt(summary.heldUsd)} held by calls in flight` : '') +
        `, $${fmt(summary.leftUsd)} left; the next call needs up to $${fmt(claimUsd)}. ` +
        `Stopped cleanly: stored results are kept and a rerun resumes. To go on, raise budget.cap_usd in ${configFile}.`,
    );
    this.name = 'BudgetExceededError';
  }
}

/** How long a claim waits for calls in flight to settle before it is refused. */
export const RESERVE_WAIT_MS = 15 * 60_000;

const fmt = (usd: number) => (usd >= 1 ? usd.toFixed(2) : usd.toFixed(4));

export interface LedgerOptions {
  capUsd: number;
  warnUsd: number;
  /** the config file, named in the cap message */
  configFile: string;
  /** where the cap comes from, as the ledger records it (default: the config file) */
  capSource?: string;
  /** where a warning is printed (once per ledger, when spending first passes warn_usd) */
  onWarn?: (message: string) => void;
}

export class BudgetLedger {
  private readonly journal: Journal<LedgerEvent>;
  /** the journal's events folded in order */
  private readonly tally = new LedgerTally();
  readonly owner: Owner = { pid: process.pid, host: hostname() };
  /** what this process has spent through this ledger (other processes' spending is in `summary()`) */
  private spentHere = 0;
  get spentByThisProcess(): number {
    return this.spentHere;
  }

  constructor(
    readonly dir: string,
    private readonly opts: LedgerOptions,
  ) {
    this.journal = new Journal(resultsLayout(dir).ledger, LedgerEvent, (e) => this.tally.fold(e));
    this.journal.catchUp();
  }

  get file(): string {
    return this.journal.file;
  }

  /**
   * A ledger opened to read (`rge budget`): no cap of its own (its summary takes one), and it never
   * reserves: its cap is 0.
   */
  static reader(dir: string): BudgetLedger {
    return new BudgetLedger(dir, { capUsd: 0, warnUsd: 0, configFile: '(read only)' });
  }

  /** The cap the last run that spent from this ledger recorded (null when none has). */
  recordedCap(): RecordedCap | null {
    return this.tally.lastCap;
  }

  /**
   * The ledger against this ledger's cap (the config's), or against `under` (another cap: `rge budget`
   * reads the recorded one).
   */
  summary(under: { capUsd: number; warnUsd: number } = this.opts): LedgerSummary {
    return this.tally.summary(under);
  }

  /** Re-reads what other processes wrote. */
  refresh(): LedgerSummary {
    this.journal.catchUp();
    return this.summary();
  }

  private now(): string {
    return new Date().toISOString();
  }

  /**
   * Reserves `usd` for a call (or a whole batch) before it is sent; refused with `BudgetExceededError`
   * when the cap would be crossed. While calls in flight (of any live process) hold budget that may free
   * up, the claim waits for them to settle instead of being refused: a worst case reserved is usually far
   * more than a call costs. Returns the reservation id that settles it.
   */
  async reserve(usd: number, payer: Payer, kind: 'call' | 'batch' = 'call'): Promise<string> {
    const id = `${kind}-${randomUUID()}`;
    const deadline = Date.now() + RESERVE_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.journal.transact(() => {
        const s = this.summary();
        const committed = s.spentUsd + s.unknownUsd + s.heldUsd;
        if (committed + usd <= this.opts.capUsd + 1e-12)
          return {
            records: [
              ...this.capRecord(),
              { t: 'reserve', id, usd, payer, kind, owner: this.owner, at: this.now() },
            ] as LedgerEvent[],
            result: 'reserved' as const,
          };
        const liveHeld = [...this.tally.open.values()].some((r) => r.usd > r.spent && processAlive(r.owner));
        const couldFit = s.spentUsd + s.unknownUsd + usd <= this.opts.capUsd + 1e-12;
        if (liveHeld && couldFit && Date.now() < deadline) return { records: [], result: 'wait' as const };
        throw new BudgetExceededError(usd, s, this.opts.configFile);
      });
      if (outcome === 'reserved') return id;
      await new Promise((r) =>
        setTimeout(r, Math.min(200, 5 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random())),
      );
    }
  }

  /**
   * Reserves, for one batch, the longest prefix of `costs` (each item's worst case, in the batch's
   * order) that fits what the cap leaves now, without waiting: a batch is sized to the cap, never the
   * cap to the batch. Null when not even the first item fits (`outlook` says whether it may later).
   */
  async reserveFitting(
    costs: readonly number[],
    payer: Payer,
    kind: 'call' | 'batch' = 'batch',
  ): Promise<{ id: string; usd: number; count: number } | null> {
    const id = `${kind}-${randomUUID()}`;
    return this.journal.transact(() => {
      const s = this.summary();
      let room = this.opts.capUsd - (s.spentUsd + s.unknownUsd + s.heldUsd) + 1e-12;
      let count = 0;
      let usd = 0;
      for (const c of costs) {
        if (c > room) break;
        room -= c;
        usd += c;
        count++;
      }
      if (count === 0) return { records: [], result: null };
      return {
        records: [
          ...this.capRecord(),
          { t: 'reserve', id, usd, payer, kind, owner: this.owner, at: this.now() },
        ] as LedgerEvent[],
        result: { id, usd, count },
      };
    });
  }

  /**
   * Whether a claim of `usd` fits what the cap leaves now; else whether it may once reservations of live
   * processes settle (`later`: what is spent leaves room for it, and a live process holds budget), or
   * never will under this cap (`never`).
   */
  outlook(usd: number): 'now' | 'later' | 'never' {
    this.journal.catchUp();
    const s = this.summary();
    // the same room as reserveFitting's, computed the same way, so that the two never disagree
    if (usd <= this.opts.capUsd - (s.spentUsd + s.unknownUsd + s.heldUsd) + 1e-12) return 'now';
    const liveHeld = [...this.tally.open.values()].some((r) => r.usd > r.spent && processAlive(r.owner));
    return liveHeld && s.spentUsd + s.unknownUsd + usd <= this.opts.capUsd + 1e-12 ? 'later' : 'never';
  }

  /** The error a claim of `usd` that never fits is refused with. */
  exceeded(usd: number): BudgetExceededError {
    return new BudgetExceededError(usd, this.summary(), this.opts.configFile);
  }

  /**
   * Books what a call outside rge's metering already cost (a system under test that reports its cost):
   * reserved, spent under `key` (once) and closed in one append. It is not refused: the money was spent;
   * the cap stops what comes after (`assertUnderCap`).
   */
  async book(usd: number, payer: Payer, key: string): Promise<void> {
    const id = `call-${randomUUID()}`;
    await this.journal.transact(() => ({
      records: this.tally.spentKeys.has(key)
        ? []
        : ([
            ...this.capRecord(),
            { t: 'reserve', id, usd, payer, kind: 'call', owner: this.owner, at: this.now() },
            { t: 'spend', id, key, usd, at: this.now() },
            { t: 'close', id, at: this.now() },
          ] as LedgerEvent[]),
      result: undefined,
    }));
    this.spentHere += usd;
    await this.afterSpend();
  }

  /**
   * Holds `usd` for a batch that is being billed whatever the cap (created late at its provider, after
   * its record gave up on it: run/batch/lookup.ts): a batch reservation recorded without the cap's
   * check, since the money is committed; it settles to what the batch cost when it is collected. The
   * cap stops what comes after.
   */
  async hold(usd: number, payer: Payer): Promise<string> {
    const id = `batch-${randomUUID()}`;
    await this.journal.transact(() => ({
      records: [
        ...this.capRecord(),
        { t: 'reserve', id, usd, payer, kind: 'batch', owner: this.owner, at: this.now() },
      ] as LedgerEvent[],
      result: undefined,
    }));
    return id;
  }

  /** Refuses (`BudgetExceededError`) once what was spent, by any process, is past the cap. */
  assertUnderCap(): void {
    this.journal.catchUp();
    // checked before every question a system is asked: the summary is built only for the error
    if (this.tally.spent + this.tally.unknown > this.opts.capUsd + 1e-12)
      throw new BudgetExceededError(0, this.summary(), this.opts.configFile);
  }

  /** The cap this ledger spends under, when it is not the one the ledger last recorded. */
  private capRecord(): LedgerEvent[] {
    const source = this.opts.capSource ?? this.opts.configFile;
    const last = this.tally.lastCap;
    if (
      last &&
      last.capUsd === this.opts.capUsd &&
      last.warnUsd === this.opts.warnUsd &&
      last.source === source
    )
      return [];
    return [
      { t: 'cap', usd: this.opts.capUsd, warn: this.opts.warnUsd, source, owner: this.owner, at: this.now() },
    ];
  }

  /**
   * Records what was spent on reservation `id` (each `key` counts once, so settling twice after a
   * crash is harmless) and, with `close`, frees what the reservation still holds.
   */
  async settle(id: string, spends: { key: string; usd: number }[], opts: { close: boolean }): Promise<void> {
    // Read spentHere after the await: `spentHere += await ...` would read it before, and concurrent
    // settles would overwrite each other's additions.
    const fresh = await this.journal.transact(() => {
      const fresh = spends.filter((s) => !this.tally.spentKeys.has(s.key));
      const records: LedgerEvent[] = fresh.map((s) => ({
        t: 'spend',
        id,
        key: s.key,
        usd: s.usd,
        at: this.now(),
      }));
      if (opts.close && this.tally.open.has(id)) records.push({ t: 'close', id, at: this.now() });
      return { records, result: fresh.reduce((a, s) => a + s.usd, 0) };
    });
    this.spentHere += fresh;
    await this.afterSpend();
  }

  /**
   * Settles the charges a stored record carries, by reservation (each sync reservation closes with its
   * call; a batch's stays open, `close: false`, until the batch is collected).
   */
  async settleCharges(
    charges: readonly CallCharge[],
    opts: { close: boolean } = { close: true },
  ): Promise<void> {
    const byReservation = new Map<string, { key: string; usd: number }[]>();
    for (const c of charges) {
      if (!c.reservation) continue;
      byReservation.set(c.reservation, [
        ...(byReservation.get(c.reservation) ?? []),
        { key: c.key, usd: c.usd },
      ]);
    }
    for (const [reservation, spends] of byReservation) await this.settle(reservation, spends, opts);
  }

  /** Frees a reservation whose call was never sent or was not billed. */
  async release(id: string): Promise<void> {
    await this.settle(id, [], { close: true });
  }

  /** Takes over an open batch reservation of a process that died (its batch is now this process's). */
  async adopt(id: string): Promise<void> {
    await this.journal.transact(() => ({
      records: this.tally.open.has(id) ? [{ t: 'adopt', id, owner: this.owner, at: this.now() }] : [],
      result: undefined,
    }));
  }

  /** Open reservations of processes that are gone. */
  orphans(kind?: 'call' | 'batch'): { id: string; usd: number; kind: string }[] {
    this.journal.catchUp();
    return [...this.tally.open.values()]
      .filter((r) => (kind === undefined || r.kind === kind) && !processAlive(r.owner))
      .map((r) => ({ id: r.id, usd: r.usd - r.spent, kind: r.kind }));
  }

  /**
   * Recovers the call reservations of dead processes: settled at the cost their stored record gives
   * (`recorded(id)`: its stored record, after the dead processes' inboxes were stored), else closed as
   * unknown: possibly billed, at most what they still hold; never as spend.
   */
  async recover(recorded: (reservationId: string) => { key: string; usd: number }[] | undefined): Promise<{
    settled: number;
    unknown: number;
  }> {
    let settled = 0;
    let unknown = 0;
    await this.journal.transact(() => {
      const records: LedgerEvent[] = [];
      for (const r of this.tally.open.values()) {
        if (r.kind !== 'call' || processAlive(r.owner)) continue;
        const spends = recorded(r.id);
        if (spends) {
          for (const s of spends)
            if (!this.tally.spentKeys.has(s.key))
              records.push({ t: 'spend', id: r.id, key: s.key, usd: s.usd, at: this.now() });
          records.push({ t: 'close', id: r.id, at: this.now() });
          settled++;
        } else {
          records.push({ t: 'orphan', id: r.id, usd: Math.max(0, r.usd - r.spent), at: this.now() });
          unknown++;
        }
      }
      return { records, result: undefined };
    });
    await this.afterSpend();
    await this.writeSummary();
    return { settled, unknown };
  }

  /**
   * Prints and records the warning once, when spending first passes warn_usd. It is about spend: an
   * unknown amount (calls of a killed process) is not spend, and counts against the cap only.
   */
  private async afterSpend(): Promise<void> {
    const warn = this.opts.warnUsd;
    if (warn > 0 && this.tally.spent >= warn && !this.tally.warnings.some((w) => w.warn === warn)) {
      const warned = await this.journal.transact(() => {
        if (this.tally.warnings.some((w) => w.warn === warn)) return { records: [], result: false };
        return {
          records: [{ t: 'warn', spent: this.tally.spent, warn, at: this.now() }],
          result: true,
        };
      });
      if (warned)
        this.opts.onWarn?.(
          `budget warning: $${fmt(this.tally.spent)} spent passes the warning level of ` +
            `$${fmt(warn)} (cap $${fmt(this.opts.capUsd)})`,
        );
    }
  }

  /** Writes the human-readable summary file (`.budget_ledger.json`). */
  async writeSummary(): Promise<void> {
    await writeFileAtomic(
      resultsLayout(this.dir).ledgerSummary,
      `${JSON.stringify(this.summary(), null, 2)}\n`,
    );
  }
}
