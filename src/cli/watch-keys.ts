/**
 * The key press `rge eval watch` waits for before a run whose estimate is above `--confirm-above`:
 * Enter runs it, q skips it. On a terminal the keys are read one at a time (raw mode), so Ctrl-C there
 * arrives as a byte, not a signal: it is sent on as the SIGINT it would have been, and the run's stop
 * handling (interrupt.ts) takes it from there. A stdin that is not a terminal cannot be asked.
 */

export type KeyChoice = 'go' | 'skip';

export interface KeySource {
  /** whether a person can press a key here (stdin is a terminal) */
  interactive: boolean;
  /** the next Enter ('go') or q ('skip'); rejected with the signal's reason if it aborts first */
  choose(signal: AbortSignal): Promise<KeyChoice>;
}

/** What a key means: Enter goes, q or Ctrl-D skips, Ctrl-C stops; anything else is ignored. */
function meaning(ch: string): KeyChoice | 'stop' | null {
  if (ch === '\r' || ch === '\n') return 'go';
  if (ch === 'q' || ch === 'Q' || ch === '\u0004') return 'skip';
  if (ch === '\u0003') return 'stop';
  return null;
}

/** The keys of this process's terminal. */
export function terminalKeys(stdin: NodeJS.ReadStream = process.stdin): KeySource {
  return {
    interactive: stdin.isTTY === true,
    choose: (signal) =>
      new Promise<KeyChoice>((resolve, reject) => {
        const raw = stdin.isTTY === true && typeof stdin.setRawMode === 'function';
        const done = () => {
          stdin.off('data', onData);
          signal.removeEventListener('abort', onAbort);
          if (raw) stdin.setRawMode(false);
          stdin.pause();
        };
        const onData = (data: Buffer | string) => {
          for (const ch of String(data)) {
            const key = meaning(ch);
            if (key === 'stop') process.kill(process.pid, 'SIGINT');
            else if (key !== null) {
              done();
              resolve(key);
              return;
            }
          }
        };
        const onAbort = () => {
          done();
          reject(signal.reason);
        };
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        if (raw) stdin.setRawMode(true);
        stdin.on('data', onData);
        stdin.resume();
        signal.addEventListener('abort', onAbort, { once: true });
      }),
  };
}
