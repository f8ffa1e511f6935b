import { existsSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BudgetExceededError,
  BudgetLedger,
  LEDGER_JOURNAL,
  LEDGER_SUMMARY,
  type LedgerOptions,
} from '../../src/store/ledger.ts';
import type { LedgerEvent, Payer } from '../../src/store/ledger-tally.ts';
import { deadPid } from '../helpers/dead-pid.ts';

const CLAUDE: Payer = { provider: 'anthropic', model: 'claude-sonnet-4-6', role: 'subject' };
const GPT: Payer = { provider: 'openai', model: 'gpt-5.4', role: 'judge' };
const GEMINI: Payer = { provider: 'gemini', model: 'gemini-3.1-pro-preview', role: 'judge' };

let work: string;
let seq = 0;
const freshDir = (): string => join(work, `l${seq++}`);
const ledger = (dir: string, opts: Partial<LedgerOptions> = {}) =>
  new BudgetLedger(dir, { capUsd: 1, warnUsd: 0, configFile: 'configs/test.yaml', ...opts });

const allEvents = (dir: string): LedgerEvent[] =>
  readFileSync(join(dir, LEDGER_JOURNAL), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LedgerEvent);
/** The journal's events but the caps (the first reservation records its cap; see 'the recorded cap') */
const events = (dir: string): LedgerEvent[] => allEvents(dir).filter((e) => e.t !== 'cap');

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rge-ledger-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('BudgetLedger: reserve, settle, release', () => {
  it('reserves within the cap and records who holds it', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    const id = await l.reserve(0.4, CLAUDE);
    expect(id).toMatch(/^call-[0-9a-f-]{36}$/);
    const s = l.summary();
    // held 0.4, left 1 - 0.4 = 0.6
    expect(s.heldUsd).toBeCloseTo(0.4, 12);
    expect(s.leftUsd).toBeCloseTo(0.6, 12);
    expect(s.spentUsd).toBe(0);
    expect(s.open).toEqual([
      { id, usd: 0.4, kind: 'call', payer: CLAUDE, owner: { pid: process.pid, host: hostname() } },
    ]);
    expect(events(dir)).toMatchObject([{ t: 'reserve', id, usd: 0.4, kind: 'call', payer: CLAUDE }]);
    // exactly up to the cap is allowed: 0.4 + 0.6 = 1
    await l.reserve(0.6, GPT);
    expect(l.summary().leftUsd).toBeCloseTo(0, 12);
  });

  it('a claim that would pass the cap with nothing in flight is refused at once, saying why', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    const id = await l.reserve(0.75, CLAUDE);
    await l.settle(id, [{ key: 'k1', usd: 0.7 }], { close: true });
    const started = Date.now();
    let err: unknown;
    try {
      await l.reserve(0.5, CLAUDE);
    } catch (e) {
      err = e;
    }
    expect(Date.now() - started).toBeLessThan(2000); // not waiting: nothing in flight can free budget
    expect(err).toBeInstanceOf(BudgetExceededError);
    const b = err as BudgetExceededError;
    expect(b.claimUsd).toBe(0.5);
    // spent 0.7, left 1 - 0.7 = 0.3; amounts under $1 with four decimals
    expect(b.summary.spentUsd).toBeCloseTo(0.7, 12);
    expect(b.summary.leftUsd).toBeCloseTo(0.3, 12);
    expect(b.message).toBe(
      'budget cap of $1.00 reached: spent $0.7000, $0.3000 left; the next call needs up to $0.5000. ' +
        'Stopped cleanly: stored results are kept and a rerun resumes. To go on, raise budget.cap_usd in configs/test.yaml.',
    );
    // nothing was reserved
    expect(events(dir).filter((e) => e.t === 'reserve')).toHaveLength(1);
  });

  it('settle records what was spent and closes the reservation', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    const id = await l.reserve(0.4, CLAUDE);
    await l.settle(id, [{ key: 'partial', usd: 0.1 }], { close: false });
    // still open, holding 0.4 - 0.1 = 0.3; left 1 - 0.1 - 0.3 = 0.6
    let s = l.summary();
    expect(s.spentUsd).toBeCloseTo(0.1, 12);
    expect(s.heldUsd).toBeCloseTo(0.3, 12);
    expect(s.open.map((o) => o.usd)).toEqual([expect.closeTo(0.3, 12)]);
    expect(s.leftUsd).toBeCloseTo(0.6, 12);
    await l.settle(id, [{ key: 'rest', usd: 0.05 }], { close: true });
    // spent 0.1 + 0.05 = 0.15, nothing held, left 0.85
    s = l.summary();
    expect(s.spentUsd).toBeCloseTo(0.15, 12);
    expect(s.heldUsd).toBe(0);
    expect(s.open).toEqual([]);
    expect(s.leftUsd).toBeCloseTo(0.85, 12);
    expect(events(dir).map((e) => e.t)).toEqual(['reserve', 'spend', 'spend', 'close']);
  });

  it('settling the same key twice counts once, also from another ledger instance', async () => {
    const dir = freshDir();
    const a = ledger(dir);
    const id = await a.reserve(0.4, CLAUDE);
    await a.settle(id, [{ key: 'call-1', usd: 0.2 }], { close: true });
    await a.settle(id, [{ key: 'call-1', usd: 0.2 }], { close: true });
    const b = ledger(dir);
    await b.settle(id, [{ key: 'call-1', usd: 0.2 }], { close: true });
    for (const l of [a, b]) {
      l.refresh();
      expect(l.summary().spentUsd).toBeCloseTo(0.2, 12);
      expect(l.summary().byPayer).toEqual([{ ...CLAUDE, spentUsd: 0.2, calls: 1 }]);
    }
    expect(events(dir).map((e) => e.t)).toEqual(['reserve', 'spend', 'close']);
  });

  it('what this process spent counts every settle, also when settles run at once', async () => {
    const l = ledger(freshDir());
    const ids = await Promise.all(Array.from({ length: 8 }, () => l.reserve(0.1, CLAUDE)));
    // eight settles of 0.01 at once: 0.08 (a `+= await` lost all but the last one's 0.01)
    await Promise.all(ids.map((id, i) => l.settle(id, [{ key: `k${i}`, usd: 0.01 }], { close: true })));
    expect(l.spentByThisProcess).toBeCloseTo(0.08, 12);
    expect(l.summary().spentUsd).toBeCloseTo(0.08, 12);
  });

  it('release frees the hold without spending', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    const id = await l.reserve(0.9, CLAUDE);
    expect(l.summary().leftUsd).toBeCloseTo(0.1, 12);
    await l.release(id);
    expect(l.summary()).toMatchObject({ spentUsd: 0, heldUsd: 0, leftUsd: 1, open: [] });
    // the freed budget can be claimed again
    await l.reserve(0.9, CLAUDE);
    expect(events(dir).map((e) => e.t)).toEqual(['reserve', 'close', 'reserve']);
  });

  it('a claim that fits once a live reservation settles waits for it, then succeeds', async () => {
    const dir = freshDir();
    const a = ledger(dir);
    const b = ledger(dir);
    const first = await a.reserve(0.8, CLAUDE);
    let settledAt = 0;
    const timer = setTimeout(() => {
      void a.settle(first, [{ key: 'first', usd: 0.3 }], { close: true }).then(() => {
        settledAt = Date.now();
      });
    }, 50);
    const started = Date.now();
    // 0.8 held + 0.5 > 1 now; after the settle 0.3 spent + 0.5 = 0.8 <= 1
    const second = await b.reserve(0.5, GPT).finally(() => clearTimeout(timer));
    const reservedAt = Date.now();
    expect(reservedAt - started).toBeGreaterThanOrEqual(45);
    expect(settledAt).toBeGreaterThan(0);
    expect(settledAt).toBeLessThanOrEqual(reservedAt);
    const s = b.refresh();
    // spent 0.3, held 0.5, left 1 - 0.3 - 0.5 = 0.2
    expect(s.spentUsd).toBeCloseTo(0.3, 12);
    expect(s.heldUsd).toBeCloseTo(0.5, 12);
    expect(s.leftUsd).toBeCloseTo(0.2, 12);
    expect(s.open.map((o) => o.id)).toEqual([second]);
    // the journal: the second reservation comes after the first one closed
    const ts = events(dir).map((e) => `${e.t}${'id' in e && e.id === first ? '1' : '2'}`);
    expect(ts).toEqual(['reserve1', 'spend1', 'close1', 'reserve2']);
  });

  it('a claim that would not fit even after everything in flight settles is refused at once', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    const first = await l.reserve(0.5, CLAUDE);
    await l.settle(first, [{ key: 'k', usd: 0.5 }], { close: false }); // spent 0.5, still open
    await l.reserve(0.3, CLAUDE); // held 0.3
    // spent 0.5 + claim 0.6 = 1.1 > 1: waiting cannot help
    const started = Date.now();
    await expect(l.reserve(0.6, GPT)).rejects.toBeInstanceOf(BudgetExceededError);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('BudgetLedger: a batch sized to what the cap leaves', () => {
  it('reserves the longest prefix of the items that fits, never more than the cap', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    await l.reserve(0.3, CLAUDE);
    // left 0.7: 0.25 + 0.25 fit, 0.25 + 0.25 + 0.25 = 0.75 does not; the cheaper fourth item is not
    // taken out of turn (a batch is a run of the queue, in order)
    const got = await l.reserveFitting([0.25, 0.25, 0.25, 0.1], GEMINI);
    expect(got).toMatchObject({ usd: 0.5, count: 2 });
    expect(got?.id).toMatch(/^batch-/);
    expect(events(dir).at(-1)).toMatchObject({ t: 'reserve', id: got?.id, usd: 0.5, kind: 'batch' });
    expect(l.summary().leftUsd).toBeCloseTo(0.2, 12);
    // exactly up to the cap
    expect(await l.reserveFitting([0.2, 0.01], GPT)).toMatchObject({ usd: 0.2, count: 1 });
    expect(l.summary().leftUsd).toBeCloseTo(0, 12);
  });

  it('reserves nothing, at once, when not even the first item fits; the outlook says whether it may later', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    const held = await l.reserveFitting([0.6], GEMINI);
    const before = events(dir).length;
    const started = Date.now();
    expect(await l.reserveFitting([0.5, 0.1], GPT)).toBeNull();
    expect(Date.now() - started).toBeLessThan(2000); // no waiting: the caller decides
    expect(events(dir)).toHaveLength(before);
    // 0.4 fits now; 0.5 may once the live batch settles (spent 0 + 0.5 <= 1); 1.5 never will
    expect(l.outlook(0.4)).toBe('now');
    expect(l.outlook(0.5)).toBe('later');
    expect(l.outlook(1.5)).toBe('never');
    // the batch settles at a tenth of its worst case: 0.5 fits
    await l.settle(held?.id as string, [{ key: 'b:1', usd: 0.06 }], { close: true });
    expect(l.outlook(0.5)).toBe('now');
    expect(await l.reserveFitting([0.5, 0.5], GPT)).toMatchObject({ usd: 0.5, count: 1 });
    // spent 0.06 and 0.5 held by this (live) process: 0.45 may fit later, 0.95 never
    expect(l.outlook(0.45)).toBe('later');
    expect(l.outlook(0.95)).toBe('never');
    expect(l.exceeded(0.95)).toBeInstanceOf(BudgetExceededError);
    expect(l.exceeded(0.95).message).toMatch(/the next call needs up to \$0\.9500/);
  });

  it('says never when only a stopped process holds the budget (nobody live will settle it)', async () => {
    const dir = freshDir();
    const pid = await deadPid();
    await mkdir(dir, { recursive: true });
    const reserve: LedgerEvent = {
      t: 'reserve',
      id: 'batch-dead',
      usd: 0.8,
      payer: GEMINI,
      kind: 'batch',
      owner: { pid, host: hostname() },
      at: '2026-12-01T00:00:00.000Z',
    };
    await appendFile(join(dir, LEDGER_JOURNAL), `${JSON.stringify(reserve)}\n`);
    const l = ledger(dir);
    expect(l.outlook(0.5)).toBe('never');
    await l.adopt('batch-dead');
    expect(l.outlook(0.5)).toBe('later');
  });
});

