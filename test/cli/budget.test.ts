/**
 * `rge budget` reads the cap and the spending from the ledger of a results folder: the cap the last run
 * that spent recorded (a config is only compared), and how much of what counts against the cap is
 * unknown: calls of a killed process with no reply on record, possibly billed, never shown as spend.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BudgetLedger, LEDGER_JOURNAL } from '../../src/store/ledger.ts';
import type { Payer } from '../../src/store/ledger-tally.ts';
import { runRge } from '../helpers/cli.ts';
import { deadPid } from '../helpers/dead-pid.ts';
import { root } from '../helpers/live.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const CLAUDE: Payer = { provider: 'anthropic', model: 'claude-sonnet-4-6', role: 'subject' };
const LIVE = 'configs/published.yaml --set budget.cap_usd=0.65 --set budget.warn_usd=0.3';

const scratch = scratchDirs('rge-budget-cli-');

describe('rge budget', () => {
  it('an empty folder: nothing spent, no cap recorded; a folder that does not exist is a usage error', async () => {
    const dir = scratch();
    const none = await runRge(root, 'budget', '--results-dir', dir);
    expect(none.code).toBe(2);
    expect(none.err).toBe(`rge: --results-dir ${dir}: no results folder there\n`);
    await mkdir(dir, { recursive: true });
    const { code, out } = await runRge(root, 'budget', '--results-dir', dir);
    expect(code).toBe(0);
    expect(out).toContain('no run has recorded a cap in this ledger yet');
    expect(out).toContain('spent $0.0000, unknown up to $0.0000, held $0.0000');
  });

  it("prints the ledger's cap, not a config's; a config and --set are compared with it", async () => {
    const dir = scratch();
    const budget = (...args: string[]) => runRge(root, 'budget', '--results-dir', dir, ...args);
    // what a run with --set budget.cap_usd=0.65 leaves: 0.2 spent, then a process killed with a call
    // in flight (its reservation of 0.15 is shown on recovery as unknown, at most that worst case)
    const run = new BudgetLedger(dir, {
      capUsd: 0.65,
      warnUsd: 0.3,
      configFile: 'configs/published.yaml',
      capSource: LIVE,
    });
    const id = await run.reserve(0.25, CLAUDE);
    await run.settle(id, [{ key: 'a', usd: 0.2 }], { close: true });
    const owner = { pid: await deadPid(), host: hostname() };
    await mkdir(dir, { recursive: true });
    await appendFile(
      join(dir, LEDGER_JOURNAL),
      `${JSON.stringify({ t: 'reserve', id: 'call-cut', usd: 0.15, payer: CLAUDE, kind: 'call', owner, at: '2026-12-01T00:00:00.000Z' })}\n`,
    );
    await run.recover(() => undefined);

    const plain = await budget();
    expect(plain.code).toBe(0);
    expect(plain.out).toContain(
      `the cap recorded by the last run that spent: ${LIVE} (pid ${process.pid} on ${hostname()}, `,
    );
    // left 0.65 - 0.2 - 0.15 = 0.30
    expect(plain.out).toContain(
      'cap $0.6500 (warning at $0.3000): spent $0.2000, unknown up to $0.1500, held $0.0000, left $0.3000',
    );
    // 0.15 of the 0.35 counted against the cap is unknown, not spend: 43%
    expect(plain.out).toContain(
      '  unknown: 1 call(s) of a process that died (kill -9, a crash) with no reply on record: possibly billed, at most $0.1500 (their worst case; nothing for a call cut off before its reply). Not spend; counted against the cap: $0.1500 of the $0.3500 counted (43%).',
    );

    const published = await budget('--config', 'configs/published.yaml');
    expect(published.code).toBe(0);
    expect(published.out).toContain('cap $0.6500 (warning at $0.3000): spent $0.2000');
    expect(published.out).toContain(
      "configs/published.yaml: cap $100.0000 (warning at $50.0000), not the ledger's; under it $99.6500 would be left",
    );
    const same = await budget(
      '--config',
      'configs/published.yaml',
      '--set',
      'budget.cap_usd=0.65',
      '--set',
      'budget.warn_usd=0.3',
    );
    expect(same.out).toContain(`${LIVE}: the same cap as the ledger's`);

    const json = JSON.parse((await budget('--json', '--config', 'configs/published.yaml')).out);
    expect(json).toMatchObject({
      capUsd: 0.65,
      recordedCap: { capUsd: 0.65, source: LIVE },
      unknownCalls: 1,
      compared: { capUsd: 100, source: 'configs/published.yaml', leftUsd: expect.closeTo(99.65, 10) },
    });
  });

  it('--set without --config, or one the schema refuses, is an error naming the argument', async () => {
    const alone = await runRge(root, 'budget', '--set', 'budget.cap_usd=1');
    expect(alone.code).toBe(2);
    expect(alone.err).toContain('--set needs --config');
    const bad = await runRge(root, 'budget', '--config', 'configs/published.yaml', '--set', 'budget.cap=1');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--set budget.cap=1: budget.cap: unknown field');
  });
});
