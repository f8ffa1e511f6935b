/**
 * A system's bad answers, at the level of a whole run: `rge eval run` in a child process over 8
 * questions and three systems that fail some of them, each its own way:
 *
 * - `cmd`, a command (a process per question, the scripted system): exits 3, prints prose, never
 *   answers (timed out), answers a number (off the contract), returns two contexts with one id;
 * - `mod`, a module: throws, never answers (timed out; it ignores the abort signal), returns a context
 *   without its text (off the contract);
 * - `web`, an HTTP endpoint on a loopback server here: 400, 503 (retried, then failed).
 *
 * Each failed cell is stored as failed with its reason (the run state, as the subject's own failure),
 * listed under the report's Errors with it, and, being the subject's failure (no answer), scored 0 in
 * the ranking and the gate's cells (issue 51), its subject's answered-only GFS beside and its count on
 * the first screen; `--json` gives each its subject, question, run and category. The run goes on and
 * scores every other cell; it exits 1, as a run whose model calls failed does, and ends once its report
 * is written though the module's timed-out call still holds a timer. Run again, rge asks each system
 * only the cells that failed.
 *
 * The pre-flight: a module file, a URL or a program that is not there fails `rge eval run` before any
 * system is asked anything (a good system beside it included), exit 1, the error naming it.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalCaseResult } from '../../src/vitest/run.ts';
import { type LoopbackServer, startLoopbackServer, withBody } from '../helpers/http-server.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { type SystemEntry, systemConfig } from '../helpers/system-config.ts';
import {
  askedCells,
  evalRunArgs,
  onlyRunId,
  type RgeOutcome,
  report,
  runState,
  SCRIPTED,
  type SummaryJson,
  startRge,
  storedCells,
  storedRecords,
} from './system-runs.ts';

const QUESTIONS = ['gd-001', 'gd-002', 'gd-003', 'gd-004', 'gd-005', 'gd-006', 'gd-007', 'gd-008'];
const TIMEOUT_MS = 4000;
/** how long the module's timed-out call goes on (ignoring its abort signal) */
const LINGER_MS = 120_000;

/** Each system's failed questions, with what the cell's error must say. */
const FAILURES: Record<string, Record<string, RegExp>> = {
  cmd: {
    'gd-001':
      /^command .*scripted-system\.mjs: question gd-001: the program exited with code 3; stderr ends: scripted: the vector store refused gd-001$/,
    'gd-002':
      /^command .*: question gd-002: stdout is not JSON: Here is my answer to gd-002: revenue grew\.$/,
    'gd-003': /^command .*: question gd-003: no answer within 4000 ms \(its process group was killed\)$/,
    'gd-004':
      /question gd-004: the answer does not fit the contract: answer: Invalid input: expected string, received number$/,
    'gd-005':
      /question gd-005: the answer does not fit the contract: contexts\.1\.id: duplicate context id "c1" \(first at contexts\[0\]\)$/,
  },
  mod: {
    'gd-001': /^module .*system\.mjs: question gd-001: the function threw: the vector index is not loaded$/,
    'gd-002': /^module .*: question gd-002: no answer within 4000 ms$/,
    'gd-003':
      /question gd-003: the answer does not fit the contract: contexts\.0\.text: Invalid input: expected string, received undefined$/,
  },
  web: {
    'gd-001':
      /^http http:\/\/127\.0\.0\.1:\d+\/answer: question gd-001: HTTP 400 \(not retried: a client error\): no such collection$/,
    'gd-002':
      /^http http:\/\/127\.0\.0\.1:\d+\/answer: question gd-002: HTTP 503: the index is rebuilding \(attempt 2 of 2\)$/,
  },
};
const PROVIDERS: Record<string, string> = { cmd: 'command', mod: 'module', web: 'http' };
/** The cells a system is asked for these questions, sorted: the 503 twice (its two attempts). */
const asked = (subject: string, questions: readonly string[]) =>
  questions.flatMap((q) => (subject === 'web' && q === 'gd-002' ? [`${q}/0`, `${q}/0`] : [`${q}/0`])).sort();
const FAILED = Object.values(FAILURES).reduce((n, f) => n + Object.keys(f).length, 0);
const CELLS = 3 * QUESTIONS.length;
const freshDir = scratchDirs('rge-system-failures-');