describe('BudgetLedger: the recorded cap', () => {
  it('the first reservation records the cap it spends under; the same cap is not recorded again', async () => {
    const dir = freshDir();
    expect(ledger(dir).recordedCap()).toBeNull();
    const a = ledger(dir, {
      capUsd: 0.65,
      warnUsd: 0.3,
      capSource: 'configs/live.yaml --set budget.cap_usd=0.65',
    });
    await a.reserve(0.1, CLAUDE);
    await a.reserve(0.1, GPT);
    // another process of the same run: nothing new to record
    await ledger(dir, {
      capUsd: 0.65,
      warnUsd: 0.3,
      capSource: 'configs/live.yaml --set budget.cap_usd=0.65',
    }).reserve(0.1, GEMINI);
    expect(allEvents(dir).map((e) => e.t)).toEqual(['cap', 'reserve', 'reserve', 'reserve']);
    expect(allEvents(dir)[0]).toMatchObject({
      t: 'cap',
      usd: 0.65,
      warn: 0.3,
      source: 'configs/live.yaml --set budget.cap_usd=0.65',
      owner: { pid: process.pid, host: hostname() },
    });
    // a reader (rge budget) sees it, and summarises against it or against another cap
    const reader = BudgetLedger.reader(dir);
    const cap = reader.recordedCap();
    expect(cap).toMatchObject({
      capUsd: 0.65,
      warnUsd: 0.3,
      source: 'configs/live.yaml --set budget.cap_usd=0.65',
    });
    expect(reader.summary(cap ?? { capUsd: 0, warnUsd: 0 })).toMatchObject({
      capUsd: 0.65,
      heldUsd: expect.closeTo(0.3, 12),
      leftUsd: expect.closeTo(0.35, 12),
    });
    expect(reader.summary({ capUsd: 100, warnUsd: 50 }).leftUsd).toBeCloseTo(99.7, 12);
    // a run with another cap records it with its first reservation; a refused one records nothing
    await expect(
      ledger(dir, { capUsd: 0.05, capSource: 'configs/x.yaml' }).reserve(0.1, CLAUDE),
    ).rejects.toThrow(BudgetExceededError);
    await ledger(dir, { capUsd: 5, warnUsd: 1, capSource: 'configs/published.yaml' }).reserve(0.1, CLAUDE);
    expect(
      allEvents(dir)
        .filter((e) => e.t === 'cap')
        .map((e) => e.t === 'cap' && [e.usd, e.source]),
    ).toEqual([
      [0.65, 'configs/live.yaml --set budget.cap_usd=0.65'],
      [5, 'configs/published.yaml'],
    ]);
    expect(BudgetLedger.reader(dir).recordedCap()?.capUsd).toBe(5);
  });
});

