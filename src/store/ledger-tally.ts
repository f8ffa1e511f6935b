/**
 * What the budget ledger's journal (`.budget_ledger.jsonl`, ledger.ts) records, and what its records add
 * up to. `LedgerEvent` is the one schema of its lines: a reservation, a spend (counted once per key), a
 * close, an orphan (a dead process's call closed as unknown), an adoption, a warning, a cap.
 * `LedgerTally` folds them in the journal's order into the ledger's state (open reservations, spend in
 * all and by payer, unknown, warnings, the cap last recorded) and gives the summary against a cap that
 * `rge budget` prints and `.budget_ledger.json` holds.
 */
import { z } from 'zod';

const Usd = z.number().min(0);
const Owner = z.strictObject({ pid: z.number().int(), host: z.string() });
export type Owner = z.infer<typeof Owner>;

export const Payer = z.strictObject({
  provider: z.string(),
  model: z.string(),
  role: z.enum(['subject', 'judge', 'generator']),
});
export type Payer = z.infer<typeof Payer>;

export const LedgerEvent = z.discriminatedUnion('t', [
  z.strictObject({
    t: z.literal('reserve'),
    id: z.string(),
    usd: Usd,
    payer: Payer,
    kind: z.enum(['call', 'batch']),
    owner: Owner,
    at: z.string(),
  }),
  z.strictObject({ t: z.literal('spend'), id: z.string(), key: z.string(), usd: Usd, at: z.string() }),
  z.strictObject({ t: z.literal('close'), id: z.string(), at: z.string() }),
  /**
   * a dead process's call reservation closed without a reply on record: its cost is unknown, at most
   * `usd` (what it still held); not spend, but counted against the cap
   */
  z.strictObject({ t: z.literal('orphan'), id: z.string(), usd: Usd, at: z.string() }),
  z.strictObject({ t: z.literal('adopt'), id: z.string(), owner: Owner, at: z.string() }),
  z.strictObject({ t: z.literal('warn'), spent: Usd, warn: Usd, at: z.string() }),
  /** the cap and warning level a run spends under, recorded with its first reservation when they change */
  z.strictObject({
    t: z.literal('cap'),
    usd: Usd,
    warn: Usd,
    /** where it was set: the config file, and any `--set budget.*` */
    source: z.string(),
    owner: Owner,
    at: z.string(),
  }),
]);
export type LedgerEvent = z.infer<typeof LedgerEvent>;

/** A reservation not closed yet: what it holds, what was spent on it, and whose it is. */
export interface OpenReservation {
  id: string;
  usd: number;
  spent: number;
  payer: Payer;
  kind: 'call' | 'batch';
  owner: Owner;
}

export interface PayerTotal extends Payer {
  spentUsd: number;
  calls: number;
}

/** The cap a run spent under, as the ledger recorded it. */
export interface RecordedCap {
  capUsd: number;
  warnUsd: number;
  source: string;
  owner: Owner;
  at: string;
}

/** The ledger as `rge budget` prints it and the summary file holds it. */
export interface LedgerSummary {
  capUsd: number;
  warnUsd: number;
  /** the cap the last run that spent recorded (null: no run has recorded one) */
  recordedCap: RecordedCap | null;
  /** the sum of what stored replies cost */
  spentUsd: number;
  /**
   * calls of processes that died (kill -9, a crash) with no reply on record: possibly billed, at most
   * this (their worst case; nothing for a call cut off before its reply). Not spend; counted against the
   * cap (docs/adr/0034)
   */
  unknownUsd: number;
  unknownCalls: number;
  heldUsd: number;
  leftUsd: number;
  open: { id: string; usd: number; kind: string; payer: Payer; owner: Owner }[];
  byPayer: PayerTotal[];
  warnings: { spent: number; warn: number; at: string }[];
}

/**
 * The ledger's state, its journal's events folded in order. ledger.ts folds each event as its journal
 * reads it (`Journal.catchUp`, and under the journal's lock before every decision); nothing else writes
 * these fields.
 */
export class LedgerTally {
  readonly open = new Map<string, OpenReservation>();
  readonly spentKeys = new Set<string>();
  private readonly byPayer = new Map<string, PayerTotal>();
  readonly warnings: { spent: number; warn: number; at: string }[] = [];
  spent = 0;
  unknown = 0;
  unknownCalls = 0;
  lastCap: RecordedCap | null = null;

  fold(e: LedgerEvent): void {
    switch (e.t) {
      case 'reserve':
        this.open.set(e.id, { id: e.id, usd: e.usd, spent: 0, payer: e.payer, kind: e.kind, owner: e.owner });
        return;
      case 'spend': {
        if (this.spentKeys.has(e.key)) return;
        this.spentKeys.add(e.key);
        this.spent += e.usd;
        const r = this.open.get(e.id);
        if (r) r.spent += e.usd;
        const payer = r?.payer ?? { provider: 'unknown', model: 'unknown', role: 'subject' as const };
        const k = `${payer.provider}\u0000${payer.model}\u0000${payer.role}`;
        const total = this.byPayer.get(k) ?? { ...payer, spentUsd: 0, calls: 0 };
        total.spentUsd += e.usd;
        total.calls += 1;
        this.byPayer.set(k, total);
        return;
      }
      case 'close':
        this.open.delete(e.id);
        return;
      case 'orphan':
        this.unknown += e.usd;
        this.unknownCalls++;
        this.open.delete(e.id);
        return;
      case 'cap':
        this.lastCap = { capUsd: e.usd, warnUsd: e.warn, source: e.source, owner: e.owner, at: e.at };
        return;
      case 'adopt': {
        const r = this.open.get(e.id);
        if (r) r.owner = e.owner;
        return;
      }
      case 'warn':
        this.warnings.push({ spent: e.spent, warn: e.warn, at: e.at });
        return;
    }
  }

  /** What the open reservations still hold: each one's worst case less what was spent on it. */
  held(): number {
    let held = 0;
    for (const r of this.open.values()) held += Math.max(0, r.usd - r.spent);
    return held;
  }

  /** The ledger against a cap. */
  summary(under: { capUsd: number; warnUsd: number }): LedgerSummary {
    const held = this.held();
    return {
      capUsd: under.capUsd,
      warnUsd: under.warnUsd,
      recordedCap: this.lastCap,
      spentUsd: this.spent,
      unknownUsd: this.unknown,
      unknownCalls: this.unknownCalls,
      heldUsd: held,
      leftUsd: Math.max(0, under.capUsd - this.spent - this.unknown - held),
      open: [...this.open.values()].map((r) => ({
        id: r.id,
        usd: r.usd - r.spent,
        kind: r.kind,
        payer: r.payer,
        owner: r.owner,
      })),
      byPayer: [...this.byPayer.values()].sort(
        (a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model),
      ),
      warnings: [...this.warnings],
    };
  }
}
