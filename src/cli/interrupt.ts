/**
 * Ctrl-C during `rge eval run`: the first stops the run cleanly (the calls in flight are aborted, their
 * reservations released, and the run ends once they have), and says that a second Ctrl-C stops at
 * once; the second exits 130 at once (what is stored is safe: a cell is stored whole or not at all, and
 * the next run recovers the ledger's open reservations).
 */

export const FIRST_INTERRUPT =
  'interrupted: stopping once the calls in flight are aborted and their reservations released; ' +
  'stored answers and verdicts are kept, rerun the same command to resume. Press Ctrl-C again to stop at once';

export const SECOND_INTERRUPT =
  'interrupted again: stopping at once (stored results are safe; rerun the same command to resume)';

/** Listens for SIGINT as above; returns the function that stops listening. */
export function onInterrupts(
  controller: AbortController,
  log: (line: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  let seen = 0;
  const handler = () => {
    seen++;
    if (seen === 1) {
      log(FIRST_INTERRUPT);
      controller.abort();
      return;
    }
    log(SECOND_INTERRUPT);
    exit(130);
  };
  process.on('SIGINT', handler);
  return () => process.removeListener('SIGINT', handler);
}
