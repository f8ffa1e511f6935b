/**
 * What processes that stopped without closing (kill -9, a crash) left open in the ledger, recovered
 * before a run's first call and whenever a run takes over a stopped process's leases.
 */
import { batchesDir, loadBatchRecords } from './batch-records.ts';
import type { CellStores } from './cells.ts';
import { takeDeadInboxes } from './inbox.ts';
import type { BudgetLedger } from './ledger.ts';

/** What recovery works on: a results folder's cell stores and budget ledger. */
export interface RecoverySite {
  resultsDir: string;
  cells: CellStores;
  ledger: BudgetLedger;
}

/**
 * Recovers what crashed processes left open in the ledger: the replies they had received are stored
 * (inbox.ts); a call reservation is settled from its stored record, else closed as unknown (possibly
 * billed, at most its worst case; never booked as spend); a batch reservation that no batch record names
 * (the process died between reserving and recording, before submitting) is released. Batch reservations that a
 * record names are adopted when their batch is resumed.
 */
export async function recoverLedger(run: RecoverySite, log?: (line: string) => void): Promise<void> {
  // first the replies dead processes received and had not stored: their calls are then settled at cost
  const received = await takeDeadInboxes(run.resultsDir, run.cells);
  if (received > 0)
    log?.(`stored ${received} repl(ies) a stopped process had received but not stored (not paid again)`);
  if (run.ledger.orphans('call').length > 0) {
    run.cells.openAll();
    // what the stopped process stored before it stopped (a store opened earlier has not read it yet)
    for (const store of run.cells.all()) store.refresh();
    const { settled, unknown } = await run.ledger.recover((id) => run.cells.chargesOf(id));
    if (settled + unknown > 0)
      log?.(
        `budget ledger: recovered ${settled} call(s) of a stopped process from their stored records` +
          (unknown > 0
            ? `; ${unknown} call(s) in flight when it died have no reply on record: their cost is unknown ` +
              '(possibly billed, at most their reserved worst case; not spend, but counted against the cap: ' +
              '`rge budget` shows it)'
            : ''),
      );
  }
  const batchOrphans = run.ledger.orphans('batch');
  if (batchOrphans.length > 0) {
    const named = new Set(loadBatchRecords(batchesDir(run.resultsDir)).map((r) => r.reservation));
    for (const o of batchOrphans) if (!named.has(o.id)) await run.ledger.release(o.id);
  }
}
