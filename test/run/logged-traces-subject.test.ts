/**
 * Logged traces as a subject of `rge eval run` (issue 56, `provider: logged-traces`): a config whose
 * subject is a window of logged cases, its questions written from them (`rge traces questions`), runs
 * with the fixture config's offline heuristic judges: every case judged, nothing called, each answer
 * judged against its own logged contexts, and correctness judged only where the logged question matches
 * a golden question (null, not 0, otherwise).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { Question } from '../../src/questions/schema.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import { type CaseRow, caseRow } from '../../src/run/case/case.ts';
import { parseRunConfig } from '../../src/run/config/config.ts';
import type { RunSession } from '../../src/run/session/open.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import type { TraceCase } from '../../src/traces/case.ts';
import { sha256File } from '../../src/util/fs.ts';
import { openTestRun } from '../helpers/open-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const quiet = () => {};

/** A logged case in rge's case shape, its answer citing its one context. */
function logged(traceId: string, question: string, answer: string, context: string): TraceCase {
  return {
    trace_id: traceId,
    question,
    answer: {
      answer,
      contexts: [{ id: 'c1', text: context, source: 'handbook.pdf', page: 3 }],
      latency_ms: 812,
      cost_usd: 0.0042,
      model: 'app-model-7',
    },
    started_at: '2026-12-01T09:00:00Z',
    fields: { route: 'support' },
    origin: { file: 'spans.jsonl', line: 1, format: 'contract' },
  };
}

const CASES: TraceCase[] = [
  // the golden set's gd-001, asked word for word: its gold applies
  logged(
    'a1f3',
    "Who were HDFC Bank Limited's statutory auditors for FY23?",
    'Varma Iyer & Associates LLP were the statutory auditors for FY23 [c1].',
    'Varma Iyer & Associates LLP are the statutory auditors of the Company for FY23.',
  ),
  // no golden question: answered from its contexts
  logged(
    'b2e4',
    'Which colour of widgets does the Pune plant of Zenloop make?',
    'The Pune plant of Zenloop makes blue widgets for export [c1].',
    'The Pune plant of Zenloop makes blue widgets for export to twelve countries.',
  ),
  // no golden question: an answer its contexts do not support
  logged(
    'c3d5',
    'How many people does Zenloop employ at its Pune plant?',
    'Zenloop employs 4,200 people at its Pune plant, mostly engineers [c1].',
    'The board of directors met four times during the year under review.',
  ),
];

async function rge(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const io: CliIO = { out: (t) => out.push(t), err: (t) => out.push(t), cwd, exitCode: 0 };
  const code = await main(['node', 'rge', ...args], io);
  return { code, out: out.join('') };
}

