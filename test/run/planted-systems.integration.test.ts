/**
 * Planted systems checked from outside (issue 51): four RAG applications whose right verdicts are known
 * in advance (test/run/system-fixtures/planted-system.mjs), reached only through the documented
 * contract, in a config of systems only that lives in its own folder (paths relative to it), run by
 * `rge eval run` in a child process over 40 questions (10 per category) x 2 runs:
 *
 * - `faithful` (a process per question): the gold answer over exactly the gold quotes;
 * - `wrong` (a JSON Lines pool), under the same `model` label and declared version as `faithful`: the
 *   same answers over another company's gold quotes;
 * - `crashy` (HTTP): `faithful`, but every 7th question is a 500 however often it is asked, and every
 *   5th question's first attempt a 503 with `retry-after: 1`;
 * - `refuser` (a pool): declines everything over the gold quotes.
 *
 * The verdicts: `faithful` has evidence recall 1 in every answerable category (multihop included) and
 * no failure; `wrong` recall 0 and its failing cases are retrieval misses; the two share a label and
 * still each answer their own 80 cells; `crashy`'s 10 failed cells score 0, so it ranks below
 * `faithful`, and the first screen shows them; `faithful - wrong` is a significant GFS difference; the
 * refuser is right only out of domain; retry-after is obeyed; a rerun asks only the failed cells.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type LoopbackServer, startLoopbackServer, withBody } from '../helpers/http-server.ts';
import { fixtureQuestionsPerCategory } from '../helpers/open-run.ts';
import { scratchDirs } from '../helpers/scratch.ts';
// @ts-expect-error: a plain ES module of the planted systems, without types
import { plantedReply, readQuestions } from './system-fixtures/planted-system.mjs';
import { onlyRunId, type RgeOutcome, ROOT, startRge, storedRecords, wholeLines } from './system-runs.ts';

const PLANTED = join(ROOT, 'test/run/system-fixtures/planted-system.mjs');
const RUNS = 2;
const freshDir = scratchDirs('rge-planted-systems-');

interface Question {
  id: string;
  category: string;
}
interface Cell {
  difference: number;
  pBonferroni: number;
}
interface Summary {
  ranking: { primary: string[] };
  outcomes: Record<string, { failed: number; unscored: number; answered: number }>;
  evidence: {
    bySubject: Record<string, Record<string, { meanRecall: number | null; all: number; cases: number }>>;
    failures: Record<string, Record<string, number> & { failing: number }>;
  };
  pairwise: { a: string; b: string; gfs: Cell | null }[];
  gfs: Record<string, Record<string, { primary: { estimate: number } | null }>>;
}

/** The HTTP way in: `crashy`'s behaviour, each request logged with its time. */
function crashyServer(questions: Question[], log: string) {
  const asked = new Map<string, number>();
  return withBody((_req: IncomingMessage, res: ServerResponse, body: string) => {
    const q = JSON.parse(body) as { id: string; run_index: number };
    const key = `${q.id}/${q.run_index}`;
    const attempt = (asked.get(key) ?? 0) + 1;
    asked.set(key, attempt);
    appendFileSync(log, `${key} ${attempt} ${Date.now()}\n`);
    const position = questions.findIndex((x) => x.id === q.id) + 1;
    if (position % 5 === 0 && attempt === 1) {
      res.writeHead(503, { 'retry-after': '1' }).end('warming up');
      return;
    }
    const reply = plantedReply('crash-every-7', q, questions) as Record<string, unknown>;
    if ('exit' in reply) res.writeHead(500).end(String(reply.why));
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
}

describe('planted systems, checked from outside', () => {
  let dir: string;
  let server: LoopbackServer;
  let questions: Question[];
  let args: string[];
  let env: Record<string, string>;
  let first: RgeOutcome;
  let summary: Summary;
  let md: string;
  let logs: { command: string; http: string };

  beforeAll(async () => {
    dir = freshDir();
    const configDir = join(dir, 'app');
    await mkdir(configDir, { recursive: true });
    const ids = new Set(await fixtureQuestionsPerCategory(ROOT, 10));
    const all = readQuestions(join(ROOT, 'fixtures/questions.jsonl')) as (Question &
      Record<string, unknown>)[];
    questions = all.filter((q) => ids.has(q.id));
    await writeFile(
      join(configDir, 'questions.jsonl'),
      `${questions.map((q) => JSON.stringify(q)).join('\n')}\n`,
    );
    logs = { command: join(dir, 'command.log'), http: join(dir, 'http.log') };
    server = await startLoopbackServer();
    server.route('/answer', crashyServer(questions, logs.http));
    const command = (mode: string, pool = false) => ({
      provider: 'command',
      command: ['env', `PLANTED_MODE=${mode}`, process.execPath, PLANTED, ...(pool ? ['--pool'] : [])],
      ...(pool ? { pool: 2 } : {}),
      timeout_ms: 20_000,
    });
    const label = { model: 'our-rag', version: '1' };
    const config = {
      version: 1,
      name: 'planted',
      seed: 'planted-v1',
      questions: { file: 'questions.jsonl', version: 1 },
      subjects: [
        { id: 'faithful', family: 'app-a', ...label, ...command('faithful') },
        { id: 'wrong', family: 'app-b', ...label, ...command('wrong-contexts', true) },
        {
          id: 'crashy',
          family: 'app-c',
          model: 'crashy',
          provider: 'http',
          url: server.url('/answer'),
          max_attempts: 2,
          timeout_ms: 20_000,
        },
        { id: 'refuser', family: 'app-d', model: 'refuser', ...command('refuse', true) },
      ],
      judges: [
        {
          id: 'numeric',
          provider: 'heuristic',
          model: 'numeric',
          family: 'rge-heuristic-numeric',
          temperature: 0,
        },
        {
          id: 'lexical',
          provider: 'heuristic',
          model: 'lexical',
          family: 'rge-heuristic-lexical',
          temperature: 0,
        },
      ],
      runs: RUNS,
      budget: { cap_usd: 0, warn_usd: 0 },
      thresholds: { correctness: null, grounding: null, calibration: null, gfs: null },
      judge_prompt: { version: 'v2', sha256: null, text: null },
      gfs_weights: { grounding: 0.4, correctness: 0.35, calibration: 0.25 },
      latency_budget_ms: 2000,
    };
    await writeFile(join(configDir, 'rge.yaml'), stringify(config));
    args = [
      'eval',
      'run',
      '--config',
      join(configDir, 'rge.yaml'),
      '--results-dir',
      join(dir, 'results'),
      '--reports-dir',
      join(dir, 'reports'),
      '--quiet',
    ];
    env = { PLANTED_QUESTIONS: join(configDir, 'questions.jsonl'), PLANTED_LOG: logs.command };
    first = await startRge(args, env).done;
    if (!existsSync(join(dir, 'results'))) throw new Error(`rge eval run: exit ${first.code}\n${first.err}`);
    const runId = onlyRunId(join(dir, 'results'));
    summary = JSON.parse(readFileSync(join(dir, 'reports', runId, 'summary.json'), 'utf8')) as Summary;
    md = readFileSync(join(dir, 'reports', runId, 'summary.md'), 'utf8');
  }, 900_000);
  afterAll(async () => {
    await server?.close();
  });

  it('runs a config of systems only, from its own folder, to a report; exit 1 for the failed cells', () => {
    expect(first.code, first.err).toBe(1);
    expect(first.err).not.toMatch(/building .*corpus/);
    expect(summary.ranking.primary).toHaveLength(4);
  });

  it('gives the faithful system evidence recall 1 in every answerable category, multihop included', () => {
    const recall = summary.evidence.bySubject.faithful ?? {};
    for (const category of ['grounded-direct', 'grounded-multihop', 'adversarial']) {
      expect(recall[category]?.meanRecall, category).toBe(1);
      expect(recall[category]?.all).toBe(recall[category]?.cases);
    }
    expect(summary.outcomes.faithful?.failed).toBe(0);
    expect(summary.evidence.failures.faithful?.['partial retrieval'] ?? 0).toBe(0);
  });

  it("gives the system answering over another company's passages recall 0: its failures are retrieval misses", () => {
    for (const category of ['grounded-direct', 'grounded-multihop', 'adversarial'])
      expect(summary.evidence.bySubject.wrong?.[category]?.meanRecall, category).toBe(0);
    const failures = summary.evidence.failures.wrong;
    expect(failures?.failing).toBeGreaterThan(0);
    expect(failures?.['retrieval miss']).toBe(failures?.failing);
  });

  it('keeps two systems under one label apart: each asked, and stored, its own 80 cells', () => {
    const asked = wholeLines(logs.command).map((l) => l.split(' ')[0]);
    expect(asked.filter((m) => m === 'faithful')).toHaveLength(questions.length * RUNS);
    expect(asked.filter((m) => m === 'wrong-contexts')).toHaveLength(questions.length * RUNS);
    const answers = storedRecords(join(dir, 'results'), 'answers').get('command__our-rag.jsonl') ?? [];
    expect(new Set(answers.map((a) => a.key)).size).toBe(2 * questions.length * RUNS);
  });

  it("scores the crashing system's failed cells 0: it ranks below the faithful one, and the first screen says so", () => {
    const crashes = questions.filter((_, i) => (i + 1) % 7 === 0).length * RUNS;
    expect(summary.outcomes.crashy?.failed).toBe(crashes);
    const rank = summary.ranking.primary;
    expect(rank.indexOf('faithful')).toBeLessThan(rank.indexOf('crashy'));
    const firstScreen = md.slice(0, md.indexOf('\n## ', md.indexOf('## The answer') + 1));
    expect(firstScreen).toMatch(new RegExp(`\\| crashy \\|[^\\n]*\\| ${crashes} \\|`));
    expect(firstScreen).toMatch(/heuristic/i);
  });

  it('finds faithful minus wrong a significant GFS difference', () => {
    const pair = summary.pairwise.find((p) => [p.a, p.b].sort().join() === 'faithful,wrong');
    const d = pair?.a === 'faithful' ? pair.gfs?.difference : -(pair?.gfs?.difference ?? 0);
    expect(d).toBeGreaterThan(0.3);
    expect(pair?.gfs?.pBonferroni).toBeLessThan(0.05);
  });

  it('finds the refuser right only out of domain', () => {
    const gfs = summary.gfs.refuser ?? {};
    const ood = gfs['out-of-domain']?.primary?.estimate ?? 0;
    for (const category of ['grounded-direct', 'grounded-multihop'])
      expect(gfs[category]?.primary?.estimate ?? 1, category).toBeLessThan(ood);
  });

  it("obeys retry-after: a 503's retry comes at least a second later", () => {
    const lines = wholeLines(logs.http).map((l) => l.split(' '));
    const at = new Map(lines.map(([cell, attempt, ms]) => [`${cell} ${attempt}`, Number(ms)]));
    const retried = questions.filter((_, i) => (i + 1) % 5 === 0 && (i + 1) % 7 !== 0);
    expect(retried.length).toBeGreaterThan(0);
    for (const q of retried)
      for (let run = 0; run < RUNS; run++) {
        const gap = (at.get(`${q.id}/${run} 2`) ?? 0) - (at.get(`${q.id}/${run} 1`) ?? 0);
        expect(gap, `${q.id}/${run}`).toBeGreaterThanOrEqual(1000);
      }
  });

  it('asks only the failed cells again on a rerun', async () => {
    const before = wholeLines(logs.http).length;
    const commandBefore = wholeLines(logs.command).length;
    const again = await startRge(args, env).done;
    expect(again.code, again.err).toBe(1);
    expect(wholeLines(logs.command).length).toBe(commandBefore);
    const asked = wholeLines(logs.http)
      .slice(before)
      .map((l) => l.split(' ')[0]);
    const failedCells = questions
      .filter((_, i) => (i + 1) % 7 === 0)
      .flatMap((q) => Array.from({ length: RUNS }, (_, run) => `${q.id}/${run}`));
    // each failed cell asked again (twice: its two attempts), nothing else
    expect([...new Set(asked)].sort()).toEqual(failedCells.sort());
  }, 900_000);
});
