/**
 * Stop signals on a command that spends (issue 39, defect 4; issue 52, defect 5): Ctrl-C, SIGTERM and
 * SIGHUP alike. The first aborts the command's work with a stop naming the signal (exit 130, 143, 129)
 * and says that a second stops at once; the second, of any kind, exits at once with its own code.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstStopMessage, onStopSignals, secondStopMessage } from '../../src/cli/interrupt.ts';
import { STOP_EXIT_CODES, StoppedBySignal, type StopSignal } from '../../src/util/stop-signal.ts';

/** resolves once `text` has been written to the stream */
function waitFor(read: () => string, text: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (read().includes(text)) resolve();
      else if (Date.now() > until) reject(new Error(`no "${text}" in: ${read()}`));
      else setTimeout(poll, 20);
    };
    poll();
  });
}

/**
 * A child listening as `rge eval run` does, whose stop takes a minute: sent `first`, then `second`; its
 * exit code, how long after the second signal it exited, and what it said.
 */
async function twoSignals(
  first: StopSignal,
  second: StopSignal,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'interrupt', 'child.ts')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(() => err, 'ready');
  child.kill(first);
  await waitFor(() => err, 'aborted: ');
  const sent = Date.now();
  child.kill(second);
  const { code, signal } = await exited;
  return { code, signal, ms: Date.now() - sent, err };
}

describe('stop signals (issue 52, defect 5: only SIGINT was handled)', () => {
  it('Ctrl-C: the first aborts with a stop naming it and says a second stops at once; the second exits 130', () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const exits: number[] = [];
    const stop = onStopSignals(controller, {
      log: (l) => lines.push(l),
      kept: 'stored answers and verdicts are kept',
      exit: (c) => exits.push(c),
    });
    try {
      process.emit('SIGINT', 'SIGINT');
      expect(controller.signal.aborted).toBe(true);
      expect(controller.signal.reason).toBeInstanceOf(StoppedBySignal);
      expect(controller.signal.reason).toMatchObject({ signal: 'SIGINT', exitCode: 130 });
      expect(exits).toEqual([]);
      expect(lines).toEqual([firstStopMessage('SIGINT', 'stored answers and verdicts are kept')]);
      expect(lines[0]).toMatch(/^Ctrl-C \(SIGINT\) received: stopping: no new call starts/);
      expect(lines[0]).toMatch(/calls in flight are aborted and their budget reservations released/);
      expect(lines[0]).toMatch(/Press Ctrl-C again to stop at once$/);
      process.emit('SIGINT', 'SIGINT');
      expect(exits).toEqual([130]);
      expect(lines.at(-1)).toBe(secondStopMessage('SIGINT', 'SIGINT'));
    } finally {
      stop();
    }
  });

  it('the messages name the signal; a stop exits 128 + its number', () => {
    expect(STOP_EXIT_CODES).toEqual({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 });
    expect(firstStopMessage('SIGTERM')).toMatch(
      /^SIGTERM received: stopping: .*Send SIGTERM again \(or press Ctrl-C\) to stop at once$/,
    );
    expect(secondStopMessage('SIGTERM', 'SIGINT')).toMatch(
      /^Ctrl-C \(SIGINT\) received after SIGTERM: stopping at once \(exit 130\)/,
    );
    expect(new StoppedBySignal('SIGHUP', 'kept').message).toBe(
      'stopped by SIGHUP: no new call was started after it; the calls in flight were aborted and their ' +
        'budget reservations released; kept',
    );
  });

  for (const [first, second] of [
    ['SIGINT', 'SIGINT'],
    ['SIGTERM', 'SIGTERM'],
    ['SIGHUP', 'SIGHUP'],
    ['SIGTERM', 'SIGINT'],
  ] as const)
    it(`a process sent ${first} then ${second} stops cleanly on the first, and exits ${STOP_EXIT_CODES[second]} at once on the second`, async () => {
      const { code, signal, ms, err } = await twoSignals(first, second);
      // the first was handled (before: SIGTERM and SIGHUP ended the process at once, with no stop)
      expect(err).toContain(firstStopMessage(first, 'nothing to keep'));
      expect(err).toContain(`aborted: ${first} exit ${STOP_EXIT_CODES[first]}`);
      expect({ code, signal }).toEqual({ code: STOP_EXIT_CODES[second], signal: null });
      expect(ms).toBeLessThan(10_000);
      expect(err).toContain(secondStopMessage(first, second));
    }, 40_000);
});