describe('BudgetLedger: a bad amount', () => {
  it('a NaN charge is refused and does not damage the ledger for later runs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-ledger-nan-'));
    const opts = { capUsd: 1, warnUsd: 0, configFile: 'c.yaml' };
    const l = new BudgetLedger(dir, opts);
    const id = await l.reserve(0.2, { provider: 'anthropic', model: 'claude-sonnet-4-6', role: 'subject' });
    await expect(l.settle(id, [{ key: id, usd: Number.NaN }], { close: true })).rejects.toThrow();
    expect(() => new BudgetLedger(dir, opts)).not.toThrow();
  });
});

describe('BudgetLedger: warning and summary', () => {
  it('the warning fires once across two ledger instances on one folder', async () => {
    const dir = freshDir();
    const warnedA: string[] = [];
    const warnedB: string[] = [];
    const a = ledger(dir, { warnUsd: 0.5, onWarn: (m) => warnedA.push(m) });
    const b = ledger(dir, { warnUsd: 0.5, onWarn: (m) => warnedB.push(m) });
    const spend = async (l: BudgetLedger, key: string, usd: number) => {
      const id = await l.reserve(usd, CLAUDE);
      await l.settle(id, [{ key, usd }], { close: true });
    };
    await spend(a, 'a1', 0.3); // 0.3 < 0.5: no warning
    expect(warnedA).toEqual([]);
    await spend(b, 'b1', 0.3); // 0.3 + 0.3 = 0.6 >= 0.5: b warns
    await spend(a, 'a2', 0.1); // 0.7: already warned, a stays quiet
    await spend(b, 'b2', 0.1); // 0.8
    expect(warnedA).toEqual([]);
    expect(warnedB).toEqual([
      'budget warning: $0.6000 spent passes the warning level of $0.5000 (cap $1.00)',
    ]);
    expect(events(dir).filter((e) => e.t === 'warn')).toMatchObject([{ t: 'warn', warn: 0.5 }]);
    expect(a.refresh().warnings).toHaveLength(1);
    expect(a.summary().warnings[0]?.spent).toBeCloseTo(0.6, 12);
  });

  it('summary: spent, held, left and the spend by payer, hand-computed', async () => {
    const dir = freshDir();
    const l = ledger(dir, { capUsd: 2, warnUsd: 1.5 });
    const r1 = await l.reserve(0.5, CLAUDE);
    await l.settle(r1, [{ key: 'r1', usd: 0.2 }], { close: true });
    const r2 = await l.reserve(0.6, GPT);
    await l.settle(r2, [{ key: 'r2', usd: 0.25 }], { close: true });
    const r3 = await l.reserve(0.4, CLAUDE);
    await l.settle(r3, [{ key: 'r3', usd: 0.1 }], { close: false }); // still holds 0.4 - 0.1 = 0.3
    const r4 = await l.reserve(0.3, GEMINI); // holds 0.3
    const s = l.summary();
    expect(s.capUsd).toBe(2);
    expect(s.warnUsd).toBe(1.5);
    // spent 0.2 + 0.25 + 0.1 = 0.55
    expect(s.spentUsd).toBeCloseTo(0.55, 12);
    expect(s.unknownUsd).toBe(0);
    // held 0.3 (r3) + 0.3 (r4) = 0.6
    expect(s.heldUsd).toBeCloseTo(0.6, 12);
    // left 2 - 0.55 - 0.6 = 0.85
    expect(s.leftUsd).toBeCloseTo(0.85, 12);
    expect(s.open.map((o) => o.id).sort()).toEqual([r3, r4].sort());
    // by payer, sorted by provider: anthropic 0.2 + 0.1 over 2 calls, openai 0.25 over 1; gemini spent nothing
    expect(s.byPayer).toHaveLength(2);
    expect(s.byPayer[0]).toMatchObject({ ...CLAUDE, calls: 2 });
    expect(s.byPayer[0]?.spentUsd).toBeCloseTo(0.3, 12);
    expect(s.byPayer[1]).toEqual({ ...GPT, spentUsd: 0.25, calls: 1 });
    expect(s.warnings).toEqual([]);
    // a fresh ledger replays the journal to the same numbers
    expect(ledger(dir, { capUsd: 2, warnUsd: 1.5 }).summary()).toEqual(s);
  });

  it('writeSummary writes .budget_ledger.json with the summary', async () => {
    const dir = freshDir();
    const l = ledger(dir);
    const id = await l.reserve(0.4, GPT);
    await l.settle(id, [{ key: 'x', usd: 0.125 }], { close: true });
    expect(existsSync(join(dir, LEDGER_SUMMARY))).toBe(false);
    await l.writeSummary();
    const written = JSON.parse(readFileSync(join(dir, LEDGER_SUMMARY), 'utf8'));
    expect(written).toEqual(l.summary());
    expect(written).toMatchObject({ capUsd: 1, spentUsd: 0.125, heldUsd: 0, leftUsd: 0.875 });
  });
});

