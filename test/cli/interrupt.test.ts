import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIRST_INTERRUPT, onInterrupts, SECOND_INTERRUPT } from '../../src/cli/interrupt.ts';

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

describe('Ctrl-C on a run (issue 39, defect 4)', () => {
  it('the first says what it waits for and that a second stops at once; the second exits 130', () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const exits: number[] = [];
    const stop = onInterrupts(
      controller,
      (l) => lines.push(l),
      (c) => exits.push(c),
    );
    try {
      process.emit('SIGINT', 'SIGINT');
      expect(controller.signal.aborted).toBe(true);
      expect(exits).toEqual([]);
      expect(lines).toEqual([FIRST_INTERRUPT]);
      expect(FIRST_INTERRUPT).toMatch(/calls in flight/);
      expect(FIRST_INTERRUPT).toMatch(/Ctrl-C again to stop at once/);
      process.emit('SIGINT', 'SIGINT');
      expect(exits).toEqual([130]);
      expect(lines.at(-1)).toBe(SECOND_INTERRUPT);
    } finally {
      stop();
    }
  });

  it('a process sent SIGINT twice exits 130 at once, not when its slow stop ends', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'interrupt', 'child.ts')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => err, 'ready');
    child.kill('SIGINT');
    await waitFor(() => err, 'aborted');
    expect(err).toContain('Press Ctrl-C again to stop at once');
    const sent = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(err).toContain(SECOND_INTERRUPT);
  }, 40_000);
});
