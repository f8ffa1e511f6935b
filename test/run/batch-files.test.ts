/**
 * What rge leaves at a provider in batch mode (issue 38, items 4 and 7), against the loopback fakes:
 * OpenAI keeps a batch's input file (which rge uploads) and its output and error files until they are
 * deleted, and runs and bills a batch whether or not its client comes back. rge records each file in
 * the batch record, deletes the input once the batch has ended or when the submission fails (a retried
 * submission uploads it once), the output and error files once their results are stored, sweeps an
 * upload a stop left without a batch; what it could not delete, and the batches still open, `rge
 * results batches` lists, and the next run deletes.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runStages } from '../../src/run/stages/stages.ts';
import { batchesDir, customIdPrefix, loadBatchRecords } from '../../src/store/batch-records.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { runRge } from '../helpers/cli.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import {
  billedUsd,
  FAKE_KEYS,
  liveEnv,
  liveOverrides,
  recordedCosts,
  root,
  serverKeys,
} from '../helpers/live.ts';
import { openTestRun, type TestRunOptions } from '../helpers/open-run.ts';
import { type LoopbackOptions, type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';

beforeAll(() => worldOverrides('bm25'), 600_000);

const open: LoopbackServers[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function servers(opts: LoopbackOptions = {}): Promise<LoopbackServers> {
  const s = await startLoopbackServers(opts, serverKeys);
  open.push(s);
  return s;
}

/** A batch run of the published config on 1 question x 1 run (the gpt subject's answers go to OpenAI). */
function batchRun(s: LoopbackServers, dir: string, over: Partial<TestRunOptions> = {}): TestRunOptions {
  return {
    config: 'configs/published.yaml',
    root,
    resultsDir: dir,
    reportsDir: join(dir, 'reports'),
    env: liveEnv(s),
    overrides: liveOverrides(),
    log: () => {},
    questions: 1,
    runs: 1,
    mode: 'batch',
    ...over,
  };
}

const requestsTo = (s: LoopbackServers, method: string, path: RegExp) =>
  s.openai.requests.filter((r) => r.method === method && path.test(r.path));