describe('BudgetLedger: recovery after a crash', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await deadPid();
  });

  /** Writes the events a killed process would have left, by hand. */
  async function leftBehind(dir: string, lines: LedgerEvent[]): Promise<void> {
    await mkdir(dir, { recursive: true });
    await appendFile(join(dir, LEDGER_JOURNAL), lines.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }
  const at = '2026-12-01T00:00:00.000Z';
  const dead = () => ({ pid, host: hostname() });

  it('lists, settles and writes off the call reservations of a dead process; batches are adopted', async () => {
    const dir = freshDir();
    await leftBehind(dir, [
      { t: 'reserve', id: 'call-recorded', usd: 0.3, payer: CLAUDE, kind: 'call', owner: dead(), at },
      { t: 'reserve', id: 'call-in-flight', usd: 0.2, payer: GPT, kind: 'call', owner: dead(), at },
      { t: 'spend', id: 'call-in-flight', key: 'earlier', usd: 0.05, at },
      { t: 'reserve', id: 'batch-1', usd: 0.25, payer: GEMINI, kind: 'batch', owner: dead(), at },
    ]);
    const l = ledger(dir);
    // before recovery: spent 0.05, held 0.3 + (0.2 - 0.05) + 0.25 = 0.7
    expect(l.summary().spentUsd).toBeCloseTo(0.05, 12);
    expect(l.summary().heldUsd).toBeCloseTo(0.7, 12);
    expect(l.orphans()).toEqual([
      { id: 'call-recorded', usd: 0.3, kind: 'call' },
      { id: 'call-in-flight', usd: expect.closeTo(0.15, 12), kind: 'call' },
      { id: 'batch-1', usd: 0.25, kind: 'batch' },
    ]);
    expect(l.orphans('batch').map((o) => o.id)).toEqual(['batch-1']);

    const asked: string[] = [];
    const outcome = await l.recover((id) => {
      asked.push(id);
      return id === 'call-recorded' ? [{ key: 'call-recorded', usd: 0.12 }] : undefined;
    });
    expect(outcome).toEqual({ settled: 1, unknown: 1 });
    expect(asked.sort()).toEqual(['call-in-flight', 'call-recorded']); // never the batch
    const s = l.summary();
    // spent 0.05 + 0.12 (the recorded charge) = 0.17; unknown, not spent: what call-in-flight held, 0.2 - 0.05 = 0.15
    expect(s.spentUsd).toBeCloseTo(0.17, 12);
    expect(s.unknownUsd).toBeCloseTo(0.15, 12);
    // the batch still holds 0.25; left 1 - 0.17 - 0.15 - 0.25 = 0.43
    expect(s.heldUsd).toBeCloseTo(0.25, 12);
    expect(s.leftUsd).toBeCloseTo(0.43, 12);
    expect(l.orphans()).toEqual([{ id: 'batch-1', usd: 0.25, kind: 'batch' }]);
    // recover writes the summary file
    expect(JSON.parse(readFileSync(join(dir, LEDGER_SUMMARY), 'utf8'))).toEqual(s);

    // a second recovery finds nothing to do
    expect(await l.recover(() => undefined)).toEqual({ settled: 0, unknown: 0 });

    await l.adopt('batch-1');
    expect(l.orphans()).toEqual([]);
    expect(l.summary().open).toEqual([
      {
        id: 'batch-1',
        usd: 0.25,
        kind: 'batch',
        payer: GEMINI,
        owner: { pid: process.pid, host: hostname() },
      },
    ]);
    const tail = events(dir).slice(4);
    expect(tail.map((e) => e.t).sort()).toEqual(['adopt', 'close', 'orphan', 'spend']);
    expect(tail.find((e) => e.t === 'orphan')).toMatchObject({
      id: 'call-in-flight',
      usd: expect.closeTo(0.15, 12),
    });

    // a fresh ledger agrees
    const again = ledger(dir).summary();
    expect(again.spentUsd).toBeCloseTo(0.17, 12);
    expect(again.unknownUsd).toBeCloseTo(0.15, 12);
    expect(again.open.map((o) => o.owner.pid)).toEqual([process.pid]);
  });

  it('budget held by a dead process is not waited for, and the refusal names what is unknown', async () => {
    const dir = freshDir();
    await leftBehind(dir, [
      { t: 'reserve', id: 'call-gone', usd: 0.6, payer: CLAUDE, kind: 'call', owner: dead(), at },
      { t: 'reserve', id: 'call-lost', usd: 0.1, payer: CLAUDE, kind: 'call', owner: dead(), at },
      { t: 'orphan', id: 'call-lost', usd: 0.1, at },
    ]);
    const l = ledger(dir);
    const started = Date.now();
    let err: unknown;
    try {
      // 0.1 unknown + 0.6 held + 0.5 > 1, and the holder will never settle
      await l.reserve(0.5, GPT);
    } catch (e) {
      err = e;
    }
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).toBeInstanceOf(BudgetExceededError);
    // left 1 - 0 - 0.1 - 0.6 = 0.3
    expect((err as Error).message).toBe(
      'budget cap of $1.00 reached: spent $0.0000 (+ up to $0.1000 unknown: calls of a killed process, possibly billed), ' +
        '$0.6000 held by calls in flight, ' +
        '$0.3000 left; the next call needs up to $0.5000. Stopped cleanly: stored results are kept and a rerun ' +
        'resumes. To go on, raise budget.cap_usd in configs/test.yaml.',
    );
  });

  it('reservations of a live process are not orphans', async () => {
    const dir = freshDir();
    await leftBehind(dir, [
      {
        t: 'reserve',
        id: 'call-mine',
        usd: 0.2,
        payer: CLAUDE,
        kind: 'call',
        owner: { pid: process.pid, host: hostname() },
        at,
      },
      {
        t: 'reserve',
        id: 'call-elsewhere',
        usd: 0.2,
        payer: CLAUDE,
        kind: 'call',
        owner: { pid, host: 'another-machine' },
        at,
      },
    ]);
    const l = ledger(dir);
    expect(l.orphans()).toEqual([]);
    expect(await l.recover(() => undefined)).toEqual({ settled: 0, unknown: 0 });
    expect(l.summary().heldUsd).toBeCloseTo(0.4, 12);
  });
});
