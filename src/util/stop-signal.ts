/**
 * The signals that ask rge to stop, and the stop they ask for. SIGINT (Ctrl-C), SIGTERM (what `timeout`,
 * CI runners and `docker stop` send) and SIGHUP (a closed terminal or SSH session) all stop a command
 * that spends the same way: no new call starts, the calls in flight are aborted and their budget
 * reservations released, and the command exits 128 + the signal's number (130, 143, 129), as a shell
 * reports a process that a signal ended. The stop itself is a `StoppedBySignal`: the reason a run's
 * AbortSignal is aborted with, and the error a command ends with (docs/adr/0034).
 */
import { RgeError } from './errors.ts';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** 128 + the signal's number. */
export const STOP_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const satisfies Record<
  StopSignal,
  number
>;

/** How a message names the signal: Ctrl-C is what a person pressed, the others what a tool sent. */
export function signalName(signal: StopSignal): string {
  return signal === 'SIGINT' ? 'Ctrl-C (SIGINT)' : signal;
}

/**
 * A command stopped by a signal: the abort reason of its work, and the error it ends with (exit 128 + the
 * signal's number). `kept` says what of the work stays (a run's stored answers and verdicts).
 */
export class StoppedBySignal extends RgeError {
  constructor(
    readonly signal: StopSignal,
    kept = '',
  ) {
    super(
      `stopped by ${signalName(signal)}: no new call was started after it; the calls in flight were ` +
        `aborted and their budget reservations released${kept ? `; ${kept}` : ''}`,
      { exitCode: STOP_EXIT_CODES[signal] },
    );
    this.name = 'StoppedBySignal';
  }
}

/** The stop signal an aborted AbortSignal was aborted for, if a signal was why. */
export function stoppedBy(signal: AbortSignal | undefined): StoppedBySignal | null {
  return signal?.aborted && signal.reason instanceof StoppedBySignal ? signal.reason : null;
}
