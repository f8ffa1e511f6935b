/**
 * A results folder, opened: the one owner of its layout (layout.ts) and of the stores in it — the cell
 * stores, the budget ledger, the cell leases and this process's reply inbox. A run opens its folder once
 * (run/session/open.ts) and reaches every store through it.
 */
import { CellStores } from './cells.ts';
import { ReplyInbox } from './inbox.ts';
import { type ResultsLayout, resultsLayout } from './layout.ts';
import { CellLeases } from './leases.ts';
import { BudgetLedger, type LedgerOptions } from './ledger.ts';

export class ResultsFolder {
  readonly layout: ResultsLayout;
  readonly cells: CellStores;
  readonly ledger: BudgetLedger;
  readonly leases: CellLeases;
  readonly inbox: ReplyInbox;

  /**
   * Opens the folder `dir` (nothing is written until something is stored): `readOnly` for a dry run
   * (the cell stores refuse writes), the ledger with the run's cap.
   */
  constructor(
    readonly dir: string,
    opts: { readOnly: boolean; ledger: LedgerOptions },
  ) {
    this.layout = resultsLayout(dir);
    this.cells = new CellStores(dir, opts.readOnly);
    this.ledger = new BudgetLedger(dir, opts.ledger);
    this.leases = new CellLeases(dir);
    this.inbox = new ReplyInbox(dir, this.leases.owner);
  }
}