/** The scripted command's behaviour by question (test/run/system-fixtures/scripted-system.mjs). */
const COMMAND_PLAN = {
  'gd-001': 'exit3',
  'gd-002': 'not-json',
  'gd-003': 'hang',
  'gd-004': 'misfit',
  'gd-005': 'duplicates',
};

/** A module system that logs each question it is asked and fails gd-001..3. */
const moduleSource = (log: string) => `import { appendFileSync } from 'node:fs';
export default async function answer(q) {
  appendFileSync(${JSON.stringify(log)}, \`\${process.env.SCRIPTED_TAG} \${q.id} \${q.run_index}\\n\`);
  if (q.id === 'gd-001') throw new Error('the vector index is not loaded');
  // a system that ignores the abort signal rge gives it: its timer holds rge's process for 2 minutes
  if (q.id === 'gd-002') await new Promise((resolve) => setTimeout(resolve, ${LINGER_MS}));
  if (q.id === 'gd-003') return { answer: 'Revenue grew [p1].', contexts: [{ id: 'p1' }] };
  return { answer: \`The documents do not say what \${q.id} asks [p1].\`, contexts: [{ id: 'p1', text: 'A passage.' }] };
}
`;

/** The HTTP system: 400 for gd-001, 503 for gd-002, an answer otherwise; each request logged. */
function httpSystem(log: string, tag: () => string) {
  return withBody((_req: IncomingMessage, res: ServerResponse, body: string) => {
    const q = JSON.parse(body) as { id: string; run_index: number };
    appendFileSync(log, `${tag()} ${q.id} ${q.run_index}\n`);
    if (q.id === 'gd-001') res.writeHead(400).end('no such collection');
    else if (q.id === 'gd-002') res.writeHead(503).end('the index is rebuilding');
    else
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          answer: `The documents do not say what ${q.id} asks [w1].`,
          contexts: [{ id: 'w1', text: 'A passage.' }],
        }),
      );
  });
}

