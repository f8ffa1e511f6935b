/**
 * Every stop signal stops a run that spends, and no process's reservations are booked as spend without
 * a bill (issue 52, defect 5). `rge eval run` in child processes against the strict loopback servers,
 * stopped mid-run while calls are in flight (held by the servers, never billed) and no reply is on its
 * way (test/run/stop-signals/scenario.ts):
 * - SIGTERM and SIGHUP stop it like Ctrl-C (exit 143, 129): the calls in flight are aborted and released,
 *   nothing is left held or unknown, the run state names the signal, and a rerun finishes with the
 *   servers' bill equal to the ledger. Before, both ended the process at once and its reservations
 *   became worst-case bookings.
 * - A second signal stops at once (exit 130 for Ctrl-C after SIGTERM), while the first stop still waits.
 * - kill -9: the next run stores the replies the dead process had received (its inbox) and settles their
 *   calls at cost; the calls it had in flight are shown as unknown (possibly billed, at most their worst
 *   case) in the ledger, `rge budget`, the run state and the report, never as spend.
 * RGE_STOP_FIGURES=1 prints each scenario's figures (docs/reference/providers-and-costs.md quotes them).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/util/lock.ts';
import { runRge } from '../helpers/cli.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { billedUsd, cellCounts, liveEnv, recordedCosts, root } from '../helpers/live.ts';
import {
  ANSWERS,
  billedReplies,
  type HeldServers,
  heldServers,
  ledgerOf,
  nothingInTransit,
  openCalls,
  type RunChild,
  received,
  removeScenarioDirs,
  reportOf,
  runStateOf,
  runToEnd,
  scenarioDirs,
  startRun,
  until,
  untilSteady,
  VERDICTS,
} from './stop-signals/scenario.ts';

const opened: HeldServers[] = [];
beforeAll(() => worldOverrides('bm25'), 600_000);
afterAll(async () => {
  await Promise.all(opened.map((s) => s.servers.close()));
  await removeScenarioDirs();
});

async function servers(): Promise<HeldServers> {
  const s = await heldServers();
  opened.push(s);
  return s;
}

/**
 * A run started, then held mid-run: 6 records stored, then the servers hold every call that arrives;
 * returns once at least 2 calls are held, every reply answered before is stored (none on its way), and
 * every call reserved has reached the servers (none between its reservation and its request), steadily.
 */
async function heldMidRun(
  s: HeldServers,
  dirs: { resultsDir: string; reportsDir: string },
): Promise<RunChild> {
  const run = startRun(s, dirs);
  const stored = () => received(dirs.resultsDir).stored.length;
  await until(
    () => `6 records stored (stderr: ${run.err()})`,
    () => stored() >= 6,
  );
  s.hold(true);
  await untilSteady(
    '2 calls held, every reply stored, every reservation at the servers',
    () =>
      s.held >= 2 && nothingInTransit(s, dirs.resultsDir, 'stored') && openCalls(dirs.resultsDir) === s.held,
  );
  return run;
}

/** Prints a scenario's figures when RGE_STOP_FIGURES=1. */
function figures(name: string, s: HeldServers, resultsDir: string, more = ''): void {
  if (process.env.RGE_STOP_FIGURES !== '1') return;
  const l = ledgerOf(resultsDir);
  process.stderr.write(
    `${name}: servers billed ${billedReplies(s.servers)} calls, $${billedUsd(s.servers).toFixed(6)}; ` +
      `ledger spent $${l.spentUsd.toFixed(6)} (${l.byPayer.reduce((n, p) => n + p.calls, 0)} calls), ` +
      `unknown $${l.unknownUsd.toFixed(6)} (${l.unknownCalls} calls), held $${l.heldUsd.toFixed(6)}${more}\n`,
  );
}

/** After a rerun to the end: every cell once, paid once, and the ledger equal to the servers' bill. */
function expectWholeAndPaidOnce(s: HeldServers, resultsDir: string): void {
  expect(cellCounts(resultsDir, 'answers')).toEqual({ keys: ANSWERS, lines: ANSWERS });
  expect(cellCounts(resultsDir, 'verdicts')).toEqual({ keys: VERDICTS, lines: VERDICTS });
  expect(billedReplies(s.servers)).toBe(ANSWERS + VERDICTS);
  const ledger = ledgerOf(resultsDir);
  expect(ledger.open).toEqual([]);
  expect(ledger.spentUsd).toBeCloseTo(recordedCosts(resultsDir).usd, 10);
  expect(ledger.spentUsd).toBeCloseTo(billedUsd(s.servers), 10);
}