describe('the files OpenAI keeps for a batch', () => {
  it('are all deleted once their batches are collected: none left at the provider, each recorded deleted', async () => {
    const s = await servers();
    const dir = await mkdtemp(join(tmpdir(), 'rge-batch-files-'));
    const { state } = await runStages(await openTestRun(batchRun(s, dir)), { log: () => {} });
    expect(state.counts.answers.computed + state.counts.verdicts.computed).toBe(9);
    // the gpt subject's answers and the gpt judge's verdicts: two batches, an input and an output each
    expect(requestsTo(s, 'POST', /^\/v1\/files$/)).toHaveLength(2);
    expect(s.openai.files()).toEqual([]);
    const records = loadBatchRecords(batchesDir(dir)).filter((r) => r.provider === 'openai');
    expect(records.map((r) => r.files.map((f) => [f.kind, f.deleted]))).toEqual([
      [
        ['input', true],
        ['output', true],
      ],
      [
        ['input', true],
        ['output', true],
      ],
    ]);
    // Anthropic and Gemini keep no file a client must delete
    expect(
      loadBatchRecords(batchesDir(dir)).filter((r) => r.provider !== 'openai' && r.files.length > 0),
    ).toEqual([]);
    const listed = await runRge(root, 'results', 'batches', '--results-dir', dir);
    expect(listed.out).toContain('6 batch record(s) in ');
    expect(listed.out).toContain('nothing left at the providers (no batch open, every file deleted)');
  });

  it('a submission retried after the batch was refused once uploads its file once; one refused for good deletes it', async () => {
    // batch creation fails with a 500 once, then works
    let creates = 0;
    const s = await servers({
      intercept: ({ method, path }) =>
        method === 'POST' && path === '/v1/batches' && creates++ === 0 ? 500 : null,
    });
    const dir = await mkdtemp(join(tmpdir(), 'rge-batch-files-retry-'));
    const run = batchRun(s, dir, { subjects: ['gpt'] });
    const { state } = await runStages(await openTestRun(run), { log: () => {} });
    expect(state.errors).toEqual({});
    expect(requestsTo(s, 'POST', /^\/v1\/batches$/)).toHaveLength(2);
    expect(requestsTo(s, 'POST', /^\/v1\/files$/)).toHaveLength(1); // the retry reused the upload
    expect(s.openai.files()).toEqual([]);

    // refused outright (a 400: failed), and a server that keeps failing (500s until retries run out:
    // the batch may exist, so it is looked up, and found absent): the items run as sync calls and no
    // upload is left
    for (const [status, outcome] of [
      [400, 'failed'],
      [500, 'absent'],
    ] as const) {
      const refusing = await servers({
        intercept: ({ method, path }) => (method === 'POST' && path === '/v1/batches' ? status : null),
      });
      const d = await mkdtemp(join(tmpdir(), `rge-batch-files-${status}-`));
      const logs: string[] = [];
      const { state: st } = await runStages(
        await openTestRun(batchRun(refusing, d, { subjects: ['gpt'], log: (l) => logs.push(l) })),
        { log: (l) => logs.push(l) },
      );
      expect(st.errors, String(status)).toEqual({});
      const said = status === 400 ? /submission failed \(.*400/ : /ended without an answer \(.*500/;
      expect(
        logs.some((l) => said.test(l)),
        logs.join('\n'),
      ).toBe(true);
      expect(requestsTo(refusing, 'POST', /^\/v1\/files$/), String(status)).toHaveLength(1);
      expect(refusing.openai.files(), String(status)).toEqual([]);
      const [record] = loadBatchRecords(batchesDir(d)).filter((r) => r.provider === 'openai');
      expect(record).toMatchObject({ status: outcome, files: [{ kind: 'input', deleted: true }] });
    }
  });

  it('an upload a stop left without a batch (a record still submitting) is found by its name and deleted', async () => {
    const s = await servers();
    const dir = await mkdtemp(join(tmpdir(), 'rge-batch-files-stop-'));
    await runStages(await openTestRun(batchRun(s, dir, { subjects: ['gpt'] })), { log: () => {} });
    // A stop between the upload of question 2's batch and its creation left a record submitting, without
    // a batch id, and the uploaded file named after it.
    const two = await openTestRun(batchRun(s, dir, { subjects: ['gpt'], questions: 2 }));
    const missing = (await two.work.cells()).filter((c) => !two.answers(c.subject).get(c.key));
    expect(missing).toHaveLength(1);
    const [done] = loadBatchRecords(batchesDir(dir)).filter((r) => r.provider === 'openai');
    if (!done) throw new Error('no openai batch record');
    const id = `${done.id}-stopped`;
    const stopped = {
      ...done,
      id,
      status: 'submitting',
      remote_id: null,
      reservation: null,
      reserved_usd: 0,
      items: [{ custom_id: `${customIdPrefix(id)}0`, key: missing[0]?.key }],
      files: [],
    };
    await writeFile(join(batchesDir(dir), `${id}.json`), `${JSON.stringify(stopped, null, 2)}\n`);
    const client = new OpenAI({ apiKey: FAKE_KEYS.OPENAI_API_KEY, baseURL: s.openai.url });
    await client.files.create({ file: await toFile(Buffer.from('{}\n'), `${id}.jsonl`), purpose: 'batch' });
    expect(s.openai.files()).toHaveLength(1);

    const { state } = await runStages(two, { log: () => {} });
    expect(state.errors).toEqual({});
    expect(s.openai.files()).toEqual([]);
    const after = loadBatchRecords(batchesDir(dir)).find((r) => r.id === id);
    // looked up and not found: absent (a batch created later under its tag would still be adopted)
    expect(after).toMatchObject({ status: 'absent', files: [{ kind: 'input', deleted: true }] });
  });

  it('what could not be deleted is listed by `rge results batches` and deleted by the next run', async () => {
    let refuseDeletes = true;
    const s = await servers({
      intercept: ({ method }) => (method === 'DELETE' && refuseDeletes ? 503 : null),
    });
    const dir = await mkdtemp(join(tmpdir(), 'rge-batch-files-left-'));
    const logs: string[] = [];
    await runStages(await openTestRun(batchRun(s, dir, { subjects: ['gpt'] })), { log: (l) => logs.push(l) });
    expect(s.openai.files()).toHaveLength(2);
    expect(logs.filter((l) => /could not delete its (input|output) file file-/.test(l))).toHaveLength(2);
    const listed = await runRge(root, 'results', 'batches', '--results-dir', dir);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(
      /: by these records, 0 batch\(es\) open and 2 file\(s\) not deleted at the providers/,
    );
    for (const f of s.openai.files())
      expect(listed.out).toContain(
        `${f.purpose === 'batch' ? 'input' : 'output'} file ${f.id} at openai: not deleted`,
      );
    const json = JSON.parse((await runRge(root, 'results', 'batches', '--results-dir', dir, '--json')).out);
    expect(
      json.left.flatMap((l: { files_left: { id: string }[] }) => l.files_left.map((f) => f.id)).sort(),
    ).toEqual(
      s.openai
        .files()
        .map((f) => f.id)
        .sort(),
    );

    refuseDeletes = false;
    await runStages(await openTestRun(batchRun(s, dir, { subjects: ['gpt'] })), { log: () => {} });
    expect(s.openai.files()).toEqual([]);
    const again = await runRge(root, 'results', 'batches', '--results-dir', dir);
    expect(again.out).toContain('nothing left at the providers');
  });
});

describe('a batch its run stopped waiting for', () => {
  it('is listed open, is billed at the provider all the same within what the ledger holds, and is collected and paid once by the next run', async () => {
    // the provider takes 1.5 s; the run waits 0.2 s at most
    const s = await servers({ batch: { completeAfterMs: 1500 } });
    const dir = await mkdtemp(join(tmpdir(), 'rge-batch-abandoned-'));
    const waitBriefly = [...liveOverrides(), 'batch.max_wait_hours=0.00005'];
    const run = batchRun(s, dir, { subjects: ['gpt'], overrides: waitBriefly });
    const { state } = await runStages(await openTestRun(run), { log: () => {} });
    expect(Object.values(state.errors)).toEqual([
      expect.stringMatching(/has not ended yet; rerun the same command/),
    ]);
    const [record] = loadBatchRecords(batchesDir(dir));
    if (!record) throw new Error('no batch record');
    const listed = await runRge(root, 'results', 'batches', '--results-dir', dir);
    expect(listed.out).toContain(
      ': by these records, 1 batch(es) open and 1 file(s) not deleted at the providers',
    );
    expect(listed.out).toContain(
      `batch ${record.id} (openai/gpt-5.4, 1 answers, created ${record.created_at}): submitted, open at openai as ${record.remote_id}`,
    );
    expect(listed.out).toContain(`its worst case $${record.reserved_usd.toFixed(4)} is held in the budget`);
    const budget = await runRge(root, 'budget', '--results-dir', dir);
    expect(budget.out).toContain(
      `open batch reservation ${record.reservation}: $${record.reserved_usd.toFixed(4)}`,
    );
    expect(budget.out).toContain('`rge results batches` lists what rge left at the providers');

    // nobody polls it: the provider runs and bills it when it is due, and the ledger holds more than that
    await new Promise((r) => setTimeout(r, 1700));
    expect(s.openai.billed.map((b) => b.batch)).toEqual([true]);
    const ledger = () =>
      new BudgetLedger(dir, { capUsd: 100, warnUsd: 0, configFile: 'configs/published.yaml' }).summary();
    const held = ledger();
    expect(held.heldUsd + held.unknownUsd).toBeGreaterThanOrEqual(billedUsd(s));

    // the next run collects it: paid once, what the provider billed, every file deleted, nothing listed
    const again = await runStages(await openTestRun(batchRun(s, dir, { subjects: ['gpt'] })), {
      log: () => {},
    });
    expect(again.state.errors).toEqual({});
    expect(s.openai.billed.filter((b) => b.customId !== null && b.batch)).toHaveLength(1);
    const paid = ledger();
    expect(paid.spentUsd).toBeCloseTo(recordedCosts(dir).usd, 12);
    expect(paid.spentUsd).toBeCloseTo(billedUsd(s), 12);
    expect(paid.open).toEqual([]);
    expect(s.openai.files()).toEqual([]);
    expect((await runRge(root, 'results', 'batches', '--results-dir', dir)).out).toContain(
      'nothing left at the providers',
    );
  });
});
