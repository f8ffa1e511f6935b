/**
 * Stop signals during a command that spends (`rge eval run`, `rge judge agree`, `rge judge audit`):
 * SIGINT (Ctrl-C), SIGTERM (`timeout`, CI runners, `docker stop`) and SIGHUP (a closed terminal) alike.
 * The first stops cleanly: it aborts the command's work with a `StoppedBySignal` (no new call starts, the
 * calls in flight are aborted and their reservations released, and the command ends once they have,
 * exiting 128 + the signal's number), and says that a second signal stops at once. The second, of any
 * kind, exits at once with its own code (what is stored is safe: a cell is stored whole or not at all,
 * and the next run settles the reservations left open from their replies, or shows them as unknown).
 * docs/adr/0034.
 */
import {
  STOP_EXIT_CODES,
  STOP_SIGNALS,
  StoppedBySignal,
  type StopSignal,
  signalName,
} from '../util/stop-signal.ts';

/** What the first signal says. `kept`: what of the work stays (a run's stored answers and verdicts). */
export function firstStopMessage(signal: StopSignal, kept = ''): string {
  const again = signal === 'SIGINT' ? 'Press Ctrl-C again' : `Send ${signal} again (or press Ctrl-C)`;
  return (
    `${signalName(signal)} received: stopping: no new call starts, and the calls in flight are aborted and ` +
    `their budget reservations released${kept ? `; ${kept}` : ''}. ${again} to stop at once`
  );
}

/** What a second signal says as it exits at once. */
export function secondStopMessage(first: StopSignal, second: StopSignal): string {
  return (
    `${signalName(second)} received ${second === first ? 'again' : `after ${signalName(first)}`}: ` +
    `stopping at once (exit ${STOP_EXIT_CODES[second]}). Stored results are safe; a call still in flight ` +
    'may be billed: the next run settles it from its reply, or `rge budget` shows it as unknown (possibly ' +
    'billed, at most its worst case)'
  );
}

export interface StopOptions {
  log: (line: string) => void;
  /** what of the work stays, said with the first signal and in the stop's message */
  kept?: string;
  exit?: (code: number) => void;
}

/**
 * Listens for SIGINT, SIGTERM and SIGHUP as above: the first aborts `controller` with a
 * `StoppedBySignal`, the second exits. Returns the function that stops listening.
 */
export function onStopSignals(controller: AbortController, opts: StopOptions): () => void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let first: StopSignal | null = null;
  const handler = (signal: StopSignal) => {
    if (first === null) {
      first = signal;
      opts.log(firstStopMessage(signal, opts.kept));
      controller.abort(new StoppedBySignal(signal, opts.kept));
      return;
    }
    opts.log(secondStopMessage(first, signal));
    exit(STOP_EXIT_CODES[signal]);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handler);
  return () => {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, handler);
  };
}

/**
 * Runs `work` while the stop signals are listened for (as `onStopSignals`): `work` gets the signal the
 * first one aborts, and ends with its `StoppedBySignal` (exit 128 + the signal's number) or its result.
 */
export async function whileStoppable<T>(
  opts: StopOptions,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const stopListening = onStopSignals(controller, opts);
  try {
    return await work(controller.signal);
  } finally {
    stopListening();
  }
}

/** Resolves on Ctrl-C (SIGINT) or SIGTERM: how a command that serves a local page waits to be stopped. */
export function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
