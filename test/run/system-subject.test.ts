/**
 * A user's own system as the subject, through the module way in, on the fixture world: it is judged
 * against the contexts it returned, not against rge's index; its evidence recall says whether the gold
 * evidence reached it, and a failing case is classed by it; its cells are keyed by its module file (an
 * unchanged file is not asked again, a changed one is) and `--rerun` asks them again; a question it
 * fails is that cell's error and a rerun asks only the failed cells.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { Question } from '../../src/questions/schema.ts';
import { FAILING_BELOW, failureCause } from '../../src/report/evidence.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import { type Index, openIndex } from '../../src/retrieval/index.ts';
import { caseRow, failedBySubject } from '../../src/run/case/case.ts';
import type { RunSession } from '../../src/run/session/open.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { Reruns } from '../../src/store/reruns.ts';
import type { SystemAnswerInput } from '../../src/system/contract.ts';
import { worldPaths } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';
import { systemConfig } from '../helpers/system-config.ts';

const ROOT = join(import.meta.dirname, '../..');
const quiet = () => {};
const CASES = ['gd-001', 'gd-002', 'gd-003'];

type Scripted = Record<string, SystemAnswerInput | { throws: string }>;

/** A module system that answers from a script: each question's answer and contexts, or an error. */
async function scriptedModule(file: string, answers: Scripted, note = ''): Promise<void> {
  await writeFile(
    file,
    `// a scripted system${note}
const ANSWERS: Record<string, unknown> = ${JSON.stringify(answers)};
export default function answer(question: { id: string }) {
  const a = ANSWERS[question.id] as { throws?: string } | undefined;
  if (a === undefined) return { answer: 'The documents do not say.', contexts: [] };
  if (a.throws) throw new Error(a.throws);
  return a;
}
`,
  );
}

function questionsById(): Map<string, Question> {
  const lines = readFileSync('fixtures/questions.jsonl', 'utf8').split('\n').filter(Boolean);
  return new Map(lines.map((l) => JSON.parse(l) as Question).map((q) => [q.id, q]));
}

/** The gold answer, cited, over the given passages (rge's own chunks, as a system returns contexts). */
async function answersOver(index: Index, pick: (q: Question) => { company?: string }): Promise<Scripted> {
  const byId = questionsById();
  const out: Scripted = {};
  for (const id of CASES) {
    const q = byId.get(id) as Question;
    const hits = await index.retrieve(q.text, { k: 4, ...pick(q) });
    out[id] = {
      answer: `${q.gold_answer} [ctx-0].`,
      contexts: hits.map((h, i) => ({
        id: `ctx-${i}`,
        text: h.text,
        source: `${h.company}.pdf`,
        page: h.pages[0],
      })),
    };
  }
  return out;
}

async function openSystemRun(
  module: string,
  resultsDir: string,
  extra: { entry?: Record<string, unknown>; config?: Record<string, unknown> } = {},
): Promise<RunSession> {
  const { config, overrides } = await systemConfig(
    [{ id: 'app', provider: 'module', module, ...extra.entry }],
    extra.config,
  );
  return openTestRun({
    config,
    overrides,
    resultsDir,
    cases: CASES,
    runs: 1,
    root: process.cwd(),
    log: quiet,
  });
}

