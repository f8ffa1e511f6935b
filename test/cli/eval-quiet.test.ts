/**
 * How much `rge eval run` says (issue 39, defect 9): `--quiet` is quiet on a terminal too; under CI or
 * into a log that is not a terminal a line per stage; on a terminal all of it. What the runs print in
 * each is test/cli/eval-quiet.integration.test.ts (real runs in child processes).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { evalOutput } from '../../src/cli/eval.ts';
import type { CliIO } from '../../src/cli/io.ts';

describe('evalOutput: how much rge eval run says', () => {
  const io = (env: Record<string, string>): CliIO => ({
    out: () => {},
    err: () => {},
    cwd: '.',
    exitCode: 0,
    env,
  });
  const tty = process.stdout.isTTY;
  afterEach(() => {
    process.stdout.isTTY = tty;
  });

  it('--quiet: quiet, on a terminal too; CI or a log that is not a terminal: a line per stage; else all of it', () => {
    process.stdout.isTTY = true;
    expect(evalOutput(true, io({}))).toBe('quiet');
    expect(evalOutput(undefined, io({}))).toBe('full');
    expect(evalOutput(undefined, io({ CI: 'true' }))).toBe('summary');
    process.stdout.isTTY = false;
    expect(evalOutput(undefined, io({}))).toBe('summary');
    expect(evalOutput(true, io({}))).toBe('quiet');
  });
});