describe('a sync run stopped by SIGTERM or SIGHUP stops as Ctrl-C does (issue 52, defect 5)', () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)
    it(`${signal}: exit ${code}, the calls in flight aborted and released, nothing held or unknown; a rerun's bill equals the ledger`, async () => {
      const s = await servers();
      const dirs = await scenarioDirs();
      const run = await heldMidRun(s, dirs);
      run.child.kill(signal);
      const exit = await run.exited;
      // before: the signal ended the process (code null, signal SIGTERM), its reservations left open
      expect(exit, run.err()).toEqual({ code, signal: null });
      expect(run.err()).toContain(`${signal} received: stopping: no new call starts`);
      expect(run.err()).toContain(`rge: stopped by ${signal}: no new call was started after it`);
      expect(run.err()).toContain('nothing left held in the budget ledger');
      const state = runStateOf(dirs.resultsDir);
      expect(state.stopped).toMatch(new RegExp(`^stopped by ${signal}: `));
      expect(state.stop_signal).toBe(signal);
      expect(state.spend.unknown_usd).toBe(0);
      // the held calls were never billed, and nothing of them is left in the ledger
      const stopped = ledgerOf(dirs.resultsDir);
      expect(stopped.open).toEqual([]);
      expect(stopped.unknownUsd).toBe(0);
      expect(stopped.spentUsd).toBeCloseTo(billedUsd(s.servers), 10);
      expect(stopped.spentUsd).toBeCloseTo(recordedCosts(dirs.resultsDir).usd, 10);
      figures(`${signal}, stopped`, s, dirs.resultsDir);

      const rerun = await runToEnd(s, dirs);
      expect(rerun.code, rerun.err).toBe(0);
      expectWholeAndPaidOnce(s, dirs.resultsDir);
      expect(ledgerOf(dirs.resultsDir).unknownUsd).toBe(0);
      figures(`${signal}, rerun`, s, dirs.resultsDir);
    }, 300_000);

  it('a second signal stops at once while the first stop waits: Ctrl-C after SIGTERM exits 130', async () => {
    const s = await servers();
    const dirs = await scenarioDirs();
    const run = await heldMidRun(s, dirs);
    // the first stop cannot end while the ledger is locked: its aborted calls wait to release their reservations
    let ms = 0;
    await withFileLock(join(dirs.resultsDir, '.budget_ledger.jsonl'), async () => {
      run.child.kill('SIGTERM');
      await until('the first stop said', () => run.err().includes('SIGTERM received'));
      await new Promise((r) => setTimeout(r, 300));
      const sent = Date.now();
      run.child.kill('SIGINT');
      expect(await run.exited).toEqual({ code: 130, signal: null });
      ms = Date.now() - sent;
    });
    expect(ms).toBeLessThan(5_000);
    expect(run.err()).toContain('Ctrl-C (SIGINT) received after SIGTERM: stopping at once (exit 130)');
    const held = s.held;
    // its held calls' reservations are left open: no reply on record, never billed
    expect(ledgerOf(dirs.resultsDir).open.filter((o) => o.kind === 'call')).toHaveLength(held);

    const rerun = await runToEnd(s, dirs);
    expect(rerun.code, rerun.err).toBe(0);
    expect(rerun.err).toMatch(
      /call\(s\) in flight when it died have no reply on record: their cost is unknown/,
    );
    expectWholeAndPaidOnce(s, dirs.resultsDir);
    const ledger = ledgerOf(dirs.resultsDir);
    expect(ledger.unknownCalls).toBe(held);
    expect(ledger.unknownUsd).toBeGreaterThan(0);
    figures('SIGTERM then Ctrl-C at once, rerun', s, dirs.resultsDir);
  }, 300_000);
});

