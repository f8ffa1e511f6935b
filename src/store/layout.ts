/**
 * The layout of a results folder (default `data/results/`): the one place that knows where each thing
 * lives in it. The store's modules and everything above them ask here.
 *
 *   cells/answers/<provider>__<model>.jsonl   answers, by what they are (cells.ts)
 *   cells/verdicts/<provider>__<model>.jsonl  verdicts, likewise
 *   cells/attempts/<provider>__<model>.jsonl  judges' paid first replies kept for their retry (cells.ts)
 *   cells/checks/<provider>__<model>.jsonl    what the checks computed from each answer (cells.ts)
 *   cells/generations/<provider>__<model>.jsonl  what a generator model wrote per task (generations.ts)
 *   cells/.inbox/<host>_<pid>_<token>.jsonl   replies a process received, before they are stored (inbox.ts)
 *   .leases.jsonl, .leases/owners/            who holds which cell and batch; owners' heartbeats (leases.ts)
 *   .batches/<id>.json                        batch records (batch-records.ts)
 *   .budget_ledger.jsonl, .budget_ledger.json the budget ledger and its summary (ledger.ts)
 *   .reruns.jsonl                             the reruns asked of subjects' models (reruns.ts)
 *   .runs/<run_id>.json                       a run's state; `<run_id>.slice-<i>-of-<n>.json` per slice (run-state.ts)
 *   <subject>_<run_id>.jsonl                  a run's published rows, per subject (rows.ts)
 */
import { join } from 'node:path';

export const LEDGER_JOURNAL = '.budget_ledger.jsonl';
export const LEDGER_SUMMARY = '.budget_ledger.json';
export const LEASES_JOURNAL = '.leases.jsonl';
export const RERUNS_JOURNAL = '.reruns.jsonl';
/** The folders of the cell stores under `cells/`. */
export const CELL_KINDS = ['answers', 'verdicts', 'attempts', 'checks', 'generations'] as const;
export type CellKind = (typeof CELL_KINDS)[number];

/** A file-name-safe form of a name (`provider/model`, a subject id). */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** The paths of a results folder. */
export function resultsLayout(dir: string) {
  return {
    dir,
    /** the folder of a kind of cell store */
    cells: (kind: CellKind) => join(dir, 'cells', kind),
    /** one model's cell store of a kind (`name`: `<provider>__<model>`, file-name-safe) */
    cellStore: (kind: CellKind, name: string) => join(dir, 'cells', kind, `${name}.jsonl`),
    inbox: join(dir, 'cells', '.inbox'),
    leases: join(dir, LEASES_JOURNAL),
    leaseOwners: join(dir, '.leases', 'owners'),
    batches: join(dir, '.batches'),
    ledger: join(dir, LEDGER_JOURNAL),
    ledgerSummary: join(dir, LEDGER_SUMMARY),
    reruns: join(dir, RERUNS_JOURNAL),
    runs: join(dir, '.runs'),
    /** a run's state file */
    runState: (runId: string) => join(dir, '.runs', `${runId}.json`),
    /** a run's published rows of one subject */
    rows: (subjectId: string, runId: string) => join(dir, `${safeName(subjectId)}_${runId}.jsonl`),
  };
}

export type ResultsLayout = ReturnType<typeof resultsLayout>;