describe('a module system as the subject', () => {
  let index: Index;
  let dir: string;

  beforeAll(async () => {
    await systemConfig([]); // builds the world
    index = await openIndex(worldPaths().index);
    dir = await mkdtemp(join(tmpdir(), 'rge-system-subject-'));
  }, 600_000);

  it("is judged against its own contexts: the gold answer over another company's passages is ungrounded, a retrieval miss", async () => {
    const module = join(dir, 'elsewhere.ts');
    // every answer is the gold answer, but the passages come from a company the question is not about
    await scriptedModule(
      module,
      await answersOver(index, (q) => ({
        company: q.companies[0] === 'reliance' ? 'hdfc-bank' : 'reliance',
      })),
    );
    const run = await openSystemRun(module, join(dir, 'results-elsewhere'));
    await runStages(run, { log: quiet });
    const rows = (await run.work.cells()).map((c) => caseRow(run, c));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.retrieved_ids).toEqual(['ctx-0', 'ctx-1', 'ctx-2', 'ctx-3']);
      expect(row.evidence?.recall).toBe(0);
      // the figure-and-name judge finds nothing of the answer in them; the word judge, on a bare figure,
      // finds its unit ("tCO2e") in another company's emissions line: failing either way
      const numeric = row.verdicts.find((v) => v.judgeId === 'heuristic/numeric');
      expect(numeric?.verdict?.grounding.score).toBe(0);
      expect(row.scores.grounding).toBeLessThan(FAILING_BELOW);
      expect(failureCause(row)).toBe('retrieval miss');
    }
  }, 600_000);

  it('the same answers over the passages that hold the gold are grounded, and their evidence was reached', async () => {
    const module = join(dir, 'on-topic.ts');
    await scriptedModule(module, await answersOver(index, (q) => ({ company: q.companies[0] as string })));
    const run = await openSystemRun(module, join(dir, 'results-on-topic'));
    await runStages(run, { log: quiet });
    const rows = (await run.work.cells()).map((c) => caseRow(run, c));
    for (const row of rows) {
      expect(row.evidence?.recall).toBe(1);
      expect(row.scores.grounding).toBe(2);
      expect(row.checks.citationsResolve.passed).toBe(true);
    }
  }, 600_000);

  it('describes the system as sent the question, its run index and a seed: no temperature, no sampling parameter', async () => {
    const module = join(dir, 'described.ts');
    await scriptedModule(module, {});
    const run = await openSystemRun(module, join(dir, 'results-described'));
    const [subject] = run.plan.info.describe.subjects;
    expect(subject).toMatchObject({
      id: 'app',
      provider: 'module',
      parameters: {},
      sent: 'the question, its run index and a seed in the question; no temperature or other sampling parameter',
    });
    expect(subject?.deviation).toMatch(/^no temperature: a user's system is sent only the question/);
    // summary.json and the report say the same (a judge may well be sent temperature 0)
    expect(JSON.stringify(subject)).not.toMatch(/temperature 0/);
    const md = renderMarkdown(
      summarise([], { seed: 's', resamples: 10, run: run.plan.info, describe: run.plan.info.describe }),
    );
    const row = md.split('\n').find((l) => l.startsWith('| sent to app '));
    expect(row).toMatch(/^\| sent to app \(subject, a system\) \| the question, its run index and a seed/);
    expect(row).not.toMatch(/temperature 0/);
  });

  it('asks an unchanged module nothing again, a changed one again, and again after --rerun', async () => {
    const module = join(dir, 'versioned.ts');
    const results = join(dir, 'results-versioned');
    const answers = await answersOver(index, (q) => ({ company: q.companies[0] as string }));
    await scriptedModule(module, answers);
    const first = await openSystemRun(module, results);
    expect((await runStages(first, { log: quiet })).state.counts.answers.computed).toBe(3);
    const unchanged = await openSystemRun(module, results);
    expect(unchanged.plan.subjects[0]?.identity.version).toBe(first.plan.subjects[0]?.identity.version);
    expect((await runStages(unchanged, { log: quiet })).state.counts.answers).toMatchObject({
      computed: 0,
      reused: 3,
    });
    await scriptedModule(module, answers, ' (edited)');
    const changed = await openSystemRun(module, results);
    expect(changed.plan.subjects[0]?.identity.version).not.toBe(first.plan.subjects[0]?.identity.version);
    expect(changed.plan.info.runId).not.toBe(first.plan.info.runId);
    expect((await runStages(changed, { log: quiet })).state.counts.answers.computed).toBe(3);
    await new Reruns(results).rerun({ id: 'app', provider: 'module', model: 'app' });
    const rerun = await openSystemRun(module, results);
    expect(rerun.plan.subjects[0]?.identity.version).toMatch(/\+rerun\.1$/);
    expect((await runStages(rerun, { log: quiet })).state.counts.answers.computed).toBe(3);
  }, 600_000);

  it('keeps the answers of two systems that share one model label apart, and reruns only the one asked', async () => {
    const results = join(dir, 'results-one-label');
    const onTopic = join(dir, 'label-on-topic.ts');
    const elsewhere = join(dir, 'label-elsewhere.ts');
    await scriptedModule(onTopic, await answersOver(index, (q) => ({ company: q.companies[0] as string })));
    await scriptedModule(
      elsewhere,
      await answersOver(index, (q) => ({
        company: q.companies[0] === 'reliance' ? 'hdfc-bank' : 'reliance',
      })),
    );
    // one label and one declared version: only the subject tells them apart
    const shared = { model: 'our-rag', version: '1' };
    const open = async () => {
      const { config, overrides } = await systemConfig([
        { id: 'on-topic', provider: 'module', module: onTopic, ...shared },
        { id: 'elsewhere', provider: 'module', module: elsewhere, ...shared },
      ]);
      return openTestRun({
        config,
        overrides,
        resultsDir: results,
        cases: CASES,
        runs: 1,
        root: process.cwd(),
        log: quiet,
      });
    };
    const run = await open();
    expect((await runStages(run, { log: quiet })).state.counts.answers).toMatchObject({
      computed: 6,
      reused: 0,
    });
    const rows = (await run.work.cells()).map((c) => caseRow(run, c));
    const recall = (subject: string) =>
      rows.filter((r) => r.subject_id === subject).map((r) => r.evidence?.recall);
    expect(recall('on-topic')).toEqual([1, 1, 1]);
    expect(recall('elsewhere')).toEqual([0, 0, 0]);
    await new Reruns(results).rerun({ id: 'elsewhere', provider: 'module', model: 'our-rag' });
    const rerun = await open();
    expect(rerun.plan.subjects.map((s) => s.identity.version)).toEqual(['1', '1+rerun.1']);
    expect((await runStages(rerun, { log: quiet })).state.counts.answers).toMatchObject({
      computed: 3,
      reused: 3,
    });
  }, 600_000);

  it("records a question the system fails as its cell's error; a rerun asks only that cell", async () => {
    const module = join(dir, 'flaky.ts');
    const results = join(dir, 'results-flaky');
    const answers = await answersOver(index, (q) => ({ company: q.companies[0] as string }));
    await scriptedModule(module, { ...answers, 'gd-002': { throws: 'the vector store is down' } });
    const first = await openSystemRun(module, results);
    const { state } = await runStages(first, { log: quiet });
    expect(state.counts.answers).toMatchObject({ computed: 2, failed: 1 });
    expect(state.errors['app/gd-002/run 0']).toMatch(/question gd-002: .*the vector store is down/);
    // the subject's own failure (no answer), which the report scores 0, not a stop or rge's error
    expect(state.subject_failures).toEqual(['app/gd-002/run 0']);
    const cells = await first.work.cells();
    const failed = cells.find((c) => c.question.id === 'gd-002');
    if (!failed) throw new Error('no cell of gd-002');
    expect(() => caseRow(first, failed, state)).toThrow(/the vector store is down/);
    expect(cells.map((c) => failedBySubject(first, c, state))).toEqual(cells.map((c) => c === failed));
    // the same module again: the two stored cells are reused, only the failed one is asked (and fails)
    const again = await openSystemRun(module, results);
    expect((await runStages(again, { log: quiet })).state.counts.answers).toMatchObject({
      computed: 0,
      failed: 1,
      reused: 2,
    });
  }, 600_000);

  it('books the cost a system reports in the budget ledger, and asks nothing more once the cap is reached', async () => {
    const module = join(dir, 'priced.ts');
    const results = join(dir, 'results-priced');
    const answers = await answersOver(index, (q) => ({ company: q.companies[0] as string }));
    const priced: Scripted = Object.fromEntries(
      Object.entries(answers).map(([id, a]) => [id, { ...a, cost_usd: 0.01, model: 'acme-llm-2' }]),
    );
    await scriptedModule(module, priced);
    // one question at a time: 0.00 and 0.01 spent are under the cap of 0.015, 0.02 is not
    const run = await openSystemRun(module, results, {
      entry: { concurrency: 1 },
      config: { budget: { cap_usd: 0.015, warn_usd: 0 } },
    });
    const { state } = await runStages(run, { log: quiet });
    expect(state.counts.answers.computed).toBe(2);
    expect(Object.values(state.errors).join('\n')).toMatch(/cap/i);
    // the run stopped before the third: not the system's failure, so not scored 0
    expect(state.subject_failures).toEqual([]);
    const unanswered = (await run.work.cells()).filter((c) => !run.answers(c.subject).get(c.key));
    expect(unanswered).toHaveLength(1);
    expect(failedBySubject(run, unanswered[0] as (typeof unanswered)[number], state)).toBe(false);
    const ledger = BudgetLedger.reader(results).refresh();
    expect(ledger.spentUsd).toBeCloseTo(0.02, 10);
    expect(ledger.byPayer).toEqual([
      expect.objectContaining({ provider: 'module', model: 'app', role: 'subject', calls: 2 }),
    ]);
    // each stored answer carries its cost (the stop may leave their verdicts to the next run: a budget
    // stop stops every call, a free judge's too)
    const stored = (await run.work.cells()).flatMap((c) => run.answers(c.subject).get(c.key) ?? []);
    expect(stored.map((a) => a.cost_usd)).toEqual([0.01, 0.01]);
  }, 600_000);
});

