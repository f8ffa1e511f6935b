/**
 * kill -9 during a run whose subject is a command system: `rge eval run` (12 questions x 2 runs, the
 * scripted system answering in 150 ms, two at a time) is killed with SIGKILL once some but not all of
 * its answers are stored, then run again to the end. Nothing is lost or duplicated: every (question,
 * run) cell is in the answer store exactly once (and each of its two verdicts in theirs), the report
 * counts every planned case; the second run asks the system exactly the cells the first did not keep,
 * none that it kept (stored, or received into its inbox: an answer that arrived just before the kill
 * is stored by the next run without asking again); the system's processes end after the kill (a
 * process per question finishes the one question it holds, a pool's processes see the end of their
 * stdin) and write nothing more.
 *
 * A question in flight at the kill (asked, its answer not yet received) is asked again by the second
 * run: that is the system asked twice, not a cell stored twice.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scratchDirs } from '../helpers/scratch.ts';
import { systemConfig } from '../helpers/system-config.ts';
import { until } from '../helpers/wait.ts';
import {
  askedCells,
  evalRunArgs,
  onlyRunId,
  processesWith,
  receivedCells,
  repeated,
  report,
  SCRIPTED,
  startRge,
  storedCells,
  storedRecords,
  wholeLines,
} from './system-runs.ts';

const QUESTIONS = 12;
const RUNS = 2;
const CELLS = QUESTIONS * RUNS;
const CONCURRENCY = 2;
/** kill once this many answers are stored (a third of the cells) */
const KILL_AT = 8;
const STORE = 'command__app.jsonl';
const freshDir = scratchDirs('rge-system-kill-');

interface Variant {
  name: string;
  pool: number | null;
}

const VARIANTS: Variant[] = [
  { name: 'a process per question', pool: null },
  { name: 'a pool of 2 processes', pool: 2 },
];

/** The run's config and flags, and the scripted system's files, in a fresh folder. */
async function setUp(v: Variant) {
  const dir = freshDir();
  await mkdir(dir, { recursive: true });
  const { config, overrides } = await systemConfig([
    {
      id: 'app',
      provider: 'command',
      command: [process.execPath, SCRIPTED, ...(v.pool === null ? [] : ['--pool'])],
      concurrency: CONCURRENCY,
      ...(v.pool === null ? {} : { pool: v.pool }),
    },
  ]);
  const log = join(dir, 'asked.log');
  const pids = join(dir, 'pids.log');
  const args = evalRunArgs(config, overrides, dir, ['--sample', String(QUESTIONS), '--runs', String(RUNS)]);
  const env = (tag: string) => ({
    SCRIPTED_DELAY_MS: '150',
    SCRIPTED_LOG: log,
    SCRIPTED_PIDS: pids,
    SCRIPTED_TAG: tag,
  });
  return { dir, results: join(dir, 'results'), log, pids, args, env };
}

/** The first run, killed with SIGKILL once `KILL_AT` answers are stored. */
async function killedRun(s: Awaited<ReturnType<typeof setUp>>) {
  const { child, done } = startRge(s.args, s.env('first'));
  let closed = false;
  void done.then(() => {
    closed = true;
  });
  const stored = await until(
    async () => storedCells(s.results, STORE).length,
    (n) => n >= KILL_AT || closed,
    300_000,
  );
  child.kill('SIGKILL');
  const outcome = await done;
  if (outcome.signal !== 'SIGKILL')
    throw new Error(
      `the first run ended before the kill (${stored} stored, exit ${outcome.code}): ${outcome.err}`,
    );
  return outcome;
}

describe('kill -9 during `rge eval run` of a command system, then the run again', () => {
  beforeAll(async () => {
    await systemConfig([]); // builds the world before the children need it
  }, 600_000);

  for (const v of VARIANTS)
    it(`${v.name}: nothing lost, nothing stored twice, the second run asks only what was not stored`, async () => {
      const s = await setUp(v);
      await killedRun(s);

      // what was stored at the kill: some, not all; and the replies received but not yet stored (the
      // inbox), which the next run stores without asking again
      const inStore = storedCells(s.results, STORE);
      expect(inStore.length).toBeGreaterThanOrEqual(KILL_AT);
      expect(repeated(inStore)).toEqual([]);
      const atKill = [...new Set([...inStore, ...receivedCells(s.results)])];
      expect(atKill.length).toBeLessThan(CELLS);

      // the system's processes end (rge cannot take them down with it: a process per question finishes
      // the question it holds, a pool process sees the end of its stdin) and then write nothing more;
      // every process with this run's log in its environment, one started just before the kill too
      const left = await until(
        async () => processesWith(`SCRIPTED_LOG=${s.log}`, wholeLines(s.pids).map(Number)),
        (running) => running.length === 0,
        30_000,
      );
      expect(left).toEqual([]);
      expect(wholeLines(s.pids).length).toBeGreaterThan(0);
      const logged = wholeLines(s.log).length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(wholeLines(s.log)).toHaveLength(logged);

      const firstAsked = askedCells(s.log, 'first');
      // every answer kept was asked; the rest the first run asked were in flight at the kill
      expect(atKill.filter((c) => !firstAsked.includes(c))).toEqual([]);
      const inFlight = firstAsked.filter((c) => !atKill.includes(c));
      // at most the questions the system held (CONCURRENCY) and answers received but not yet kept
      expect(inFlight.length).toBeLessThanOrEqual(2 * CONCURRENCY);

      const second = await startRge(s.args, s.env('second')).done;
      expect(second.code, second.err).toBe(0);
      expect(second.out).toContain(`${CELLS} cases, ${atKill.length} reused, 0 failed`);
      expect(second.out).toContain(`answers computed ${CELLS - atKill.length}`);

      // every (question, run) cell exactly once; each of its verdicts exactly once
      const final = storedCells(s.results, STORE);
      expect(final).toHaveLength(CELLS);
      expect(repeated(final)).toEqual([]);
      const questions = new Set(final.map((c) => c.split('/')[0]));
      expect(questions.size).toBe(QUESTIONS);
      for (const q of questions) for (let r = 0; r < RUNS; r++) expect(final).toContain(`${q}/${r}`);
      const verdicts = storedRecords(s.results, 'verdicts');
      expect([...verdicts.keys()].sort()).toEqual(['heuristic__lexical.jsonl', 'heuristic__numeric.jsonl']);
      for (const records of verdicts.values()) {
        expect(records).toHaveLength(CELLS);
        expect(repeated(records.map((r) => r.key))).toEqual([]);
      }

      // the second run asked each cell not kept at the kill once, and none that was kept
      const secondAsked = askedCells(s.log, 'second');
      expect(repeated(secondAsked)).toEqual([]);
      expect(secondAsked.filter((c) => atKill.includes(c))).toEqual([]);
      expect([...secondAsked].sort()).toEqual(final.filter((c) => !atKill.includes(c)).sort());

      // the report counts every planned case, all scored, no error
      const { json } = report(join(s.dir, 'reports'), onlyRunId(s.results));
      expect(json.cases).toMatchObject({ total: CELLS, scored: CELLS });
      expect(json.diagnostics.errors.count).toBe(0);
    }, 600_000);
});
