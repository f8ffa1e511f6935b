/**
 * `rge results merge --into DIR SHARD_DIR...` on results folders of the fixture run. Shard A holds the
 * first 4 questions; shard B was restored from A (the CI cache) and went on to 6, so the cells they share
 * are byte-identical; shard C is B with one shared answer changed. Merged: the identical cells once (no
 * key twice), the ledger journals' events once each, the run states and batch records copied, and a run
 * over the merged folder reuses every cell. A cell of one key with different content is a conflict:
 * named, the first folder's record kept, exit 1 unless --allow-conflicts. A damaged source writes nothing.
 */

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { caseRow } from '../../src/run/case/case.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { toJsonl } from '../../src/store/jsonl.ts';
import { resultsFile } from '../../src/store/rows.ts';
import { runRge } from '../helpers/cli.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const quiet = () => {};
const ANSWERS = join('cells', 'answers', 'offline__extractive.jsonl');

async function stages(resultsDir: string, questions: number) {
  const run = await openTestRun({
    config: 'configs/fixture.yaml',
    root: ROOT,
    resultsDir,
    overrides: await worldOverrides(),
    questions,
    runs: 1,
    log: quiet,
  });
  return (await runStages(run, { log: quiet })).state;
}

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n');
const keys = (file: string) => lines(file).map((l) => (JSON.parse(l) as { key: string }).key);

/**
 * A batch record as a batch run leaves it once collected (a run's stages read the folder's records since
 * issue 52, so it must be one).
 */
const BATCH_A = `${JSON.stringify({
  id: 'batch-a',
  run_id: 'fixture-x',
  provider: 'openai',
  model: 'gpt-5-mini',
  role: 'subject',
  status: 'collected',
  remote_id: 'batch_abc',
  reservation: null,
  reserved_usd: 0.01,
  submitted_after_ms: 0,
  items: [],
  files: [],
  error: null,
  unknown_attempts: 0,
  late_of: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
})}\n`;

/** Ledger events as a live run writes them: a reservation, its spend, its close. */
function ledgerEvents(id: string, usd: number): string[] {
  const at = '2026-01-01T00:00:00.000Z';
  const payer = { provider: 'openai', model: 'gpt-5-mini', role: 'subject' };
  return [
    { t: 'reserve', id, usd: usd * 2, payer, kind: 'call', owner: { pid: 1, host: 'ci' }, at },
    { t: 'spend', id, key: id, usd, at },
    { t: 'close', id, at },
  ].map((e) => JSON.stringify(e));
}

