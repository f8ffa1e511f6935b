// A process that listens for the stop signals as `rge eval run` does, then takes long to stop (calls in
// flight that are slow to end): the test sends it two signals.
import { onStopSignals } from '../../../src/cli/interrupt.ts';
import { StoppedBySignal } from '../../../src/util/stop-signal.ts';

const controller = new AbortController();
onStopSignals(controller, { log: (line) => process.stderr.write(`${line}\n`), kept: 'nothing to keep' });
controller.signal.addEventListener('abort', () => {
  const reason = controller.signal.reason;
  process.stderr.write(
    `aborted: ${reason instanceof StoppedBySignal ? `${reason.signal} exit ${reason.exitCode}` : String(reason)}\n`,
  );
});
// the slow stop: still running 60 s after the first signal
setTimeout(() => process.exit(0), 60_000);
process.stderr.write('ready\n');