describe('a config whose subjects are all systems (issue 51)', () => {
  let index: Index;
  let dir: string;

  beforeAll(async () => {
    await systemConfig([]); // builds the world (its index gives the scripted system its passages)
    index = await openIndex(worldPaths().index);
    dir = await mkdtemp(join(tmpdir(), 'rge-systems-only-'));
  }, 600_000);

  /** configs/fixture.yaml's settings with a module system for its subject, without `sections`. */
  async function systemsOnlyConfig(
    name: string,
    module: string,
    extra: Record<string, unknown>,
    ...sections: string[]
  ) {
    const doc = parseDocument(await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8'));
    doc.set('subjects', [{ id: 'app', provider: 'module', module, model: 'app', family: 'test-app' }]);
    doc.set('questions', { file: join(ROOT, 'fixtures/questions.jsonl'), version: 1 });
    for (const section of sections) doc.delete(section);
    for (const [key, value] of Object.entries(extra)) doc.set(key, value);
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, doc.toString());
    return file;
  }

  it('runs without corpus, retrieval and subject prompt sections: judged against its own contexts, no index', async () => {
    const module = join(dir, 'bare.ts');
    await scriptedModule(module, await answersOver(index, (q) => ({ company: q.companies[0] as string })));
    const config = await systemsOnlyConfig('bare', module, {}, 'corpus', 'retrieval', 'subject_prompt');
    expect(await readFile(config, 'utf8')).not.toMatch(/^(corpus|retrieval|subject_prompt):/m);
    const run = await openTestRun({
      config,
      resultsDir: join(dir, 'results-bare'),
      cases: CASES,
      runs: 1,
      root: process.cwd(),
      log: quiet,
    });
    expect(run.index).toBeNull();
    expect(run.plan.info.indexChecksum).toBe('none');
    expect(run.plan.info.describe.corpus).toBeUndefined();
    const { state } = await runStages(run, { log: quiet });
    expect(state.counts.answers.computed).toBe(3);
    const rows = (await run.work.cells()).map((c) => caseRow(run, c));
    for (const row of rows) {
      expect(row.evidence?.recall).toBe(1);
      expect(row.scores.grounding).toBe(2);
      expect(row.retrieval_hit).toBeNull();
    }
  }, 600_000);

  it("with a corpus section it does not use, neither builds rge's corpus nor reads its index", async () => {
    const module = join(dir, 'with-corpus.ts');
    await scriptedModule(module, await answersOver(index, (q) => ({ company: q.companies[0] as string })));
    const corpus = join(dir, 'never-built');
    const config = await systemsOnlyConfig(
      'with-corpus',
      module,
      {
        corpus: {
          generated_from: join(ROOT, 'fixtures/facts.json'),
          pdfs: join(corpus, 'pdfs'),
          index: join(corpus, 'index'),
          embedder: 'bm25',
        },
      },
      'subject_prompt',
    );
    const logs: string[] = [];
    const run = await openTestRun({
      config,
      resultsDir: join(dir, 'results-with-corpus'),
      cases: CASES,
      runs: 1,
      root: process.cwd(),
      log: (line) => logs.push(line),
    });
    const { state } = await runStages(run, { log: quiet });
    expect(state.counts.answers.computed).toBe(3);
    expect(run.index).toBeNull();
    expect(existsSync(corpus)).toBe(false);
    expect(logs.filter((l) => /building|rebuilding/.test(l))).toEqual([]);
    // the estimate counts its cells without an index: every one stored now
    const { estimateRun } = await import('../../src/run/estimate/estimate.ts');
    const estimate = await estimateRun(run);
    expect(estimate.cells).toMatchObject({ total: 3, stored: 3 });
    expect(estimate.assumptions.contextBounded).toBe(false);
  }, 600_000);
});
