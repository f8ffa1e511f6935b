/**
 * Issue 21, batch mode: `rge eval run` processes started at once on one results folder submit each cell
 * in one batch only. Two of them submitted one batch twice (20 items paid twice) before batch records
 * had owners, and each took the other's running batch for a stopped one. One killed with SIGKILL while
 * it owns a submitted batch leaves it to the others, who poll it and pay for nothing again.
 */
import { describe, expect, it } from 'vitest';
import { billedUsd } from '../helpers/live.ts';
import {
  billedCalls,
  checkScenario,
  createdBatches,
  type Scenario,
  scenarios,
  submittedItems,
  takeovers,
} from './concurrent/runs.ts';

const runScenario = scenarios();

describe('batch runs on one results folder submit each cell once', () => {
  for (const s of [
    { processes: 2, mode: 'batch', kill: true },
    { processes: 4, mode: 'batch', kill: false },
    { processes: 4, mode: 'batch', kill: true },
  ] satisfies Scenario[])
    it(`${s.processes} processes at once${s.kill ? ', the owner of a running batch killed with SIGKILL' : ''}: no item submitted twice, as many paid calls as cells`, async () => {
      const o = await runScenario(s);
      if (s.kill) expect(o.killed, 'no process owned a submitted batch').not.toBeNull();
      const { billed, cells } = checkScenario(s, o);
      // every batch a provider created is recorded once, collected, and holds cells no other batch does
      const items = submittedItems(o.resultsDir);
      expect(createdBatches(o.servers)).toBe(items.records);
      expect(new Set(items.keys).size).toBe(items.keys.length);
      expect(items.statuses.every((st) => st === 'collected')).toBe(true);
      // each cell paid once, in a batch
      expect(billedCalls(o.servers)).toEqual({ sync: 0, batch: cells });
      expect(billed).toBe(cells);
      expect(o.ledger.spentUsd).toBeCloseTo(billedUsd(o.servers), 10);
      expect(o.ledger.unknownUsd).toBe(0);
      if (s.kill) {
        // the killed owner's batch was taken over, not submitted again
        expect(
          takeovers(o.resultsDir).some((t) => t.stage === 'batch' && t.from.includes(o.killed as number)),
        ).toBe(true);
        expect(
          o.outcomes.some((p) => /resuming \(submitted before a stop; not paid again\)/.test(p.err)),
        ).toBe(true);
      }
    });
});