describe('a run whose systems fail some questions, each its own way', () => {
  let dir: string;
  let server: LoopbackServer;
  let tag = 'first';
  let args: string[];
  let logs: { cmd: string; mod: string; web: string };
  let first: RgeOutcome & { ms: number };
  let runId: string;
  let summary: { md: string; json: SummaryJson };
  let cases: EvalCaseResult[];

  const run = async (t: string) => {
    tag = t;
    const started = performance.now();
    const outcome = await startRge(args, {
      SCRIPTED_PLAN: JSON.stringify(COMMAND_PLAN),
      SCRIPTED_LOG: logs.cmd,
      SCRIPTED_TAG: t,
    }).done;
    return { ...outcome, ms: performance.now() - started };
  };

  beforeAll(async () => {
    dir = freshDir();
    await mkdir(dir, { recursive: true });
    logs = { cmd: join(dir, 'cmd.log'), mod: join(dir, 'mod.log'), web: join(dir, 'web.log') };
    const module = join(dir, 'system.mjs');
    await writeFile(module, moduleSource(logs.mod));
    server = await startLoopbackServer();
    server.route(
      '/answer',
      httpSystem(logs.web, () => tag),
    );
    const common = { timeout_ms: TIMEOUT_MS, concurrency: 2 };
    const { config, overrides } = await systemConfig([
      { id: 'cmd', provider: 'command', command: [process.execPath, SCRIPTED], ...common },
      { id: 'mod', provider: 'module', module, ...common },
      { id: 'web', provider: 'http', url: server.url('/answer'), max_attempts: 2, ...common },
    ]);
    args = evalRunArgs(config, overrides, dir, [
      '--questions',
      String(QUESTIONS.length),
      '--runs',
      '1',
      '--json',
      join(dir, 'cases.json'),
    ]);
    first = await run('first');
    runId = onlyRunId(join(dir, 'results'));
    summary = report(join(dir, 'reports'), runId);
    cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')).cases;
  }, 600_000);
  afterAll(async () => {
    await server?.close();
  });

  it('stores each failed cell as failed with its reason, and every other cell answered', () => {
    const state = runState(join(dir, 'results'), runId);
    const expected = Object.entries(FAILURES).flatMap(([s, f]) =>
      Object.keys(f).map((q) => `${s}/${q}/run 0`),
    );
    expect(Object.keys(state.errors).sort()).toEqual(expected.sort());
    // every one the system's own failure: no stop, no error of rge's
    expect(state.subject_failures).toEqual(expected.sort());
    for (const [subject, failures] of Object.entries(FAILURES))
      for (const [q, reason] of Object.entries(failures))
        expect(state.errors[`${subject}/${q}/run 0`]).toMatch(reason);
    expect(state.counts.answers).toEqual({ computed: CELLS - FAILED, reused: 0, failed: FAILED });
    // the run went on: each system's other questions are answered and judged
    for (const [subject, failures] of Object.entries(FAILURES)) {
      const answered = storedCells(join(dir, 'results'), `${PROVIDERS[subject]}__${subject}.jsonl`);
      const expectedAnswered = QUESTIONS.filter((q) => !(q in failures)).map((q) => `${q}/0`);
      expect(answered.sort()).toEqual(expectedAnswered);
    }
    expect(state.counts.verdicts).toEqual({ computed: 2 * (CELLS - FAILED), reused: 0, failed: 0 });
    // each system was asked each question once (the 503 twice: its two attempts)
    for (const subject of Object.keys(FAILURES))
      expect(askedCells(logs[subject as keyof typeof logs], 'first').sort(), subject).toEqual(
        asked(subject, QUESTIONS),
      );
  });

  it("lists each under the report's Errors with its reason, as the subject's failure, and scores it 0 in the ranking", () => {
    const { md, json } = summary;
    expect(md).toContain(`## Errors: ${FAILED}`);
    expect(md).toMatch(
      new RegExp(
        `^${CELLS - FAILED} cases \\(3 subjects\\), ${CELLS - FAILED} scored, .*${FAILED} errors \\(cases without a result: ${FAILED} the subject gave no answer for, scored 0 in the ranking\\)`,
        'm',
      ),
    );
    const errors = md.slice(md.indexOf(`## Errors: ${FAILED}`)).split('\n');
    for (const [subject, failures] of Object.entries(FAILURES))
      for (const [q, reason] of Object.entries(failures)) {
        const line = errors.find((l) => l.includes(`${subject}/${q}/run 0: no answer: `));
        expect(line, `${subject}/${q} under Errors`).toBeDefined();
        expect(line).toContain("(the subject's failure: no answer, scored 0)");
        expect((line as string).split(': no answer: ')[1]).toMatch(reason);
        // never among the answered cases the report shows
        expect(md).not.toContain(`### ${subject}/${q}/run 0 `);
        const listed = json.diagnostics.errors.list.find((e) =>
          e.message.startsWith(`${subject}/${q}/run 0:`),
        );
        expect(listed).toMatchObject({ subject_id: subject, question_id: q, run_index: 0, by: 'subject' });
        // the gate's cells hold it, scored 0
        expect(json.diagnostics.cells).toContainEqual(
          expect.objectContaining({ subject, question_id: q, run_index: 0, gfs: 0, failed: true }),
        );
      }
    expect(json.diagnostics.errors.count).toBe(FAILED);
    expect(json.cases).toMatchObject({ total: CELLS - FAILED, scored: CELLS - FAILED, failed: FAILED });
    for (const [subject, failures] of Object.entries(FAILURES)) {
      const failed = Object.keys(failures).length;
      // every question counts in the ranking; the answered ones only in the figure beside it
      expect(json.gfs[subject]?.all.primary.n).toBe(QUESTIONS.length);
      expect(json.outcomes[subject]).toMatchObject({ answered: QUESTIONS.length - failed, failed });
      expect(json.outcomes[subject]?.answeredOnly?.primary.n).toBe(QUESTIONS.length - failed);
      // on the first screen: its failed cases, and its answered-only GFS
      const row = md.split('\n').find((l) => new RegExp(`^\\| \\d \\| ${subject} \\|`).test(l));
      expect(row).toMatch(new RegExp(`\\| ${failed} \\| 0 \\|$`));
    }
  });

  it('--json gives each failed case its subject, question id, run index and category', () => {
    for (const [subject, failures] of Object.entries(FAILURES))
      for (const q of Object.keys(failures))
        expect(cases.find((c) => c.subject === subject && c.question_id === q)).toMatchObject({
          run_index: 0,
          category: 'grounded-direct',
          state: 'failed',
          scores: null,
          no_answer: true,
        });
    expect(cases.filter((c) => c.subject === null || c.question_id === null)).toEqual([]);
  });

  it('exits 1 and names each failed case, as a run whose model calls failed does', () => {
    expect(first.code, first.err).toBe(1);
    // and it ends once its report is written, though the module's timed-out call still holds a timer
    expect(first.ms).toBeLessThan(LINGER_MS / 2);
    expect(first.out).toContain(`${CELLS} cases, 0 reused, ${FAILED} failed`);
    for (const [subject, failures] of Object.entries(FAILURES))
      for (const q of Object.keys(failures))
        expect(first.err).toMatch(
          new RegExp(`failed: ${subject} .*${q} › run 0: ${subject}/${q}/run 0: no answer: `),
        );
  });

  it('run again, asks each system only the cells that failed', async () => {
    const again = await run('second');
    expect(again.code, again.err).toBe(1);
    expect(again.out).toContain(`${CELLS} cases, ${CELLS - FAILED} reused, ${FAILED} failed`);
    const state = runState(join(dir, 'results'), runId);
    expect(state.counts.answers).toEqual({ computed: 0, reused: CELLS - FAILED, failed: FAILED });
    for (const [subject, failures] of Object.entries(FAILURES)) {
      expect(askedCells(logs[subject as keyof typeof logs], 'second').sort(), subject).toEqual(
        asked(subject, Object.keys(failures)),
      );
    }
  }, 600_000);
});