/** A config in `dir` with the fixture config's judges and one logged-traces subject; no corpus of rge's. */
async function loggedConfig(dir: string): Promise<string> {
  const doc = parseDocument(await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8'));
  doc.delete('corpus');
  doc.set('questions', { file: 'questions.jsonl', version: 1 });
  doc.set('subjects', [
    {
      id: 'prod-week-49',
      provider: 'logged-traces',
      cases: 'cases.jsonl',
      model: 'my-app',
      family: 'my-app',
    },
  ]);
  doc.set('subject_prompt', { file: join(ROOT, 'prompts/subject.md') });
  doc.set('runs', 1);
  const config = join(dir, 'config.yaml');
  await writeFile(config, doc.toString());
  return config;
}

describe('logged traces as a subject of rge eval run', () => {
  let dir: string;
  let config: string;
  let run: RunSession;
  let rows: CaseRow[];
  let counts: Awaited<ReturnType<typeof runStages>>['state']['counts'];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-logged-traces-'));
    await writeFile(join(dir, 'cases.jsonl'), CASES.map((c) => `${JSON.stringify(c)}\n`).join(''));
    const written = await rge(
      [
        'traces',
        'questions',
        '--cases',
        'cases.jsonl',
        '--out',
        'questions.jsonl',
        '--golden',
        join(ROOT, 'fixtures/questions.jsonl'),
      ],
      dir,
    );
    expect(written.code, written.out).toBe(0);
    config = await loggedConfig(dir);
    run = await openTestRun({ config, resultsDir: join(dir, 'results'), root: ROOT, log: quiet });
    counts = (await runStages(run, { log: quiet })).state.counts;
    rows = (await run.work.cells()).map((c) => caseRow(run, c));
  }, 300_000);

  it('writes one question a case, with gold only where a golden question matched', async () => {
    const lines = (await readFile(join(dir, 'questions.jsonl'), 'utf8')).trim().split('\n');
    const questions = lines.map((l) => Question.parse(JSON.parse(l)));
    expect(questions.map((q) => q.id)).toEqual(['trace-00001', 'trace-00002', 'trace-00003']);
    expect(questions.map((q) => q.source)).toEqual(
      CASES.map((c) => ({ dataset: 'logged', ref: c.trace_id })),
    );
    expect(questions[0]?.gold_answer).toBe('Varma Iyer & Associates LLP');
    expect(questions[0]?.authoring_notes).toMatch(/logged trace a1f3 .*gold of golden question gd-001/);
    expect(questions.slice(1).map((q) => q.gold_answer)).toEqual(['', '']);
  });

  it('judges every case with no call: the logged answers and contexts, nothing spent', () => {
    expect(run.plan.subjects[0]?.kind).toBe('system');
    expect(rows).toHaveLength(3);
    expect(counts.answers).toEqual({ computed: 3, reused: 0, failed: 0 });
    for (const [i, row] of rows.entries()) {
      const c = CASES[i] as TraceCase;
      expect(row.answer).toBe(c.answer.answer);
      expect(row.retrieved_ids).toEqual(['c1']);
      expect(row.latency_ms).toBe(812);
      // the application's logged cost is its own: the run spends nothing
      expect(row.cost_usd).toBe(0);
      expect(row.verdicts).toHaveLength(2);
      expect(row.scores.unscored).toBe(false);
    }
  });

  it("judges grounding against each case's own contexts: high where they support the answer, low where not", () => {
    const [, supported, unsupported] = rows.map((r) => r.scores.grounding as number);
    expect(supported).toBeGreaterThanOrEqual(1.5);
    expect(unsupported).toBeLessThanOrEqual(0.5);
  });

  it('judges correctness only with a golden match: absent (null, not 0) otherwise, and the GFS with it', () => {
    const [matched, ...unmatched] = rows;
    expect(matched?.scores.correctness).toEqual(expect.any(Number));
    expect(matched?.scores.gfsPrimary).toEqual(expect.any(Number));
    for (const row of unmatched) {
      expect(row.scores.correctness).toBeNull();
      expect(row.scores.gfsPrimary).toBeNull();
      expect(row.scores.calibration).toEqual(expect.any(Number));
    }
    const md = renderMarkdown(
      summarise(rows, { seed: 's', resamples: 10, run: run.plan.info, describe: run.plan.info.describe }),
    );
    // the report's GFS is over the cases that have one: trace-00001's alone, not diluted by zeros
    expect(md).toMatch(/\*\*prod-week-49\*\* ranks first, GFS 1\.000/);
    expect(md).toContain(
      'Gold answer: none (a logged trace no golden question matched: correctness not judged)',
    );
    expect(md).toMatch(/\| trace-00003 \| prod-week-49 \| 0 \| [^|]* \| n\/a \/ 0 \//);
  });

  it("asks an unchanged window nothing again; a new import is a new answer (its version the cases file's sha256)", async () => {
    expect(run.plan.subjects[0]?.identity.version).toBe(await sha256File(join(dir, 'cases.jsonl')));
    const again = await openTestRun({ config, resultsDir: join(dir, 'results'), root: ROOT, log: quiet });
    expect((await runStages(again, { log: quiet })).state.counts.answers).toMatchObject({
      computed: 0,
      reused: 3,
    });
    const changed = CASES.map((c) => ({
      ...c,
      answer: { ...c.answer, answer: `${c.answer.answer} Indeed.` },
    }));
    await writeFile(join(dir, 'cases.jsonl'), changed.map((c) => `${JSON.stringify(c)}\n`).join(''));
    const reimported = await openTestRun({
      config,
      resultsDir: join(dir, 'results'),
      root: ROOT,
      log: quiet,
    });
    expect((await runStages(reimported, { log: quiet })).state.counts.answers.computed).toBe(3);
  });

  it('is an error naming the case when the questions are not those of the cases', async () => {
    await writeFile(join(dir, 'cases.jsonl'), `${JSON.stringify(CASES[1])}\n`);
    const other = await openTestRun({
      config,
      resultsDir: join(dir, 'results-other'),
      root: ROOT,
      log: quiet,
    });
    const { state } = await runStages(other, { log: quiet });
    expect(Object.values(state.errors).join('\n')).toMatch(
      /trace-00001: the question asked is not the one logged/,
    );
  });

  it('is refused without its cases, and with a version of its own or a field of another way in', async () => {
    const text = await readFile(config, 'utf8');
    const entry = '    cases: cases.jsonl\n';
    expect(text).toContain(entry);
    const refused = (t: string) => () => parseRunConfig(t, config, [], ROOT);
    expect(refused(text.replace(entry, ''))).toThrow(
      /subjects\[0\]\.cases: required when provider is logged-traces/,
    );
    expect(refused(text.replace(entry, `${entry}    version: v2\n`))).toThrow(
      /subjects\[0\]\.version: a logged-traces subject is asked nothing and its version is its cases file's sha256/,
    );
    expect(refused(text.replace(entry, `${entry}    module: app.ts\n`))).toThrow(
      /only a module subject takes module/,
    );
  });
});