describe('kill -9 mid-run, then a rerun: no reservation booked as spend without a bill (issue 52)', () => {
  it('replies received are stored from the inbox and settled at cost; calls in flight are shown unknown, not spent', async () => {
    const s = await servers();
    const dirs = await scenarioDirs();
    // Claude's answers store locked from the start: its replies reach the process's inbox and wait
    // there for the lock, while the other subjects' cells go on
    const claudeAnswers = join(dirs.resultsDir, 'cells', 'answers', 'anthropic__claude-sonnet-4-6.jsonl');
    const claudeWaiting = () =>
      received(dirs.resultsDir).inbox.some((r) => r.kind === 'answer' && r.identity.provider === 'anthropic');
    let inInbox = 0;
    await withFileLock(claudeAnswers, async () => {
      const run = startRun(s, dirs);
      await until('6 records stored and a Claude answer in the inbox', () => {
        return received(dirs.resultsDir).stored.length >= 6 && claudeWaiting();
      });
      s.hold(true);
      // the replies not stored yet are Claude's answers only (nothing else is between inbox and store),
      // and every call reserved has reached the servers (none between its reservation and its request)
      const quiet = () => {
        const { inbox } = received(dirs.resultsDir);
        return (
          inbox.every((r) => r.kind === 'answer' && r.identity.provider === 'anthropic') &&
          openCalls(dirs.resultsDir) === inbox.length + s.held
        );
      };
      await untilSteady(
        '2 calls held, every reply stored or in the inbox, only Claude answers not stored',
        () => s.held >= 2 && nothingInTransit(s, dirs.resultsDir, 'stored or inbox') && quiet(),
      );
      inInbox = received(dirs.resultsDir).inbox.length;
      run.child.kill('SIGKILL');
      expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });
    });
    const held = s.held;
    const dead = ledgerOf(dirs.resultsDir);
    // open when it died: the calls whose replies wait in its inbox, and the held ones
    expect(dead.open.filter((o) => o.kind === 'call')).toHaveLength(inInbox + held);

    const rerun = await runToEnd(s, dirs);
    expect(rerun.code, rerun.err).toBe(0);
    expect(rerun.err).toContain(`stored ${inInbox} repl(ies) a stopped process had received but not stored`);
    expect(rerun.err).toContain(
      `recovered ${inInbox} call(s) of a stopped process from their stored records`,
    );
    expect(rerun.err).toContain(`; ${held} call(s) in flight when it died have no reply on record`);
    // every billed reply is in the ledger at its cost, once; nothing was paid twice
    expectWholeAndPaidOnce(s, dirs.resultsDir);
    const ledger = ledgerOf(dirs.resultsDir);
    // the held calls: shown as unknown (at most their worst case), not as spend; the servers billed none
    expect(ledger.unknownCalls).toBe(held);
    expect(ledger.unknownUsd).toBeGreaterThan(0);
    expect(billedUsd(s.servers)).toBeLessThanOrEqual(ledger.spentUsd + ledger.unknownUsd);
    // the rerun's state, the report's budget section and `rge budget` say so
    expect(runStateOf(dirs.resultsDir).spend.unknown_usd).toBeCloseTo(ledger.unknownUsd, 10);
    expect(reportOf(dirs.reportsDir)).toContain(
      `Unknown, not spent: up to $${ledger.unknownUsd.toFixed(4)} for calls in flight when a process of the run was killed`,
    );
    const budget = await runRge(root, 'budget', '--results-dir', dirs.resultsDir);
    expect(budget.out).toContain(
      `spent $${ledger.spentUsd.toFixed(4)}, unknown up to $${ledger.unknownUsd.toFixed(4)}, held $0.0000`,
    );
    expect(budget.out).toContain(
      `  unknown: ${held} call(s) of a process that died (kill -9, a crash) with no reply on record: possibly billed, at most $${ledger.unknownUsd.toFixed(4)}`,
    );
    figures('kill -9, rerun', s, dirs.resultsDir, `; ${inInbox} repl(ies) stored from its inbox`);
  }, 300_000);
});

