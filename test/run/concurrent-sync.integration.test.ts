/**
 * Issue 21, sync mode: `rge eval run` processes started at once on one results folder pay once per cell.
 * Two of them paid twice for 39 of 86 calls before cells were leased. Each scenario starts the
 * processes against fresh loopback servers; one is killed with SIGKILL midway while its call is in
 * flight, and the others take its cells over.
 */
import { describe, expect, it } from 'vitest';
import { billedUsd } from '../helpers/live.ts';
import { checkScenario, type Scenario, scenarios, takeovers } from './concurrent/runs.ts';

const runScenario = scenarios();

describe('sync runs on one results folder pay once per cell', () => {
  for (const processes of [2, 4])
    it(`${processes} processes at once: as many paid calls as cells, each stored once`, async () => {
      const s: Scenario = { processes, mode: 'sync', kill: false };
      const o = await runScenario(s);
      const { billed, cells } = checkScenario(s, o);
      expect(billed).toBe(cells);
      expect(o.ledger.spentUsd).toBeCloseTo(billedUsd(o.servers), 10);
      // the work was shared: more than one process paid for calls
      const paying = o.outcomes.filter((p) => /this run spent \$0\.0*[1-9]/.test(p.out));
      expect(paying.length).toBeGreaterThan(1);
    });

  it('4 processes, one killed with SIGKILL while its calls are in flight: the others take its cells over', async () => {
    const s: Scenario = { processes: 4, mode: 'sync', kill: true };
    const o = await runScenario(s);
    expect(o.killed, 'no process held a cell midway').not.toBeNull();
    const { billed, cells } = checkScenario(s, o);
    // A cell whose call the killed process had in flight is paid again by the process that takes it
    // over only when the server had sent the whole reply (the loopback bills a reply once it is written,
    // not a client that went away) and the reply had not reached the killed process's inbox: a reply in
    // transit at the kill. Its call is shown in the ledger as unknown (at most its worst case). A reply
    // that reached the inbox is stored from there, and its call settled at its cost.
    expect(billed).toBeGreaterThanOrEqual(cells);
    expect(billed - cells).toBeLessThanOrEqual(o.ledger.unknownCalls);
    expect(billedUsd(o.servers)).toBeLessThanOrEqual(o.ledger.spentUsd + o.ledger.unknownUsd + 1e-9);
    // A call of the killed process that left no record (shown as unknown) is a cell it held
    // when it died, which another process had to take over. (Cells it had stored, or whose reply
    // reached its inbox, need no takeover: the others find them stored.)
    if (o.ledger.unknownCalls > 0)
      expect(takeovers(o.resultsDir).some((t) => t.from.includes(o.killed as number))).toBe(true);
  });
});
