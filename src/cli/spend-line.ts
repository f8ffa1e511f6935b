/**
 * The end of `rge eval run`'s last line: what this run spent under its own cap, and apart from it what
 * the results folder's ledger holds under the cap its last spending run recorded (a $0-cap offline run
 * in a folder a live run paid into is not "$0.16 spent of its $0.00 cap").
 */
import type { LedgerSummary } from '../store/ledger-tally.ts';

const usd = (x: number) => `$${x.toFixed(4)}`;
const cap = (x: number) => `$${x.toFixed(2)}`;

export function spendLine(
  thisRun: { spentUsd: number; capUsd: number; source: string },
  folder: string,
  ledger: Pick<LedgerSummary, 'spentUsd' | 'recordedCap'>,
): string {
  const recorded = ledger.recordedCap;
  return (
    `this run spent ${usd(thisRun.spentUsd)} of its ${cap(thisRun.capUsd)} cap (${thisRun.source}); ` +
    `the ledger of ${folder}: ${usd(ledger.spentUsd)} spent in all, ` +
    (recorded
      ? `under the ${cap(recorded.capUsd)} cap recorded by its last run that spent (${recorded.source})`
      : 'no cap recorded by a run that spent')
  );
}