describe('the first Ctrl-C on an offline run stops starting new cells at once (issue 52)', () => {
  it('the fixture run (1,200 answers, 2,400 verdicts) stops asking: every cell not asked says the stop, and the run state names it', async () => {
    const dirs = await scenarioDirs();
    const sets = (await worldOverrides('bm25')).flatMap((o) => ['--set', o]);
    const child = spawn(
      process.execPath,
      [
        join(root, 'bin/rge.mjs'),
        ...['eval', 'run', '--config', 'configs/fixture.yaml', ...sets],
        ...['--results-dir', dirs.resultsDir, '--reports-dir', dirs.reportsDir],
      ],
      { cwd: root, env: { ...process.env, CI: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const answers = () => cellCounts(dirs.resultsDir, 'answers').lines;
    await until('the first answers stored', () => {
      try {
        return answers() > 0;
      } catch {
        return false; // no store yet
      }
    });
    child.kill('SIGINT');
    expect(await exited, err).toBe(130);
    const state = runStateOf(dirs.resultsDir);
    expect(state.stop_signal).toBe('SIGINT');
    // before: every answer and verdict was computed after the first Ctrl-C, and no stop was recorded
    const done = state.counts.answers.computed + state.counts.verdicts.computed;
    expect(done).toBeLessThan(1_200 + 2_400);
    // every cell the run did not ask says why: the stop, never a failure
    const errors = Object.entries(state.errors as Record<string, string>);
    expect(errors.every(([, why]) => why.startsWith('stopped by Ctrl-C (SIGINT): '))).toBe(true);
    const notAnswered = errors.filter(([id]) => !id.includes('/judge ')).length;
    expect(notAnswered).toBe(1_200 - answers());
    expect(notAnswered).toBeGreaterThan(0);
    expect(err).toContain('rge: stopped by Ctrl-C (SIGINT)');
  }, 300_000);
});

/** A run config with one live judge (GPT-5.4) for `rge judge agree`, and an AttributionBench file of 30 items. */
async function agreeFolder(): Promise<string> {
  const { resultsDir } = await scenarioDirs();
  const dir = join(resultsDir, '..');
  const config = readFileSync(join(root, 'test/run/stop-signals/agree.yaml'), 'utf8');
  await writeFile(join(dir, 'run.yaml'), config);
  const rows = Array.from({ length: 30 }, (_, i) =>
    JSON.stringify({
      id: `ab-${i}`,
      question: `What was revenue in FY${i}?`,
      claim: `Revenue was Rs ${100 + i} crore.`,
      references: [`Revenue from operations was Rs ${100 + i} crore in FY${i}.`],
      attribution_label: i % 2 ? 'attributable' : 'not attributable',
      src_dataset: 'X',
    }),
  );
  await writeFile(join(dir, 'ab.jsonl'), `${rows.join('\n')}\n`);
  return dir;
}

describe('rge judge agree, which spends too, stops on SIGTERM (issue 52)', () => {
  it('exit 143: the calls in flight aborted and released; what was billed is spent, nothing held or unknown', async () => {
    const s = await servers();
    const dir = await agreeFolder();
    const results = join(dir, 'results');
    const child = spawn(
      process.execPath,
      [
        join(root, 'bin/rge.mjs'),
        ...['judge', 'agree', '--format', 'attributionbench', '--file', 'ab.jsonl'],
        ...['--config', 'run.yaml', '--judge', 'gpt-judge', '--results-dir', 'results'],
      ],
      {
        cwd: dir,
        env: { ...process.env, ...liveEnv(s.servers), CI: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d;
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    const settledCalls = () => {
      try {
        return ledgerOf(results).byPayer.reduce((n, p) => n + p.calls, 0);
      } catch {
        return 0; // no ledger yet
      }
    };
    await until(
      () => `4 judged items settled (stderr: ${err})`,
      () => settledCalls() >= 4,
    );
    s.hold(true);
    await until(
      '2 calls held and every reply settled',
      () => s.held >= 2 && billedReplies(s.servers) === s.answered && settledCalls() === s.answered,
    );
    child.kill('SIGTERM');
    expect(await exited, err).toEqual({ code: 143, signal: null });
    expect(err).toContain('SIGTERM received: stopping: no new call starts');
    expect(err).toContain('rge: stopped by SIGTERM: no new call was started after it');
    const ledger = ledgerOf(results);
    expect(ledger.open).toEqual([]);
    expect(ledger.unknownUsd).toBe(0);
    expect(ledger.spentUsd).toBeCloseTo(billedUsd(s.servers), 10);
    expect(ledger.spentUsd).toBeGreaterThan(0);
    figures('rge judge agree, SIGTERM', s, results);
  }, 300_000);
});
