import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spendLine } from '../../src/cli/spend-line.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import type { Payer } from '../../src/store/ledger-tally.ts';

const CLAUDE: Payer = { provider: 'anthropic', model: 'claude-sonnet-4-6', role: 'subject' };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rge-spend-line-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the end line's spending (issue 39, defect 6)", () => {
  it("an offline run after a live one in the same folder: its own $0 cap, and the ledger's recorded $100 cap", async () => {
    // the live run: cap $100, pays $0.1648
    const live = new BudgetLedger(dir, { capUsd: 100, warnUsd: 0, configFile: 'configs/published.yaml' });
    const id = await live.reserve(0.5, CLAUDE);
    await live.settle(id, [{ key: 'k1', usd: 0.1648 }], { close: true });
    // the offline run: cap $0, spends nothing
    const offline = new BudgetLedger(dir, { capUsd: 0, warnUsd: 0, configFile: 'configs/fixture.yaml' });
    const summary = offline.refresh();
    const line = spendLine(
      { spentUsd: offline.spentByThisProcess, capUsd: 0, source: 'configs/fixture.yaml' },
      'data/results',
      summary,
    );
    expect(line).toBe(
      'this run spent $0.0000 of its $0.00 cap (configs/fixture.yaml); the ledger of data/results: ' +
        '$0.1648 spent in all, under the $100.00 cap recorded by its last run that spent (configs/published.yaml)',
    );
    expect(line).not.toMatch(/spent of its \$0\.00 cap/);
  });

  it('says so when no run that spent recorded a cap', () => {
    expect(
      spendLine({ spentUsd: 0, capUsd: 0, source: 'configs/fixture.yaml' }, 'r', {
        spentUsd: 0,
        recordedCap: null,
      }),
    ).toBe(
      'this run spent $0.0000 of its $0.00 cap (configs/fixture.yaml); the ledger of r: $0.0000 spent in all, no cap recorded by a run that spent',
    );
  });
});
