// A process that listens for Ctrl-C as `rge eval run` does, then takes long to stop (calls in flight
// that are slow to end): the test sends it SIGINT twice.
import { onInterrupts } from '../../../src/cli/interrupt.ts';

const controller = new AbortController();
onInterrupts(controller, (line) => process.stderr.write(`${line}\n`));
controller.signal.addEventListener('abort', () => process.stderr.write('aborted\n'));
// the slow stop: still running 60 s after the first Ctrl-C
setTimeout(() => process.exit(0), 60_000);
process.stderr.write('ready\n');