/** A port on the loopback interface that nothing listens on (a server's, closed). */
async function closedPort(): Promise<number> {
  const server = await startLoopbackServer();
  const port = Number(new URL(server.url('/')).port);
  await server.close();
  return port;
}

/** A system rge cannot reach, and what the error must name. */
interface Unreachable {
  name: string;
  entry: (dir: string) => Promise<SystemEntry>;
  names: (entry: SystemEntry) => string;
}

const UNREACHABLE: Unreachable[] = [
  {
    name: 'a module file that is not there',
    entry: async (dir) => ({ id: 'bad', provider: 'module', module: join(dir, 'no-such-system.ts') }),
    names: (e) => `subject bad: no module at ${e.module}`,
  },
  {
    name: 'a URL nothing listens on (a closed loopback port)',
    entry: async () => ({
      id: 'bad',
      provider: 'http',
      url: `http://127.0.0.1:${await closedPort()}/answer`,
    }),
    names: (e) =>
      `subject bad: the http system's URL ${e.url} is not reachable: connection refused (ECONNREFUSED)`,
  },
  {
    name: 'a program that is not there',
    entry: async () => ({ id: 'bad', provider: 'command', command: ['rge-no-such-system', '--serve'] }),
    names: () => "subject bad: the command system's program rge-no-such-system is not found on PATH",
  },
];

describe('the pre-flight: a system rge cannot reach fails the run before its first question', () => {
  for (const u of UNREACHABLE)
    it(`${u.name}: exit 1 naming it, no system asked, no cell written`, async () => {
      const d = freshDir();
      await mkdir(d, { recursive: true });
      const bad = await u.entry(d);
      const log = join(d, 'asked.log');
      // a good system first: the bad one is found before any system is asked anything
      const { config, overrides } = await systemConfig([
        { id: 'good', provider: 'command', command: [process.execPath, SCRIPTED] },
        bad,
      ]);
      const args = evalRunArgs(config, overrides, d, ['--questions', '3', '--runs', '1']);
      const r = await startRge(args, { SCRIPTED_LOG: log, SCRIPTED_TAG: 'pre-flight' }).done;
      expect(r.code, r.err).toBe(1);
      const said = r.err.split('\n').filter((l) => l.startsWith('rge: '));
      expect(said, r.err).toHaveLength(1);
      expect(said[0]).toContain(u.names(bad));
      expect(r.err).not.toMatch(/^\s+at /m);
      expect(existsSync(log), 'the good system was asked').toBe(false);
      expect(storedRecords(join(d, 'results'), 'answers').size).toBe(0);
      expect(existsSync(join(d, 'reports')), 'a report').toBe(false);
    });
});
