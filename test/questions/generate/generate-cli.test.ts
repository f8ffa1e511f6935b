/**
 * `rge questions generate` through the real CLI entry, in process (issue 55): the offline generator on
 * the Markdown, HTML and text documents of fixtures/documents writes a set `rge questions validate`
 * passes, across the documents and the categories, labelled a seed set; the French document's tasks are
 * problems of the report; the same command twice writes the same bytes. Bad input is a message naming
 * the file, the flag or the candidate, a non-zero exit and no questions file. A model generator runs
 * end to end against the OpenAI loopback server: a dry run asks nothing, a rerun reuses every cell, a
 * model replying prose leaves no questions file, and a cap below one call is refused before sending.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { main } from '../../../src/cli/main.ts';
import type { Chunk } from '../../../src/corpus/schema.ts';
import { ingestSourceFolder } from '../../../src/ingest/source-folder.ts';
import { OfflineGenerator, OUT_OF_DOMAIN_TOPICS } from '../../../src/questions/generate/offline.ts';
import type { GenerationReport } from '../../../src/questions/generate/report.ts';
import { loadIndexChunks } from '../../../src/questions/load.ts';
import type { QuestionCategory, QuestionInput } from '../../../src/questions/schema.ts';
import { runRge } from '../../helpers/cli.ts';
import { scratchDirs } from '../../helpers/scratch.ts';
import {
  type LoopbackCall,
  type LoopbackReply,
  type LoopbackServer,
  startOpenAIServer,
} from '../../loopback/index.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCUMENTS = join(ROOT, 'fixtures/documents');
const FRENCH = 'fr/guide-de-demarrage.md';
const scratch = scratchDirs('rge-generate-cli-');

/** `rge questions generate ...` in `cwd` (lexical near-duplicates: no embedder to load). */
const generate = (cwd: string, ...args: string[]) =>
  runRge(cwd, 'questions', 'generate', '--similarity', 'lexical', ...args);

/** What a generation wrote beside `out` (null for a file it did not write). */
async function outputs(out: string) {
  const stem = out.replace(/\.jsonl$/, '');
  const read = async (p: string) => (existsSync(p) ? await readFile(p, 'utf8') : null);
  const questions = await read(out);
  const reportJson = await read(`${stem}.report.json`);
  const rejected = await read(`${stem}.rejected.jsonl`);
  return {
    questionsText: questions,
    questions: (questions ?? '')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as QuestionInput),
    report: reportJson === null ? null : (JSON.parse(reportJson) as GenerationReport),
    reportMd: await read(`${stem}.report.md`),
    rejectedText: rejected,
    rejected: (rejected ?? '')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { candidate: string; reason: string; message: string }),
  };
}