describe('rge results merge', () => {
  let dir: string;
  let a: string;
  let b: string;
  let c: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-merge-'));
    a = join(dir, 'a');
    b = join(dir, 'b');
    c = join(dir, 'c');
    await stages(a, 4);
    writeFileSync(join(a, '.budget_ledger.jsonl'), `${ledgerEvents('r-1', 0.01).join('\n')}\n`);
    mkdirSync(join(a, '.batches'), { recursive: true });
    writeFileSync(join(a, '.batches', 'batch-a.json'), BATCH_A);
    cpSync(a, b, { recursive: true });
    await stages(b, 6);
    writeFileSync(
      join(b, '.budget_ledger.jsonl'),
      `${[...ledgerEvents('r-1', 0.01), ...ledgerEvents('r-2', 0.02)].join('\n')}\n`,
    );
    cpSync(b, c, { recursive: true });
    // one answer both A and C hold, with other content in C
    const changed = lines(join(c, ANSWERS)).map((l, i) =>
      i === 0 ? JSON.stringify({ ...JSON.parse(l), text: 'Another answer.' }) : l,
    );
    writeFileSync(join(c, ANSWERS), `${changed.join('\n')}\n`);
  }, 300_000);

  it('joins two shards: shared identical cells once, events once, states and batches copied', async () => {
    const into = join(dir, 'merged');
    const outcome = await runRge(ROOT, 'results', 'merge', '--into', into, a, b);
    expect(outcome.code, outcome.err).toBe(0);
    // 6 questions x 2 subjects answered (4 shared), each judged by the panel's 2 judges
    expect(outcome.out).toMatch(
      /merged 2 folder\(s\) into .*: 36 cell records in 4 store\(s\) \(24 already there, merged once\), .* 0 conflict\(s\)/,
    );
    for (const kind of ['answers', 'verdicts'])
      for (const f of readdirSync(join(into, 'cells', kind))) {
        const k = keys(join(into, 'cells', kind, f));
        expect(new Set(k).size, `${kind}/${f}: a key twice`).toBe(k.length);
        expect(k).toHaveLength(kind === 'answers' ? 6 : 12);
      }
    expect(lines(join(into, '.budget_ledger.jsonl'))).toEqual([
      ...ledgerEvents('r-1', 0.01),
      ...ledgerEvents('r-2', 0.02),
    ]);
    const summary = JSON.parse(readFileSync(join(into, '.budget_ledger.json'), 'utf8'));
    expect(summary.spentUsd).toBeCloseTo(0.03, 10);
    expect(readdirSync(join(into, '.runs'))).toEqual(
      [...new Set([...readdirSync(join(a, '.runs')), ...readdirSync(join(b, '.runs'))])].sort(),
    );
    expect(readdirSync(join(into, '.batches'))).toEqual(['batch-a.json']);
    expect(readdirSync(into).some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  it('gives a run over the merged folder every cell: it computes nothing', async () => {
    const into = join(dir, 'merged');
    const state = await stages(into, 6);
    expect(state.counts.answers).toEqual({ computed: 0, reused: 12, failed: 0 });
    expect(state.counts.verdicts).toEqual({ computed: 0, reused: 24, failed: 0 });
  });

  it('reports a cell of one key with other content as a conflict, keeps the first, exits 1', async () => {
    const into = join(dir, 'conflicted');
    const outcome = await runRge(ROOT, 'results', 'merge', '--into', into, a, c);
    expect(outcome.code).toBe(1);
    const key = (JSON.parse(lines(join(a, ANSWERS))[0] as string) as { key: string }).key;
    expect(outcome.err).toContain(
      `conflict in ${ANSWERS}: ${key} differs between ${a} and ${c}; kept ${a}'s`,
    );
    expect(outcome.err).toMatch(/pass --allow-conflicts/);
    expect(outcome.out).toMatch(/1 conflict\(s\)/);
    const merged = lines(join(into, ANSWERS)).map((l) => JSON.parse(l) as { key: string; text: string });
    expect(merged.filter((r) => r.key === key).map((r) => r.text)).not.toContain('Another answer.');
    expect(new Set(merged.map((r) => r.key)).size).toBe(merged.length);
    // the ledgers of A and C still join (C's events after A's), and the rest of C's cells are in
    expect(lines(join(into, ANSWERS))).toHaveLength(6);

    const allowed = await runRge(
      ROOT,
      'results',
      'merge',
      '--allow-conflicts',
      '--into',
      join(dir, 'allowed'),
      a,
      c,
    );
    expect(allowed.code).toBe(0);
    expect(allowed.err).toContain(`conflict in ${ANSWERS}: ${key}`);
  });

  it('reports two batch records of one name with other content as a conflict', async () => {
    const d = join(dir, 'd');
    cpSync(a, d, { recursive: true });
    writeFileSync(
      join(d, '.batches', 'batch-a.json'),
      BATCH_A.replace('"reserved_usd":0.01', '"reserved_usd":0.02'),
    );
    const outcome = await runRge(ROOT, 'results', 'merge', '--into', join(dir, 'batches'), a, d);
    expect(outcome.code).toBe(1);
    expect(outcome.err).toContain(`conflict in ${join('.batches', 'batch-a.json')}`);
    expect(readFileSync(join(dir, 'batches', '.batches', 'batch-a.json'), 'utf8')).toBe(BATCH_A);
  });

  it('writes nothing when a source is damaged (a line that is not a record, not a torn tail)', async () => {
    const e = join(dir, 'e');
    cpSync(a, e, { recursive: true });
    const damaged = lines(join(e, ANSWERS));
    damaged.splice(1, 0, '{"kind":"answer"}');
    writeFileSync(join(e, ANSWERS), `${damaged.join('\n')}\n`);
    const into = join(dir, 'never');
    const outcome = await runRge(ROOT, 'results', 'merge', '--into', into, a, e);
    expect(outcome.code).toBe(1);
    expect(outcome.err).toContain(`${join(e, ANSWERS)}:2:`);
    expect(existsSync(into)).toBe(false);
  });

  it('refuses a folder that does not exist (usage error, exit 2)', async () => {
    const outcome = await runRge(ROOT, 'results', 'merge', '--into', join(dir, 'x'), join(dir, 'nowhere'));
    expect(outcome.code).toBe(2);
    expect(outcome.err).toMatch(/no results folder .*nowhere/);
  });
});

/**
 * Two shards of the same run, each computing its cells afresh (empty caches: the CI cache missed, or
 * docs/ci.md "The same, locally" merging into a folder an earlier run filled): every record of one key
 * is the same result at another time. Issue 53: 4,804 conflicts for records that differed only in
 * `latency_ms` and `created_at`; a conflict is another result, not another timing.
 */
describe('rge results merge: two shards of the same run, computed twice', () => {
  let dir: string;
  let first: string;
  let second: string;

  /** The run's stages, then its result rows as the Vitest cases write them (one file per subject). */
  async function computed(resultsDir: string): Promise<void> {
    const run = await openTestRun({
      config: 'configs/fixture.yaml',
      root: ROOT,
      resultsDir,
      overrides: await worldOverrides(),
      questions: 4,
      runs: 1,
      log: quiet,
    });
    const { state } = await runStages(run, { log: quiet });
    const cells = await run.work.cells();
    const { info } = run.plan;
    for (const subject of run.plan.subjects) {
      const header = {
        kind: 'run',
        run_id: info.runId,
        subject_id: subject.id,
        seed: run.plan.config.seed,
        config_hash: info.configHash,
        index_checksum: info.indexChecksum,
        questions_hash: info.questionsHash,
        created_at: new Date().toISOString(),
      };
      const rows = cells.filter((c) => c.subject.id === subject.id).map((c) => caseRow(run, c, state));
      writeFileSync(resultsFile(resultsDir, subject.id, info.runId), toJsonl([header, ...rows]));
    }
    await run.close();
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-merge-twice-'));
    first = join(dir, 'first');
    second = join(dir, 'second');
    await computed(first);
    await new Promise((resolve) => setTimeout(resolve, 5)); // another created_at, whatever the clock
    await computed(second);
  }, 300_000);

  it('merges the same results made at other times once each: no conflict', async () => {
    // the two folders' records differ, in their timing only
    expect(readFileSync(join(second, ANSWERS), 'utf8')).not.toBe(readFileSync(join(first, ANSWERS), 'utf8'));
    const into = join(dir, 'merged');
    const outcome = await runRge(ROOT, 'results', 'merge', '--into', into, first, second);
    expect(outcome.err).toBe('');
    expect(outcome.code).toBe(0);
    // 4 questions x 2 subjects: 8 answers and 16 verdicts in each folder, every one merged once
    expect(outcome.out).toMatch(
      /: 24 cell records in 4 store\(s\) \(24 already there, merged once\), \d+ file\(s\) written, 0 conflict\(s\)/,
    );
    // the first folder's records are the cells, and each result row is there once
    expect(readFileSync(join(into, ANSWERS), 'utf8')).toBe(readFileSync(join(first, ANSWERS), 'utf8'));
    const rowFiles = readdirSync(into).filter((f) => f.endsWith('.jsonl'));
    expect(rowFiles).toHaveLength(2);
    for (const f of rowFiles) expect(lines(join(into, f))).toHaveLength(1 + 4);
  });

  it('notes the same result at another cost, keeps the paid record beside the first, and does not fail', async () => {
    const billed = join(dir, 'billed');
    cpSync(second, billed, { recursive: true });
    const records = lines(join(billed, ANSWERS)).map((l) => JSON.parse(l) as Record<string, unknown>);
    const charge = { reservation: 'r-9', key: 'r-9', usd: 0.0012 };
    records[0] = { ...records[0], cost_usd: 0.0012, charges: [charge] };
    writeFileSync(join(billed, ANSWERS), toJsonl(records));
    const into = join(dir, 'merged-billed');
    const outcome = await runRge(ROOT, 'results', 'merge', '--into', into, first, billed);
    expect(outcome.code).toBe(0);
    expect(outcome.out).toMatch(/0 conflict\(s\)/);
    const key = records[0]?.key as string;
    expect(outcome.err).toContain(
      `rge: ${ANSWERS}: 1 record(s) hold the same result as one already merged, at another cost (e.g. ${key}: $0.0000`,
    );
    expect(outcome.err).toContain('$0.0012');
    expect(keys(join(into, ANSWERS)).filter((k) => k === key)).toHaveLength(2);
  });

  it('still calls another answer of one key a conflict', async () => {
    const other = join(dir, 'other');
    cpSync(second, other, { recursive: true });
    const records = lines(join(other, ANSWERS)).map((l) => JSON.parse(l) as Record<string, unknown>);
    records[0] = { ...records[0], text: 'Another answer.' };
    writeFileSync(join(other, ANSWERS), toJsonl(records));
    const outcome = await runRge(ROOT, 'results', 'merge', '--into', join(dir, 'merged-other'), first, other);
    expect(outcome.code).toBe(1);
    expect(outcome.err).toContain(`conflict in ${ANSWERS}: ${records[0]?.key as string} differs`);
    expect(outcome.out).toMatch(/1 conflict\(s\)/);
  });
});