/** A folder of documents under the scratch space: each file's name and text. */
async function folder(files: Record<string, string | Buffer>): Promise<string> {
  const dir = scratch();
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

describe('the offline generator on fixtures/documents', () => {
  let cwd: string;
  let run: Awaited<ReturnType<typeof generate>>;
  let out: Awaited<ReturnType<typeof outputs>>;

  beforeAll(async () => {
    cwd = scratch();
    await mkdir(cwd, { recursive: true });
    run = await generate(cwd, '--documents', DOCUMENTS, '--out', 'a/q.jsonl', '--count', '20');
    out = await outputs(join(cwd, 'a/q.jsonl'));
  });

  it('writes a set that `rge questions validate` passes against the index it built', async () => {
    expect(run.err).not.toMatch(
      /^rge: (?!warning|\d+ document|generated|.*offline generator writes English)/m,
    );
    expect(run.code).toBe(0);
    expect(run.out).toContain(`wrote ${out.questions.length} question(s) to a/q.jsonl`);
    expect(out.questions).toHaveLength(20);
    const validate = await runRge(
      cwd,
      'questions',
      'validate',
      '--questions',
      'a/q.jsonl',
      '--index',
      'a/q.index',
    );
    expect(validate.code).toBe(0);
    expect(validate.out).toContain('valid 20, invalid 0, total 20');
  });

  it('covers at least 4 documents and every category, each question a seed set awaiting review', () => {
    const documents = new Set(
      out.questions.flatMap((q) => (q.gold_quote_locations ?? []).map((l) => l.document)),
    );
    expect(documents.size).toBeGreaterThanOrEqual(4);
    expect(documents.has(FRENCH)).toBe(false);
    expect(new Set(out.questions.map((q) => q.category))).toEqual(
      new Set<QuestionCategory>(['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain']),
    );
    for (const q of out.questions) {
      expect(q.provenance?.seed_set).toBe(true);
      expect(q.provenance?.review).toBe('unreviewed');
      expect(q.provenance?.generator.id).toBe('offline/extractive');
    }
  });

  it("names the French document's tasks as problems (the offline generator writes English only)", () => {
    const report = out.report as GenerationReport;
    expect(report.problems.length).toBeGreaterThan(0);
    for (const p of report.problems) {
      expect(p.task).toContain(`:${FRENCH}:`);
      expect(p.message).toBe(
        `the offline generator writes English questions; ${FRENCH} is in fr (use a model generator)`,
      );
      expect(run.err).toContain(`rge: ${p.task}: ${p.message}\n`);
      expect(out.reportMd).toContain(`- ${p.task}: ${p.message}`);
    }
    // every category has a task over the French document, and none of them gave a candidate
    expect(new Set(report.problems.map((p) => p.task.split(':')[0]))).toEqual(
      new Set(['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain']),
    );
    const row = report.byDocument[FRENCH];
    expect(row).toEqual({
      'grounded-direct': 0,
      'grounded-multihop': 0,
      adversarial: 0,
      'out-of-domain': 0,
      rejected: 0,
    });
    expect(report.warnings.join('\n')).toContain('the documents are in 2 languages (en, fr)');
  });

  it("the report's counts add up: kept + rejected = candidates + exact copies", () => {
    const report = out.report as GenerationReport;
    const copies = out.rejected.filter((r) => r.message.startsWith('an exact copy of ')).length;
    expect(report.kept).toBe(out.questions.length);
    expect(report.rejected).toBe(out.rejected.length);
    expect(report.kept + report.rejected).toBe(report.candidates + copies);
    expect(Object.values(report.byReason).reduce((a, b) => a + (b ?? 0), 0)).toBe(report.rejected);
    const byCategory = Object.values(report.byCategory);
    expect(byCategory.reduce((a, c) => a + c.kept, 0)).toBe(report.kept);
    const keptByDocument = Object.values(report.byDocument).reduce(
      (a, row) =>
        a + row['grounded-direct'] + row['grounded-multihop'] + row.adversarial + row['out-of-domain'],
      0,
    );
    expect(keptByDocument).toBe(report.kept);
    expect(run.out).toContain(
      `candidates ${report.candidates}, kept ${report.kept}, rejected ${report.rejected}`,
    );
  });

  it('the same command twice writes the same bytes (the report differs only in its time)', async () => {
    const again = await generate(cwd, '--documents', DOCUMENTS, '--out', 'b/q.jsonl', '--count', '20');
    expect(again.code).toBe(0);
    const second = await outputs(join(cwd, 'b/q.jsonl'));
    expect(second.questionsText).toBe(out.questionsText);
    expect(second.rejectedText).toBe(out.rejectedText);
    expect({ ...second.report, seconds: 0 }).toEqual({ ...out.report, seconds: 0 });
    const md = (t: string | null) => t?.replace(/time [\d.]+ s/, 'time - s');
    expect(md(second.reportMd)).toBe(md(out.reportMd));
  });
});

describe('bad input: a message naming what is wrong, a non-zero exit, no questions file', () => {
  it('a folder with no readable document (an empty .md and a .docx) names the folder and each file', async () => {
    const dir = await folder({ 'empty.md': '', 'notes.docx': 'PK\u0003\u0004 not really a docx' });
    const cwd = scratch();
    const r = await generate(ROOT, '--documents', dir, '--out', join(cwd, 'q.jsonl'));
    expect(r.code).toBe(1);
    expect(r.err).toContain(`rge: ${dir}: no readable document`);
    expect(r.err).toContain('empty.md: empty file');
    expect(r.err).toContain('notes.docx: skipped: not a kind rge reads');
    expect(existsSync(join(cwd, 'q.jsonl'))).toBe(false);
  });

  it('a folder with one document works, with the one-document warning', async () => {
    const dir = scratch();
    await mkdir(dir, { recursive: true });
    await copyFile(join(DOCUMENTS, 'api-limits.md'), join(dir, 'api-limits.md'));
    const r = await generate(dir, '--documents', '.', '--out', 'out/q.jsonl', '--count', '8');
    expect(r.code).toBe(0);
    const warning = 'one document: coverage across documents cannot be shown';
    expect(r.err).toContain(`rge: warning: ${warning}`);
    const out = await outputs(join(dir, 'out/q.jsonl'));
    expect(out.questions.length).toBeGreaterThan(0);
    expect(out.report?.warnings).toContain(warning);
    expect(out.reportMd).toContain(`**warning**: ${warning}`);
  });

  it('--documents and --index both, or neither: a usage error', async () => {
    const cwd = scratch();
    const either =
      'rge: generate from a documents folder (--documents DIR) or a built index (--index DIR): one of them\n';
    for (const args of [['--documents', DOCUMENTS, '--index', DOCUMENTS], []]) {
      const r = await generate(ROOT, ...args, '--out', join(cwd, 'q.jsonl'));
      expect(r.code).toBe(2);
      expect(r.err).toBe(either);
    }
    expect(existsSync(cwd)).toBe(false);
  });

  it('--mix with a name it does not know, and --max-share above 1: usage errors naming the value', async () => {
    const cwd = scratch();
    const mix = await generate(
      ROOT,
      '--documents',
      DOCUMENTS,
      '--out',
      join(cwd, 'q.jsonl'),
      '--mix',
      'trivia=3',
    );
    expect(mix.code).toBe(2);
    expect(mix.err).toMatch(/^rge: --mix: "trivia=3" is not NAME=WEIGHT with NAME one of direct, multihop/);
    const share = await generate(
      ROOT,
      '--documents',
      DOCUMENTS,
      '--out',
      join(cwd, 'q.jsonl'),
      '--max-share',
      '2',
    );
    expect(share.code).toBe(2);
    expect(share.err).toBe('rge: --max-share must be a number in (0, 1], got 2\n');
    expect(existsSync(cwd)).toBe(false);
  });

  it('a model --generator without --config, and --dry-run of the offline generator: usage errors, nothing built', async () => {
    const cwd = scratch();
    const model = await generate(
      ROOT,
      '--documents',
      DOCUMENTS,
      '--out',
      join(cwd, 'q.jsonl'),
      '--generator',
      'gpt',
    );
    expect(model.code).toBe(2);
    expect(model.err).toBe(
      'rge: --generator gpt is a model id: pass --config FILE, whose subjects or judges name it\n',
    );
    const dry = await generate(ROOT, '--documents', DOCUMENTS, '--out', join(cwd, 'q.jsonl'), '--dry-run');
    expect(dry.code).toBe(2);
    expect(dry.err).toBe(
      'rge: --dry-run estimates a model generator: pass --generator MODEL_ID --config FILE\n',
    );
    // refused before the documents are read: no index built beside the questions
    expect(existsSync(cwd)).toBe(false);
  });

  it('a document with no figure and no definition, --mix direct=1: nothing kept, no questions file', async () => {
    const dir = await folder({
      'notes.md':
        '# Notes\n\nThe team meets on Tuesdays to talk about the roadmap and plans for the garden party.\n' +
        'Everyone is welcome to bring ideas and snacks.\n',
    });
    const r = await generate(
      dir,
      '--documents',
      '.',
      '--out',
      'q.jsonl',
      '--mix',
      'direct=1',
      '--count',
      '2',
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain('rge: no question kept of 0 candidate(s) from 1 task(s): rejected none');
    expect(r.err).toContain('no questions file written (see q.report.md)');
    expect(existsSync(join(dir, 'q.jsonl'))).toBe(false);
    const out = await outputs(join(dir, 'q.jsonl'));
    expect(out.report).toMatchObject({ tasks: 1, candidates: 0, kept: 0, rejected: 0 });
    expect(out.reportMd).not.toBeNull();
    expect(out.rejectedText).toBe('');
  });

  it('every candidate rejected: the message gives the counts by reason, each rejection names its candidate', async () => {
    // a document that mentions every topic the offline generator asks out-of-domain questions about
    const topics = OUT_OF_DOMAIN_TOPICS.map((t) => t.replace(/^(?:an?|the|its)\s+/i, ''));
    const dir = await folder({
      'odd-ventures.md': `# Odd ventures\n\n${topics.map((t) => `The board discussed the ${t} at length.`).join('\n\n')}\n`,
    });
    const r = await generate(dir, '--documents', '.', '--out', 'q.jsonl', '--mix', 'ood=1', '--count', '2');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^rge: no question kept of 3 candidate\(s\) from 1 task\(s\): rejected out-of-domain-answerable 3; no questions file written/m,
    );
    expect(existsSync(join(dir, 'q.jsonl'))).toBe(false);
    const out = await outputs(join(dir, 'q.jsonl'));
    expect(out.report).toMatchObject({
      candidates: 3,
      kept: 0,
      rejected: 3,
      byReason: { 'out-of-domain-answerable': 3 },
    });
    expect(out.rejected).toHaveLength(3);
    for (const x of out.rejected) {
      expect(x.candidate).toMatch(/^cand-[0-9a-f]{12}$/);
      expect(x.message).toMatch(/^bm25 retrieves odd-ventures-FYNA-[0-9a-f]{8}, which holds "/);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// A model generator through the CLI, against the OpenAI loopback server

const KEY = 'sk-generate-cli-0123456789';
const ENGLISH = ['api-limits.md', 'billing-and-plans.md', 'getting-started.md', 'security.md'];

/** `rge questions generate ...` with `env` as the environment (the key), stdout and stderr apart. */
async function generateWith(cwd: string, env: Record<string, string>, ...args: string[]) {
  const io = {
    stdout: '',
    stderr: '',
    cwd,
    exitCode: 0,
    env,
    out: (t: string) => {
      io.stdout += t;
    },
    err: (t: string) => {
      io.stderr += t;
    },
  };
  const code = await main(['node', 'rge', 'questions', 'generate', '--similarity', 'lexical', ...args], io);
  return { code, out: io.stdout, err: io.stderr };
}

/**
 * A model that writes what the offline generator writes for the chunks a request shows, in the wire
 * schema: its candidates quote the documents verbatim, so verification keeps them.
 */
function offlineModel(chunks: ReadonlyMap<string, Chunk>) {
  const offline = new OfflineGenerator('a-model');
  return async (call: LoopbackCall): Promise<LoopbackReply> => {
    const text = call.messages.map((m) => m.text).join('\n');
    const asked = /Write (\d+) candidate question\(s\) of the category ([a-z-]+)\./.exec(text);
    if (!asked) return { text: 'I can only write questions.' };
    const shown = [...text.matchAll(/<chunk id="([^"]+)"/g)].map((m) => chunks.get(m[1] as string) as Chunk);
    const [outcome] = await offline.generate([
      {
        id: 'task',
        category: asked[2] as QuestionCategory,
        document: shown[0]?.source as string,
        chunks: shown,
        count: Number(asked[1]),
        language: 'en',
      },
    ]);
    const candidates = (outcome?.candidates ?? []).map(({ body }) => ({
      ...body,
      numeric_gold: body.numeric_gold.map((g) => ({
        ...g,
        derivation: g.derivation ?? { op: 'none', operands: [] },
      })),
      false_premise: body.false_premise ?? '',
      distractor_kind: body.distractor_kind ?? 'none',
      absent_terms: body.absent_terms ?? [],
    }));
    return { text: JSON.stringify({ candidates }) };
  };
}

describe('a model generator through the CLI (the OpenAI loopback server)', () => {
  const servers: LoopbackServer[] = [];
  let cwd: string;
  let chunks: Map<string, Chunk>;
  const env = { OPENAI_API_KEY: KEY };

  /** A config of the fixture's with a judge `gpt-gen` of openai at `url`, the key's provider pointed at `url`. */
  async function config(name: string, url: string): Promise<string> {
    const c = parse(await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8')) as Record<string, unknown>;
    c.judges = [
      ...(c.judges as unknown[]),
      { id: 'gpt-gen', provider: 'openai', model: 'gpt-5.4', family: 'openai', temperature: 0 },
    ];
    c.budget = { cap_usd: 5, warn_usd: 1 };
    c.providers = {
      openai: { base_url: url, rpm: null, min_backoff_ms: 5, max_backoff_ms: 20, concurrency: 4 },
    };
    await writeFile(join(cwd, name), stringify(c));
    return name;
  }

  async function server(respond: (call: LoopbackCall) => LoopbackReply | Promise<LoopbackReply>) {
    const s = await startOpenAIServer({ apiKey: KEY, respond });
    servers.push(s);
    return s;
  }

  const posts = (s: LoopbackServer) => s.requests.filter((r) => r.method === 'POST').length;

  beforeAll(async () => {
    cwd = scratch();
    await mkdir(join(cwd, 'docs'), { recursive: true });
    for (const name of ENGLISH) await copyFile(join(DOCUMENTS, name), join(cwd, 'docs', name));
    await ingestSourceFolder(join(cwd, 'docs'), {
      indexDir: join(cwd, 'probe.index'),
      embedder: 'bm25',
      cacheDir: join(cwd, '.cache/rge'),
    });
    chunks = new Map((await loadIndexChunks(join(cwd, 'probe.index'))).map((c) => [c.id, c]));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  const common = ['--documents', 'docs', '--generator', 'gpt-gen', '--count', '8'];

  it('a dry run prints the estimate and asks nothing; a run writes questions; a rerun asks nothing and writes the same', async () => {
    const s = await server(offlineModel(chunks));
    const file = await config('live.yaml', s.url);
    const dry = await generateWith(
      cwd,
      env,
      ...common,
      '--config',
      file,
      '--out',
      'dry/q.jsonl',
      '--dry-run',
    );
    expect(dry.err).toBe(`rge: 4 document(s), ${chunks.size} chunks indexed in dry/q.index\n`);
    expect(dry.code).toBe(0);
    const estimate =
      /^dry run: (\d+) task\(s\), (\d+) call\(s\) to openai\/gpt-5\.4: about \d+ input and \d+ output tokens, \$([\d.]+) expected, \$([\d.]+) at worst \(the cap holds the worst case\); nothing called\n$/.exec(
        dry.out,
      );
    expect(estimate).not.toBeNull();
    expect(Number(estimate?.[2])).toBe(Number(estimate?.[1]));
    expect(Number(estimate?.[3])).toBeGreaterThan(0);
    expect(s.requests).toHaveLength(0);
    expect(existsSync(join(cwd, 'dry/q.jsonl'))).toBe(false);

    const first = await generateWith(cwd, env, ...common, '--config', file, '--out', 'one/q.jsonl');
    expect(first.code).toBe(0);
    const one = await outputs(join(cwd, 'one/q.jsonl'));
    expect(one.questions.length).toBeGreaterThan(0);
    expect(one.questions.every((q) => q.provenance?.generator.id === 'openai/gpt-5.4')).toBe(true);
    expect(one.questions.every((q) => q.provenance?.seed_set === false)).toBe(true);
    expect(one.report?.tasks).toBe(Number(estimate?.[1]));
    expect(s.calls).toHaveLength(one.report?.tasks as number);
    expect(one.report?.costUsd).toBeGreaterThan(0);
    const validate = await runRge(
      cwd,
      'questions',
      'validate',
      '--questions',
      'one/q.jsonl',
      '--index',
      'one/q.index',
    );
    expect(validate.code).toBe(0);

    const asked = s.calls.length;
    const second = await generateWith(cwd, env, ...common, '--config', file, '--out', 'two/q.jsonl');
    expect(second.code).toBe(0);
    expect(s.calls).toHaveLength(asked);
    const two = await outputs(join(cwd, 'two/q.jsonl'));
    expect(two.report).toMatchObject({ reusedTasks: one.report?.tasks, costUsd: 0 });
    expect(two.questionsText).toBe(one.questionsText);
    // a dry run after the run: every cell is stored, so nothing is left to pay for
    const after = await generateWith(
      cwd,
      env,
      ...common,
      '--config',
      file,
      '--out',
      'dry2/q.jsonl',
      '--dry-run',
    );
    expect(after.out).toMatch(
      /^dry run: \d+ task\(s\), 0 call\(s\) to openai\/gpt-5\.4: .*\$0\.0000 expected, \$0\.0000 at worst/,
    );
    expect(s.calls).toHaveLength(asked);
  });

  it('a model replying prose to every request: no questions file, a non-zero exit, each task a problem', async () => {
    const s = await server(() => ({ text: 'Here are some wonderful questions about your documents!' }));
    const file = await config('prose.yaml', s.url);
    const r = await generateWith(
      cwd,
      env,
      ...common,
      '--config',
      file,
      '--out',
      'prose/q.jsonl',
      '--results-dir',
      'prose-results',
    );
    expect(r.code).toBe(1);
    expect(existsSync(join(cwd, 'prose/q.jsonl'))).toBe(false);
    const out = await outputs(join(cwd, 'prose/q.jsonl'));
    const report = out.report as GenerationReport;
    expect(report.tasks).toBeGreaterThan(0);
    expect(report.problems).toHaveLength(report.tasks);
    expect(new Set(report.problems.map((p) => p.task)).size).toBe(report.tasks);
    for (const p of report.problems) {
      expect(p.message).toMatch(/^prose: the reply is prose, not JSON: "Here are some wonderful/);
      expect(r.err).toContain(`rge: ${p.task}: ${p.message}\n`);
    }
    expect(s.calls).toHaveLength(report.tasks);
    expect(r.err).toContain(
      `rge: no question kept of 0 candidate(s) from ${report.tasks} task(s): rejected none; ${report.tasks} task(s) without candidates`,
    );
  });

  it('--judge: the offline set confirmed by a judge of another family; one it doubts is rejected with its reason; a rerun asks nothing', async () => {
    let doubted = '';
    const s = await server((call) => {
      const text = call.messages.map((m) => m.text).join('\n');
      const question = /Question: (.+)/.exec(text)?.[1] ?? '';
      // the judge doubts the first question it is asked about, confirms the others
      if (doubted === '' || question === doubted) {
        doubted = question;
        return {
          text: JSON.stringify({
            answerable: false,
            unambiguous: true,
            answer_correct: true,
            reason: 'the quotes do not name the plan',
          }),
        };
      }
      return {
        text: JSON.stringify({ answerable: true, unambiguous: true, answer_correct: true, reason: 'ok' }),
      };
    });
    const file = await config('judged.yaml', s.url);
    const args = [
      '--documents',
      'docs',
      '--count',
      '8',
      '--config',
      file,
      '--judge',
      'gpt-gen',
      '--results-dir',
      'judged-results',
    ];
    const r = await generateWith(cwd, env, ...args, '--out', 'judged/q.jsonl');
    expect(r.code).toBe(0);
    const asked = posts(s);
    const { questions, rejected } = await outputs(join(cwd, 'judged/q.jsonl'));
    expect(questions.length).toBeGreaterThan(0);
    expect(questions.every((q) => q.provenance?.checks.at(-1) === 'judge')).toBe(true);
    const judged = rejected.filter((x) => x.reason === 'judge-rejected');
    expect(judged).toHaveLength(1);
    expect(judged[0]?.message).toMatch(/openai\/gpt-5\.4: not answerable: the quotes do not name the plan/);
    expect(asked).toBe(questions.length + 1);
    // a rerun asks the judge nothing and keeps the same questions
    const again = await generateWith(cwd, env, ...args, '--out', 'judged2/q.jsonl');
    expect(again.code).toBe(0);
    expect(posts(s)).toBe(asked);
    expect(await readFile(join(cwd, 'judged2/q.jsonl'), 'utf8')).toBe(
      await readFile(join(cwd, 'judged/q.jsonl'), 'utf8'),
    );
    // a judge of the generator's family is refused
    const same = await generateWith(
      cwd,
      env,
      '--documents',
      'docs',
      '--generator',
      'gpt-gen',
      '--judge',
      'gpt-gen',
      '--config',
      file,
      '--out',
      'same/q.jsonl',
    );
    expect(same.code).toBe(2);
    expect(same.err).toMatch(/--judge gpt-gen is of the openai family, like the generator/);
  });

  it('a --cap-usd below the worst case of one call is refused before anything is sent', async () => {
    const s = await server(offlineModel(chunks));
    const file = await config('capped.yaml', s.url);
    const r = await generateWith(
      cwd,
      env,
      ...common,
      '--config',
      file,
      '--out',
      'capped/q.jsonl',
      '--results-dir',
      'capped-results',
      '--cap-usd',
      '0.0001',
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /rge: the cap \$0\.0001 is below the worst case of one generation call \(\$[\d.]+, openai\/gpt-5\.4: .*raise budget\.cap_usd or --cap-usd/,
    );
    expect(posts(s)).toBe(0);
    expect(existsSync(join(cwd, 'capped/q.jsonl'))).toBe(false);
  });
});
